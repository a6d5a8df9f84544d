/**
 * The rankings job and its lists (API.md §5.1 "job" numbers, §4.20 top lists, §4.2
 * `characters/members/`, §5.5): animes, mangas, characters, persons and users with list items
 * (scores, favourites) made through the API; then every number the job writes against a recount
 * from the items written here, every list's order, selection and filters against the contract's
 * rules, `refreshed_at`, records deleted since left out, the catalogue index's orderings by the
 * job's numbers, a second run that writes nothing, two runs at once, and a failing run that
 * leaves `refreshed_at` and the lists as they were. The numbers reach the catalogue index through
 * the compactor's patch, not deltas (docs/decisions.md O13): a run writes no delta; a run that
 * dies after its record writes, before publishing, is healed by the next run; a rename racing
 * the run keeps its name and the job's numbers.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { tableName } from '../../shared/db/client.js';
import { readHead } from '../../shared/db/index-deltas.js';
import { db } from '../../shared/db/sdk.js';
import { ANIME_LIST, MANGA_LIST } from '../../shared/domain/playlists.js';
import type { RankingsSummary } from '../../shared/domain/rankings.js';
import { publishedVectors, recount as recountTable } from '../support/recount.js';
import { scanAll } from '../support/tables.js';
import { expectedOrder, expectErrors, expectJson, searchKey, send, uniqueName, walk } from '../support/contract.js';
import { failWritesOf, runJob } from '../support/jobs.js';
import { compareCodePoints } from '../support/list-rules.js';
import { rng } from '../support/rng.js';
import { useServer } from '../support/server.js';

const server = useServer();
type Auth = Record<string, string>;
let editor: Auth;
const random = rng(808);
const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;

const ENVELOPE = ['refreshed_at'];
const get = async (path: string) => expectJson(await send(server, 'GET', path), 200);
const make = async (segment: string, body: Record<string, unknown>) => expectJson(await send(server, 'POST', `/api/${segment}/`, { body, headers: editor }), 201);
const ids = (xs: readonly { id: string }[]) => xs.map((x) => x.id);
const listIds = async (path: string) => ids((await walk(server, path, ENVELOPE)).results);

/**
 * Runs the job, counting the table writes its own calls make (lease and state items apart) and
 * the index deltas it puts (`<KIND>#IX` / `D#…`); `onCall` sees each of its calls first (a race
 * injected at a point of the run).
 */
const counting = new AsyncLocalStorage<{ writes: number; deltas: number; onCall?: (name: string, input: Record<string, any>) => Promise<void> }>();
let counterInstalled = false;
function installCounter() {
  if (counterInstalled) return;
  counterInstalled = true;
  db().middlewareStack.add(
    (next, context) => async (args) => {
      const store = counting.getStore();
      if (store?.onCall) await store.onCall(String(context.commandName), args.input as Record<string, any>);
      if (store && /^(TransactWrite|BatchWrite|Put|Update|Delete)(Items?)?Command$/.test(String(context.commandName))) {
        const input = args.input as Record<string, any>;
        const puts: any[] = [...(input.TransactItems ?? []).map((t: any) => t.Put?.Item), ...Object.values(input.RequestItems ?? {}).flatMap((reqs: any) => reqs.map((r: any) => r.PutRequest?.Item)), input.Item];
        store.deltas += puts.filter((i) => i && /#IX$/.test(String(i.pk?.S ?? i.pk)) && String(i.sk?.S ?? i.sk).startsWith('D#')).length;
        const keys: unknown[] = [
          ...(input.TransactItems ?? []).map((t: any) => (t.Put?.Item ?? t.Update?.Key ?? t.Delete?.Key ?? t.ConditionCheck?.Key)?.pk),
          ...Object.values(input.RequestItems ?? {}).flatMap((reqs: any) => reqs.map((r: any) => (r.PutRequest?.Item ?? r.DeleteRequest?.Key)?.pk)),
          ...(input.Item ? [input.Item.pk] : input.Key ? [input.Key.pk] : []),
        ];
        const pk = (k: unknown) => (typeof k === 'string' ? k : (k as { S?: string } | undefined)?.S);
        store.writes += keys.filter((k) => pk(k) !== 'RANKINGS').length;
      }
      return next(args);
    },
    { step: 'initialize', name: 'count-rankings-writes' },
  );
}
async function run(onCall?: (name: string, input: Record<string, any>) => Promise<void>): Promise<RankingsSummary & { writes: number; deltas: number }> {
  installCounter();
  const store = { writes: 0, deltas: 0, onCall };
  const summary = await counting.run(store, () => runJob<RankingsSummary>('rankings', new Date()));
  return { ...summary, writes: store.writes, deltas: store.deltas };
}

const INDEXED_KINDS = ['ANIME', 'MANGA', 'CHARACTER', 'PERSON'] as const;
/** The number of each kind's last index delta (a run that puts none leaves them as they were). */
const heads = async () => Object.fromEntries(await Promise.all(INDEXED_KINDS.map(async (k) => [k, await readHead(k)] as const)));
/** What the table's recount finds wrong now, once the consumers caught up (the index lagging its records among it). */
async function tableProblems(): Promise<string[]> {
  await server.background!.streams!.caughtUp();
  const items = await scanAll(tableName());
  return recountTable(items, await publishedVectors(items));
}
/** The catalogue lists ordered by the job's numbers (animes by members and score, characters and persons by favorites) equal the order of their details. */
async function expectIndexOrders() {
  const animes = await Promise.all(titles.filter((t) => t.kind === 'anime' && !t.deleted).map((t) => get(`/api/animes/${t.id}/`)));
  for (const key of ['members', 'score', 'rank', 'popularity', 'favorites']) {
    expect(ids((await walk(server, `/api/animes/?ordering=-${key}&limit=3`)).results), `-${key}`).toEqual(ids(expectedOrder(animes, key, true)));
  }
  const chars = await Promise.all(characters.map((c) => get(`/api/characters/${c.id}/`)));
  for (const key of ['favorites', 'members']) expect(ids((await walk(server, `/api/characters/?ordering=-${key}&limit=3`)).results), key).toEqual(ids(expectedOrder(chars, key, true)));
  const people = await Promise.all(persons.map((p) => get(`/api/persons/${p.id}/`)));
  expect(ids((await walk(server, '/api/persons/?ordering=-favorites&limit=3')).results)).toEqual(ids(expectedOrder(people, 'favorites', true)));
}

// ---- The world written through the API, and the numbers it should give

interface Title {
  kind: 'anime' | 'manga';
  id: string;
  name: string;
  created_at: string;
  media_type: string;
  status: string;
  characters: string[];
  persons: string[];
  deleted?: boolean;
}
interface ListItem {
  user: string;
  auth: Auth;
  title: Title;
  itemId: string;
  score: number;
  fav: boolean;
}

const titles: Title[] = [];
const items: ListItem[] = [];
const characters: { id: string; name: string }[] = [];
const persons: { id: string; name: string; category: string }[] = [];
const users: { id: string; auth: Auth }[] = [];

const itemsPath = (kind: Title['kind']) => (kind === 'anime' ? '/api/playlists/animelist/animes/' : '/api/playlists/mangalist/mangas/');

async function addItem(user: { id: string; auth: Auth }, title: Title, score: number, fav: boolean) {
  const list = title.kind === 'anime' ? ANIME_LIST : MANGA_LIST;
  const body = { [`${title.kind}_id`]: title.id, status: pick(list.statuses), score, is_favorite: fav };
  const item = expectJson(await send(server, 'POST', itemsPath(title.kind), { body, headers: user.auth }), 201);
  items.push({ user: user.id, auth: user.auth, title, itemId: item.id, score, fav });
}

async function changeItem(i: ListItem, score: number, fav: boolean) {
  expectJson(await send(server, 'PATCH', `${itemsPath(i.title.kind)}${i.itemId}/`, { body: { score, is_favorite: fav }, headers: i.auth }), 200);
  i.score = score;
  i.fav = fav;
}

const roundHalfUp = (x: number) => Math.floor(x + 0.5 + 1e-9);
const nameCmp = (a: string, b: string) => compareCodePoints(searchKey(a), searchKey(b));

/** §5.1 recounted from the items written here. */
function recount() {
  const live = titles.filter((t) => !t.deleted);
  const of = (t: Title) => items.filter((i) => i.title === t);
  const numbers = new Map(
    live.map((t) => {
      const its = of(t);
      const scored = its.filter((i) => i.score >= 1);
      const sum = scored.reduce((s, i) => s + i.score, 0);
      return [
        t.id,
        {
          members: its.length,
          scored_by: scored.length,
          score: scored.length === 0 ? null : roundHalfUp((100 * sum) / scored.length) / 100,
          favorites: its.filter((i) => i.fav).length,
          rank: null as number | null,
          popularity: null as number | null,
        },
      ];
    }),
  );
  for (const kind of ['anime', 'manga'] as const) {
    const mine = live.filter((t) => t.kind === kind);
    const n = (t: Title) => numbers.get(t.id)!;
    const byId = (a: Title, b: Title) => (a.id < b.id ? -1 : 1);
    mine
      .filter((t) => n(t).scored_by >= 3)
      .sort((a, b) => n(b).score! - n(a).score! || n(b).scored_by - n(a).scored_by || compareCodePoints(a.created_at, b.created_at) || byId(a, b))
      .forEach((t, i) => (n(t).rank = i + 1));
    mine
      .filter((t) => n(t).members >= 1)
      .sort((a, b) => n(b).members - n(a).members || compareCodePoints(a.created_at, b.created_at) || byId(a, b))
      .forEach((t, i) => (n(t).popularity = i + 1));
  }
  const distinct = (pred: (t: Title) => boolean, favOnly: boolean) => new Set(items.filter((i) => !i.title.deleted && pred(i.title) && (!favOnly || i.fav)).map((i) => i.user)).size;
  const characterNumbers = new Map(
    characters.map((c) => [c.id, { favorites: distinct((t) => t.characters.includes(c.id), true), members: distinct((t) => t.characters.includes(c.id), false) }]),
  );
  const personFavorites = new Map(persons.map((p) => [p.id, distinct((t) => t.persons.includes(p.id), true)]));
  return { numbers, characterNumbers, personFavorites, live };
}

/** Every number shown equals the recount. */
async function expectNumbers() {
  const { numbers, characterNumbers, personFavorites, live } = recount();
  for (const t of live) {
    const shown = await get(`/api/${t.kind}s/${t.id}/`);
    const n = numbers.get(t.id)!;
    expect({ id: t.id, members: shown.members, scored_by: shown.scored_by, score: shown.score, favorites: shown.favorites, rank: shown.rank, popularity: shown.popularity }).toEqual({ id: t.id, ...n });
  }
  for (const c of characters) {
    const shown = await get(`/api/characters/${c.id}/`);
    expect({ id: c.id, favorites: shown.favorites, members: shown.members }).toEqual({ id: c.id, ...characterNumbers.get(c.id) });
  }
  for (const p of persons) {
    const shown = await get(`/api/persons/${p.id}/`);
    expect({ id: p.id, favorites: shown.favorites }).toEqual({ id: p.id, favorites: personFavorites.get(p.id) });
  }
}

/** The lists of §4.20 and §4.2 as the contract's rules give them from the recount. */
function expectedLists() {
  const { numbers, characterNumbers, personFavorites, live } = recount();
  const n = (t: Title) => numbers.get(t.id)!;
  const out: Record<string, string[]> = {};
  for (const kind of ['anime', 'manga'] as const) {
    const mine = live.filter((t) => t.kind === kind);
    const byRank = (ts: Title[]) => ids(ts.filter((t) => n(t).rank !== null).sort((a, b) => n(a).rank! - n(b).rank!));
    const byPopularity = (ts: Title[]) => ids(ts.filter((t) => n(t).popularity !== null).sort((a, b) => n(a).popularity! - n(b).popularity!));
    const favorite = (ts: Title[]) =>
      ids(
        ts
          .filter((t) => n(t).favorites >= 1)
          .sort((a, b) => n(b).favorites - n(a).favorites || (n(a).rank ?? Infinity) - (n(b).rank ?? Infinity) || nameCmp(a.name, b.name) || (a.id < b.id ? -1 : 1)),
      );
    const statusFilter = kind === 'anime' ? 'airing' : 'publishing';
    const types = [...new Set(mine.map((t) => t.media_type))];
    for (const mt of [null, ...types]) {
      const ts = mine.filter((t) => mt === null || t.media_type === mt);
      const q = mt === null ? '' : `media_type=${mt}`;
      const path = (filter: string | null) => `/api/top/${kind}s/?${[filter ? `filter=${filter}` : '', q, 'limit=2'].filter(Boolean).join('&')}`;
      out[path(null)] = byRank(ts);
      out[path(statusFilter)] = byRank(ts.filter((t) => t.status === statusFilter));
      out[path('upcoming')] = byPopularity(ts.filter((t) => t.status === 'upcoming'));
      out[path('bypopularity')] = byPopularity(ts);
      out[path('favorite')] = favorite(ts);
    }
  }
  const c = (x: { id: string }) => characterNumbers.get(x.id)!;
  out['/api/top/characters/?limit=2'] = ids(characters.filter((x) => c(x).favorites >= 1).sort((a, b) => c(b).favorites - c(a).favorites || c(b).members - c(a).members || nameCmp(a.name, b.name) || (a.id < b.id ? -1 : 1)));
  out['/api/characters/members/?limit=2'] = ids(characters.filter((x) => c(x).members >= 1).sort((a, b) => c(b).members - c(a).members || c(b).favorites - c(a).favorites || nameCmp(a.name, b.name) || (a.id < b.id ? -1 : 1)));
  const pf = (x: { id: string }) => personFavorites.get(x.id)!;
  const artists = (category: string | null) =>
    ids(persons.filter((p) => pf(p) >= 1 && (category === null || p.category === category)).sort((a, b) => pf(b) - pf(a) || nameCmp(a.name, b.name) || (a.id < b.id ? -1 : 1)));
  out['/api/top/artists/?limit=2'] = artists(null);
  for (const category of new Set(persons.map((p) => p.category))) out[`/api/top/artists/?category=${category}&limit=2`] = artists(category);
  return out;
}

async function expectLists(expected = expectedLists()) {
  for (const [path, want] of Object.entries(expected)) expect(await listIds(path), path).toEqual(want);
}

/** What every list shows now, and its `refreshed_at`. */
async function snapshot() {
  const out: Record<string, unknown> = {};
  for (const path of Object.keys(expectedLists())) out[path] = await listIds(path);
  out.refreshed_at = (await get('/api/top/animes/')).refreshed_at;
  return out;
}

beforeAll(async () => {
  editor = (await server.user('contributor')).auth;
  const categories = ['director', 'voice_actor', 'artist', 'voice_actor', 'writer', 'voice_actor'];
  for (const [i, category] of categories.entries()) {
    const name = `${['Émile', 'emile', 'Zed', 'Aiko', 'Mori', 'Ken'][i]} ${uniqueName('Person')}`;
    persons.push({ id: (await make('persons', { name, category })).id, name, category });
  }
  for (const base of ['Hero', 'hero', 'Villain', 'Ally', 'Rival', 'Ghost', 'Cameo']) {
    const name = `${base} ${uniqueName('Character')}`;
    characters.push({ id: (await make('characters', { name })).id, name });
  }
  const [p0, p1, p2, p3, p4, p5] = persons.map((p) => p.id) as [string, string, string, string, string, string];
  const [c0, c1, c2, c3, c4, c5] = characters.map((c) => c.id) as [string, string, string, string, string, string];
  const animes: [string, string, string[], { staff: string[]; cast: [string, string[]][] }][] = [
    ['tv', 'airing', [], { staff: [p0], cast: [[c0, [p1]], [c1, [p3]]] }],
    // A person both staff and voice actor of one anime counts each user once.
    ['tv', 'finished', [], { staff: [p1, p0], cast: [[c0, [p1]], [c2, [p5]]] }],
    ['movie', 'upcoming', [], { staff: [], cast: [[c3, [p3]]] }],
    ['movie', 'airing', [], { staff: [p4], cast: [[c1, []]] }],
    ['ova', 'finished', [], { staff: [], cast: [] }],
    ['tv', 'upcoming', [], { staff: [p2], cast: [[c4, [p5]]] }],
    // Nobody lists it: no rank, no popularity.
    ['tv', 'finished', [], { staff: [p4], cast: [[c5, []]] }],
  ];
  for (const [i, [media_type, status, , rel]] of animes.entries()) {
    const name = `${['Alpha', 'alpha', 'Beta', 'Gamma', 'Delta', 'Epsilon', 'Unlisted'][i]} ${uniqueName('Anime')}`;
    const body = {
      name,
      media_type,
      status,
      staff: rel.staff.map((person_id) => ({ person_id, positions: ['Director'] })),
      characters: rel.cast.map(([character_id, vas]) => ({ character_id, role: 'main', voice_actors: vas.map((person_id) => ({ person_id, language: 'japanese' })) })),
    };
    const a = await make('animes', body);
    titles.push({ kind: 'anime', id: a.id, name, created_at: a.created_at, media_type, status, characters: rel.cast.map(([c]) => c), persons: [...rel.staff, ...rel.cast.flatMap(([, v]) => v)] });
  }
  const mangas: [string, string, string[], string[]][] = [
    ['manga', 'publishing', [p2, p4], [c0, c4]],
    ['novel', 'finished', [p2], [c2]],
    ['manga', 'upcoming', [], [c3]],
    ['manga', 'publishing', [p0], []],
  ];
  for (const [i, [media_type, status, authors, cast]] of mangas.entries()) {
    const name = `${['Saga', 'saga', 'Tale', 'Epic'][i]} ${uniqueName('Manga')}`;
    const body = { name, media_type, status, authors: authors.map((person_id) => ({ person_id, role: 'story' })), characters: cast.map((character_id) => ({ character_id, role: 'main' })) };
    const m = await make('mangas', body);
    titles.push({ kind: 'manga', id: m.id, name, created_at: m.created_at, media_type, status, characters: cast, persons: authors });
  }
  for (let u = 0; u < 10; u++) users.push(await server.user('member'));
  // Every user lists most titles (not the unlisted anime), some scored, some favourites; one title only two scores (no rank).
  const few = titles[4]!;
  for (const user of users) {
    for (const t of titles) {
      if (t.name.startsWith('Unlisted') || random() < 0.3) continue;
      if (t === few && items.filter((i) => i.title === few).length >= 2) continue;
      await addItem(user, t, random() < 0.25 ? 0 : 1 + Math.floor(random() * 10), random() < 0.35);
    }
  }
  // Ties: the two "alpha" animes and the two "saga" mangas have the same items (same score, scored_by, members and favourites).
  for (const [a, b] of [[titles[0]!, titles[1]!], [titles[7]!, titles[8]!]] as const) {
    for (const i of items.filter((x) => x.title === b)) {
      expect((await send(server, 'DELETE', `${itemsPath(b.kind)}${i.itemId}/`, { headers: i.auth })).status).toBe(204);
    }
    items.splice(0, items.length, ...items.filter((x) => x.title !== b));
    for (const i of items.filter((x) => x.title === a)) await addItem(users.find((u) => u.id === i.user)!, b, i.score, i.fav);
  }
}, 600_000);

describe('the rankings job', () => {
  it('before the first run: every list is empty, refreshed_at null, rank and popularity null', async () => {
    for (const path of ['/api/top/animes/', '/api/top/mangas/?filter=favorite', '/api/top/characters/', '/api/top/artists/', '/api/characters/members/']) {
      const page = await get(path);
      expect(Object.keys(page), path).toEqual(['count', 'next', 'previous', 'results', 'refreshed_at']);
      expect(page, path).toMatchObject({ count: null, next: null, previous: null, results: [], refreshed_at: null });
    }
    const a = await get(`/api/animes/${titles[0]!.id}/`);
    expect([a.rank, a.popularity]).toEqual([null, null]);
  });

  it('a run: every number equals a recount from the items, every list has the contract\'s selection and order, refreshed_at its completion time', { timeout: 300_000 }, async () => {
    const before = new Date().toISOString();
    const headsBefore = await heads();
    const summary = await run();
    const after = new Date().toISOString();
    expect(summary.skipped).toBeUndefined();
    expect(summary).toMatchObject({ animes: 7, mangas: 4, users: 10, failed: 0 });
    // No index delta: the numbers went to each kind's index as one patch, a new snapshot each.
    expect(summary.deltas).toBe(0);
    expect(await heads()).toEqual(headsBefore);
    for (const kind of INDEXED_KINDS) {
      expect(summary.published[kind].patched, kind).toBeGreaterThan(0);
      expect(summary.published[kind].version, kind).not.toBeNull();
    }
    expect(summary.published.ANIME.patched).toBe(6); // every anime but the unlisted one
    // The lists ordered by the numbers follow them as soon as the run returns.
    await expectIndexOrders();
    expect(summary.refreshed_at! >= before && summary.refreshed_at! <= after).toBe(true);
    await expectNumbers();
    // The data makes lists worth comparing: most hold several records, pages of 2 link.
    const expected = expectedLists();
    expect(Object.values(expected).filter((l) => l.length >= 3).length).toBeGreaterThanOrEqual(12);
    await expectLists(expected);
    for (const path of ['/api/top/animes/', '/api/top/mangas/', '/api/top/characters/', '/api/top/artists/', '/api/characters/members/']) {
      expect((await get(path)).refreshed_at, path).toBe(summary.refreshed_at);
    }
    // The ties were made: equal numbers, ordered by created_at (rank, popularity) and by name (favourites).
    const [a0, a1] = [await get(`/api/animes/${titles[0]!.id}/`), await get(`/api/animes/${titles[1]!.id}/`)];
    expect([a0.score, a0.scored_by, a0.members, a0.favorites]).toEqual([a1.score, a1.scored_by, a1.members, a1.favorites]);
    // Items are list items of the resources as they are now; fields work; pages link.
    const page = await get('/api/top/characters/?fields=name,favorites&limit=1');
    expect(Object.keys(page.results[0])).toEqual(['id', 'name', 'favorites']);
    expect(page.next).not.toBeNull();
    const top = await get('/api/top/animes/?limit=1');
    expect(top.results[0]).toEqual(await get(`/api/animes/${top.results[0].id}/`));
    expect(Object.keys((await get('/api/characters/members/?limit=1')).results[0])).not.toContain('animes');
  });

  it('the catalogue index orders by the run\'s numbers: rank, popularity, members, score, favorites of animes; favorites, members of characters; favorites of persons', { timeout: 120_000 }, async () => {
    const animes = await Promise.all(titles.filter((t) => t.kind === 'anime').map((t) => get(`/api/animes/${t.id}/`)));
    for (const key of ['rank', 'popularity', 'members', 'score', 'favorites']) {
      for (const descending of [false, true]) {
        const got = (await walk(server, `/api/animes/?ordering=${descending ? '-' : ''}${key}&limit=3`)).results;
        expect(ids(got), `${descending ? '-' : ''}${key}`).toEqual(ids(expectedOrder(animes, key, descending)));
      }
    }
    const chars = await Promise.all(characters.map((c) => get(`/api/characters/${c.id}/`)));
    for (const key of ['favorites', 'members']) expect(ids((await walk(server, `/api/characters/?ordering=-${key}&limit=3`)).results), key).toEqual(ids(expectedOrder(chars, key, true)));
    const people = await Promise.all(persons.map((p) => get(`/api/persons/${p.id}/`)));
    expect(ids((await walk(server, '/api/persons/?ordering=-favorites&limit=3')).results)).toEqual(ids(expectedOrder(people, 'favorites', true)));
  });

  it('the popular recommendations (anonymous) follow the run: the animes by popularity, as top/animes/?filter=bypopularity lists them', async () => {
    const popular = (await walk(server, '/api/recommendations/anime/?limit=3', ENVELOPE)).results;
    const top = (await walk(server, '/api/top/animes/?filter=bypopularity&limit=3', ENVELOPE)).results;
    expect(popular.length).toBeGreaterThan(2);
    expect(ids(popular)).toEqual(ids(top));
    expect(popular.every((r) => r.source === 'popular' && r.votes === null)).toBe(true);
  });

  it('a second run over the same data writes nothing (refreshed_at apart)', { timeout: 300_000 }, async () => {
    const first = (await get('/api/top/animes/')).refreshed_at;
    const summary = await run();
    expect(summary.written).toEqual({ titles: 0, positions: 0, characters: 0, persons: 0, entries: 0 });
    expect(summary.writes).toBe(0);
    // Nothing to publish: no patch, no snapshot.
    for (const kind of INDEXED_KINDS) expect(summary.published[kind], kind).toEqual({ patched: 0, version: null });
    expect(summary.refreshed_at! > first).toBe(true);
    expect((await get('/api/top/animes/')).refreshed_at).toBe(summary.refreshed_at);
    await expectNumbers();
  });

  it('the lists are the last run\'s until the next one; a record deleted since is left out at once', { timeout: 300_000 }, async () => {
    // Changes after the run: the numbers shown are exact at once (members, score), the lists and positions wait for the job.
    const t = titles[2]!;
    for (const user of users.filter((u) => !items.some((i) => i.title === t && i.user === u.id))) await addItem(user, t, 10, true);
    const stale = await snapshot();
    expect((await get(`/api/animes/${t.id}/`)).members).toBe(recount().numbers.get(t.id)!.members);
    const gone = titles.find((x) => x.kind === 'anime' && recount().numbers.get(x.id)!.popularity !== null && x !== t)!;
    const goneCharacter = characters.find((c) => recount().characterNumbers.get(c.id)!.members >= 1)!;
    expect((await send(server, 'DELETE', `/api/animes/${gone.id}/`, { headers: editor })).status).toBe(204);
    expect((await send(server, 'DELETE', `/api/characters/${goneCharacter.id}/`, { headers: editor })).status).toBe(204);
    const without = (xs: unknown) => (xs as string[]).filter((id) => id !== gone.id && id !== goneCharacter.id);
    for (const [path, was] of Object.entries(stale)) {
      if (path === 'refreshed_at') continue;
      expect(await listIds(path), path).toEqual(without(was));
    }
    expect((await get('/api/top/animes/')).refreshed_at).toBe(stale.refreshed_at);
    // The next run: the deletions, the new items.
    gone.deleted = true;
    characters.splice(characters.indexOf(goneCharacter), 1);
    for (const x of titles) x.characters = x.characters.filter((c) => c !== goneCharacter.id);
    const summary = await run();
    expect(summary.failed).toBe(0);
    await expectNumbers();
    await expectLists();
  });

  it('two runs at once: one does the work, the other finds the lease held and does nothing; an expired lease is taken over', { timeout: 300_000 }, async () => {
    const i = items.find((x) => !x.title.deleted && x.score !== 7)!;
    await changeItem(i, 7, !i.fav);
    const both = await Promise.all([run(), run()]);
    expect(both.filter((s) => s.skipped).length).toBe(1);
    const done = both.find((s) => !s.skipped)!;
    expect((await get('/api/top/characters/')).refreshed_at).toBe(done.refreshed_at);
    await expectNumbers();
    await expectLists();
    // A lease held by a live run: skipped; one whose time has passed: taken over.
    await db().send(new PutCommand({ TableName: tableName(), Item: { pk: 'RANKINGS', sk: 'LEASE', owner: 'another', until: Date.now() + 60_000 } }));
    expect((await run()).skipped).toBe(true);
    await db().send(new PutCommand({ TableName: tableName(), Item: { pk: 'RANKINGS', sk: 'LEASE', owner: 'crashed', until: Date.now() - 1 } }));
    const taken = await run();
    expect(taken.skipped).toBeUndefined();
    expect(taken.refreshed_at).not.toBeNull();
  });

  it('a run that fails (a record cannot be written) leaves refreshed_at and the lists as they were; the next run completes the work', { timeout: 300_000 }, async () => {
    // New favourites for one manga: its numbers, its characters' and its authors' change.
    const m = titles.find((t) => t.kind === 'manga' && !t.deleted && t.characters.length > 0)!;
    for (const i of items.filter((x) => x.title === m && !x.fav)) await changeItem(i, i.score, true);
    const before = await snapshot();
    const heal = failWritesOf(`MANGA#${m.id}`);
    try {
      await expect(run()).rejects.toThrow(/not written/);
    } finally {
      heal();
    }
    expect(await snapshot()).toEqual(before);
    // The lease was released: the next run need not wait for it.
    const summary = await run();
    expect(summary.skipped).toBeUndefined();
    expect(summary.refreshed_at! > (before.refreshed_at as string)).toBe(true);
    await expectNumbers();
    await expectLists();
  });

  it('a run that dies after its record writes, before publishing: the records show the numbers, the index lags; the next run publishes them, and rewrites a character whose numbers went back', { timeout: 300_000 }, async () => {
    // Two new members: one lists an anime for good; the other a manga, as a favourite, for a while
    // (its characters and authors gain a distinct user, then lose it again before the next run).
    const [stays, leaves] = [await server.user('member'), await server.user('member')];
    users.push(stays, leaves);
    const anime = titles.find((t) => t.kind === 'anime' && !t.deleted && !t.name.startsWith('Unlisted'))!;
    const manga = titles.find((t) => t.kind === 'manga' && !t.deleted && t.characters.length > 0 && t.persons.length > 0)!;
    await addItem(stays, anime, 9, true);
    await addItem(leaves, manga, 10, true);
    const character = characters.find((c) => manga.characters.includes(c.id))!;
    const before = await get(`/api/characters/${character.id}/`);
    // Every kind's pointer fails to move: the run writes its records, then cannot publish.
    const heal = INDEXED_KINDS.map((k) => failWritesOf(`${k}#IX`, 'P'));
    try {
      await expect(run()).rejects.toThrow(/not published/);
    } finally {
      heal.forEach((h) => h());
    }
    const { numbers, characterNumbers } = recount();
    expect((await get(`/api/animes/${anime.id}/`)).members).toBe(numbers.get(anime.id)!.members);
    const shown = await get(`/api/characters/${character.id}/`);
    expect({ favorites: shown.favorites, members: shown.members }).toEqual(characterNumbers.get(character.id));
    expect(shown.members).toBe(before.members + 1);
    const lagging = await tableProblems();
    expect(lagging).toContain(`ANIME index: ${anime.id} differs from its record's vector`);
    expect(lagging).toContain(`CHARACTER index: ${character.id} differs from its record's vector`);

    // The manga's item goes: its character's numbers are what its index still holds, not its record's.
    const gone = items.find((i) => i.user === leaves.id)!;
    expect((await send(server, 'DELETE', `${itemsPath(manga.kind)}${gone.itemId}/`, { headers: leaves.auth })).status).toBe(204);
    items.splice(items.indexOf(gone), 1);
    expect(recount().characterNumbers.get(character.id)).toEqual({ favorites: before.favorites, members: before.members });

    const summary = await run();
    expect(summary.failed).toBe(0);
    expect(summary.deltas).toBe(0);
    // The anime's record had its numbers already: published by comparing with the index.
    expect(summary.published.ANIME.patched).toBeGreaterThanOrEqual(1);
    expect(summary.written.characters).toBeGreaterThanOrEqual(1);
    await expectNumbers();
    await expectLists();
    await expectIndexOrders();
    expect(await tableProblems()).toEqual([]);
  });

  it('a rename racing the run (committed after its record writes, while it publishes) keeps its name, and the numbers are the job\'s', { timeout: 300_000 }, async () => {
    const renamer = await server.user('member');
    users.push(renamer);
    const anime = titles.find((t) => t.kind === 'anime' && !t.deleted && !t.name.startsWith('Unlisted'))!;
    await addItem(renamer, anime, 1, true);
    const name = `Renamed ${uniqueName('Anime')}`;
    let pointerReads = 0;
    let renamed = false;
    const key = (v: unknown) => (typeof v === 'string' ? v : (v as { S?: string } | undefined)?.S);
    // The anime index's pointer is read twice while publishing: to build the patch, then by the
    // compaction. The rename commits between them (its delta after the patch was built).
    const summary = await run(async (command, input) => {
      if (!/^Get(Item)?Command$/.test(command) || key(input.Key?.pk) !== 'ANIME#IX' || key(input.Key?.sk) !== 'P') return;
      if (++pointerReads !== 2) return;
      const res = await send(server, 'PATCH', `/api/animes/${anime.id}/`, { body: { name }, headers: editor });
      expect(res.status).toBe(200);
      renamed = true;
    });
    expect(renamed).toBe(true);
    expect(summary.failed).toBe(0);
    expect(summary.published.ANIME.patched).toBeGreaterThanOrEqual(1);
    anime.name = name;
    const shown = await get(`/api/animes/${anime.id}/`);
    expect(shown.name).toBe(name);
    await expectNumbers();
    await expectIndexOrders();
    expect(ids((await get(`/api/animes/?q=${encodeURIComponent(name)}`)).results)).toEqual([anime.id]);
    expect(await tableProblems()).toEqual([]);
  });

  it('query values: filters and category of the contract only; anything else is a 400; members/ is never read as an id', async () => {
    for (const path of ['/api/top/animes/?filter=publishing', '/api/top/animes/?filter=x', '/api/top/animes/?media_type=manga', '/api/top/mangas/?filter=airing', '/api/top/mangas/?media_type=tv', '/api/top/artists/?category=singer', '/api/top/characters/?category=director', '/api/characters/members/?ordering=name', '/api/top/animes/?limit=0', '/api/top/animes/?fields=nope', '/api/top/animes/?filter=']) {
      const param = new URL(path, 'http://x').searchParams.keys().next().value!;
      expectErrors(await send(server, 'GET', path), 400, 'invalid-query', [param]);
    }
    expect((await send(server, 'GET', '/api/characters/members/')).status).toBe(200);
    expect((await send(server, 'POST', '/api/top/animes/', { body: {}, headers: editor })).status).toBe(405);
  });
});

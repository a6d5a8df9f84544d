/**
 * Recommendations (API.md §4.1.2 `recommendations/`, §4.14, §5.4, §5.5) and home (§4.5), on the
 * real engines: users with high, low and favourite list items; the recommendations job run as
 * EventBridge would; every per-title list against a recount of the items (votes, order, the cap
 * of 50, only pairs with at least 3 votes: fewer would show what one user's private list holds —
 * the mangas' pairs of 1 and 2 votes are never shown, that of 3 is); personalised lists (seeds: the 50 most recently updated high-or-favourite items; the
 * caller's titles and deleted ones left out) and the popular fallback (the `popularity`
 * ordering the rankings job keeps, set here as a rankings run would); home's keys and sections,
 * anonymous and signed in; a second run writes nothing; a failing run leaves the previous lists
 * and `refreshed_at`; two runs at once.
 */
import { readHead } from '../../shared/db/index-deltas.js';
import { setPositions, type TitleKind } from '../../shared/db/rankings.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { animeTitle } from '../../shared/db/animes.js';
import { commitStaged } from '../../shared/db/staged.js';
import { loadTitle, titleWrite, type TitleDef } from '../../shared/db/titles.js';
import type { BaseRecord } from '../../shared/db/records.js';
import { setClock } from '../../shared/clock.js';
import type { RunSummary } from '../../shared/domain/recommendations-job.js';
import { MIN_VOTES } from '../../shared/domain/recommendations.js';
import { expectErrors, expectJson, expectProblem, searchKey, send, TIMESTAMP, uniqueName, walk } from '../support/contract.js';
import { failWritesOf, runJob } from '../support/jobs.js';
import { compareCodePoints } from '../support/list-rules.js';
import { rng } from '../support/rng.js';
import { useServer } from '../support/server.js';

const server = useServer();
type Auth = Record<string, string>;
type User = { id: string; auth: Auth };
let editor: Auth;
let moderator: Auth;

const call = (auth: Auth, method: string, path: string, body?: unknown) => send(server, method, path, { body, headers: auth });
const get = async (path: string, auth: Auth = {}) => expectJson(await call(auth, 'GET', path), 200);
const run = async () => (await runJob<RunSummary>('recommendations', new Date())) as Extract<RunSummary, { skipped: false }>;

/** What the test wrote: per user and title the item (score, favourite, id), in the order of their last update. */
const items = new Map<string, Map<string, { id: string; score: number; fav: boolean; at: number }>>();
let clockTick = 0;
const users: Record<string, User> = {};
const names = new Map<string, string>();

async function list(kind: 'anime' | 'manga', u: string, titleId: string, score: number, fav = false) {
  const segment = kind === 'anime' ? 'animelist/animes' : 'mangalist/mangas';
  const item = expectJson(await call(users[u]!.auth, 'POST', `/api/playlists/${segment}/`, { [`${kind}_id`]: titleId, score, is_favorite: fav, status: 'completed' }), 201);
  if (!items.has(u)) items.set(u, new Map());
  items.get(u)!.set(titleId, { id: item.id, score, fav, at: clockTick++ });
}

const HIGH = 7;
/** votes(A, B) of §5.4, recounted from the items written. */
function votes(a: string, b: string): number {
  let n = 0;
  for (const own of items.values()) if ((own.get(a)?.score ?? 0) >= HIGH && (own.get(b)?.score ?? 0) >= HIGH) n++;
  return n;
}
/** Titles a list holds (the recount's domain). */
const titlesOf = (kind: string) => [...names.keys()].filter((id) => kindOf.get(id) === kind);
const kindOf = new Map<string, string>();

/** The order of §5.4: votes desc, then score desc (nulls last), then name (N, code points), then id. */
function ordered(entries: { id: string; votes: number }[], scores: Map<string, number | null>) {
  return [...entries].sort((x, y) => {
    if (x.votes !== y.votes) return y.votes - x.votes;
    const sx = scores.get(x.id) ?? null;
    const sy = scores.get(y.id) ?? null;
    if (sx !== sy) {
      if (sx === null) return 1;
      if (sy === null) return -1;
      return sy - sx;
    }
    return compareCodePoints(searchKey(names.get(x.id)!), searchKey(names.get(y.id)!)) || compareCodePoints(x.id, y.id);
  });
}

async function scoresOf(kind: string): Promise<Map<string, number | null>> {
  const out = new Map<string, number | null>();
  for (const id of titlesOf(kind)) out.set(id, (await get(`/api/${kind}s/${id}/`)).score);
  return out;
}

/** The expected per-title list of A (≤ 50), from the recount. */
function expectedFor(kind: string, a: string, scores: Map<string, number | null>, gone: Set<string> = new Set()) {
  const entries = titlesOf(kind)
    .filter((b) => b !== a)
    .map((b) => ({ id: b, votes: votes(a, b) }))
    .filter((e) => e.votes >= MIN_VOTES);
  return ordered(entries, scores)
    .slice(0, 50)
    .filter((e) => !gone.has(e.id));
}

/** The expected personalised list of user u (§5.4) — null when it has no candidate (popular). */
function personalised(kind: string, u: string, scores: Map<string, number | null>, gone: Set<string> = new Set()) {
  const own = items.get(u) ?? new Map();
  const seeds = [...own]
    .filter(([t, i]) => kindOf.get(t) === kind && !gone.has(t) && (i.score >= HIGH || i.fav))
    .sort((x, y) => y[1].at - x[1].at)
    .slice(0, 50)
    .map(([t]) => t);
  const sums = new Map<string, number>();
  for (const s of seeds) for (const e of expectedFor(kind, s, scores)) if (!own.has(e.id) && !gone.has(e.id)) sums.set(e.id, (sums.get(e.id) ?? 0) + e.votes);
  if (sums.size === 0) return null;
  return ordered([...sums].map(([id, v]) => ({ id, votes: v })), scores).slice(0, 100);
}

/**
 * Sets what a rankings run sets (shared/domain/rankings.ts): the title's `members` as of the run
 * in its record and its index items (the index's `popularity` ordering sorts by it, members desc),
 * and its `popularity` position beside its counters. A position p is given members 1000 − p, so
 * the index's order is the positions' order.
 */
async function rank(def: TitleDef<BaseRecord>, id: string, numbers: { popularity?: number | null; members?: number }) {
  const before = (await loadTitle(def, id))!;
  const members = numbers.members ?? (typeof numbers.popularity === 'number' ? 1000 - numbers.popularity : undefined);
  const plan = titleWrite(def, before, { after: { ...before.record, ...(members === undefined ? {} : { members }) } as BaseRecord, relations: before.relations, links: [], deltaHead: await readHead(def.entity.kind) });
  await commitStaged(plan.main, plan.rest, plan.pk, plan.rev, plan.write);
  if (numbers.popularity !== undefined) await setPositions(def.entity.kind as TitleKind, id, null, numbers.popularity);
}

const T: string[] = [];
const M: string[] = [];
/** The animes the popular test gives a popularity (1…8 in this order: members 999…992 in the index). */
const popularOnes = () => [T[60]!, T[5]!, T[59]!, T[2]!, T[61]!, T[40]!, T[58]!, T[9]!];

beforeAll(async () => {
  setClock('2025-11-03T12:00:00.000Z');
  editor = (await server.user('contributor')).auth;
  moderator = (await server.user('moderator')).auth;
  // 64 animes: T0…T55 listed high by the heavy user H (and H2, H3 alike: the 3 votes a pair needs);
  // T56, T57 with T0 by V (V2, V3 alike; and F's favourite); T58…T63 by others.
  // Names with case and accents, so the name order is N's; T0…T13 and T58…T63 air in fall 2025 (home's current season), T56, T57 in winter 2026.
  const prefixes = ['alpha', 'Beta', 'élan', 'Zeta', 'gamma', 'Ōmega', 'delta', 'Echo'];
  for (let i = 0; i < 64; i += 8) {
    const made = await Promise.all(
      Array.from({ length: 8 }, async (_, j) => {
        const n = i + j;
        const aired = n <= 13 || n >= 58 ? `2025-${10 + (n % 3)}-0${1 + (n % 9)}` : n === 56 || n === 57 ? `2026-0${1 + (n % 3)}-15` : '2020-04-01';
        const name = uniqueName(`${prefixes[n % 8]} ${n}`);
        return expectJson(await call(editor, 'POST', '/api/animes/', { name, aired_from: aired, media_type: 'tv', status: 'finished' }), 201);
      }),
    );
    for (const a of made) {
      T.push(a.id);
      names.set(a.id, a.name);
      kindOf.set(a.id, 'anime');
    }
  }
  for (let i = 0; i < 3; i++) {
    const m = expectJson(await call(editor, 'POST', '/api/mangas/', { name: uniqueName(`Manga ${i}`) }), 201);
    M.push(m.id);
    names.set(m.id, m.name);
    kindOf.set(m.id, 'manga');
  }
  for (const u of ['H', 'H2', 'H3', 'V', 'V2', 'V3', 'F', 'P', 'Q', 'Q2', 'Q3', ...Array.from({ length: 10 }, (_, i) => `R${i}`)]) users[u] = await server.user('member');
  // H, H2, H3: 56 high items, T0 first (its oldest).
  await Promise.all(['H', 'H2', 'H3'].map(async (u) => {
    for (let i = 0; i < 56; i++) await list('anime', u, T[i]!, 7 + (i % 4));
  }));
  // V, V2, V3: T0, T56, T57 high; F: T57 as a favourite scored 0 (a seed that is not high); P: one low item (no seed).
  for (const u of ['V', 'V2', 'V3']) {
    await list('anime', u, T[0]!, 9);
    await list('anime', u, T[56]!, 8);
    await list('anime', u, T[57]!, 7);
  }
  await list('anime', 'F', T[57]!, 0, true);
  await list('anime', 'P', T[5]!, 3);
  // Ten users with 12 items each among T1…T55 and T58…T63: scores 0–10, some favourites.
  // Drawn before any request, so that the data is the same whatever order the responses come in.
  const r = rng(8);
  const pool = [...T.slice(1, 56), ...T.slice(58)];
  const plans = Array.from({ length: 10 }, () => {
    const chosen = new Set<string>();
    while (chosen.size < 12) chosen.add(pool[Math.floor(r() * pool.length)]!);
    return [...chosen].map((t) => ({ t, score: Math.floor(r() * 11), fav: r() < 0.2 }));
  });
  await Promise.all(plans.map(async (plan, k) => {
    for (const p of plan) await list('anime', `R${k}`, p.t, p.score, p.fav);
  }));
  // Mangas: M0+M1 high three times (shown), M1+M2 twice and M0+M2 once (never shown); Q lists M1 low.
  await list('manga', 'R0', M[0]!, 8);
  await list('manga', 'R0', M[1]!, 9);
  await list('manga', 'R1', M[0]!, 10);
  await list('manga', 'R1', M[1]!, 7);
  await list('manga', 'R3', M[0]!, 7);
  await list('manga', 'R3', M[1]!, 8);
  await list('manga', 'R2', M[0]!, 7);
  await list('manga', 'R2', M[2]!, 7);
  await list('manga', 'R4', M[1]!, 8);
  await list('manga', 'R4', M[2]!, 9);
  await list('manga', 'R5', M[1]!, 7);
  await list('manga', 'R5', M[2]!, 7);
  await list('manga', 'Q', M[1]!, 2);
}, 600_000);
afterAll(() => setClock(null));

let first: Extract<RunSummary, { skipped: false }>;
let animeScores: Map<string, number | null>;

describe('before the first run', () => {
  it('per-title lists are empty with refreshed_at null; the caller lists are popular and empty (no popularity yet)', async () => {
    expect(await get(`/api/animes/${T[0]}/recommendations/`)).toEqual({ count: 0, next: null, previous: null, results: [], refreshed_at: null });
    expect(await get('/api/recommendations/anime/')).toEqual({ count: null, next: null, previous: null, results: [], refreshed_at: null });
    expect(await get('/api/recommendations/manga/', users.H!.auth)).toEqual({ count: null, next: null, previous: null, results: [], refreshed_at: null });
  });
});

describe('the recommendations job', () => {
  beforeAll(async () => {
    first = await run();
    animeScores = await scoresOf('anime');
  }, 300_000);

  it('every anime\'s list: votes and order as recounted from the items, at most 50, each the Anime representation + votes; refreshed_at the run\'s', async () => {
    expect(first.skipped).toBe(false);
    expect(first.refreshed_at).toMatch(TIMESTAMP);
    expect(first.anime).toMatchObject({ titles: 64, sampledAt: null });
    for (const a of T) {
      const expected = expectedFor('anime', a, animeScores);
      const { results, pages } = await walk(server, `/api/animes/${a}/recommendations/?limit=20`, ['refreshed_at']);
      expect(results.map((r) => [r.id, r.votes]), a).toEqual(expected.map((e) => [e.id, e.votes]));
      expect(pages.every((p) => p.body.count === expected.length && p.body.refreshed_at === first.refreshed_at)).toBe(true);
    }
    // The cap: T0…T55 share H, so each has at least 55 candidates.
    expect(expectedFor('anime', T[1]!, animeScores).length).toBe(50);
    const page = await get(`/api/animes/${T[0]}/recommendations/?limit=3`);
    for (const r of page.results) {
      const { votes: v, ...title } = r;
      expect(title).toEqual(await get(`/api/animes/${r.id}/`));
      expect(Object.keys(r).at(-1)).toBe('votes');
      expect(v).toBe(votes(T[0]!, r.id));
    }
  });

  it('mangas: votes from high items only (a low item counts for nothing); a pair of 1 or 2 votes is never shown, one of 3 is', async () => {
    expect([votes(M[0]!, M[1]!), votes(M[1]!, M[2]!), votes(M[0]!, M[2]!)]).toEqual([3, 2, 1]);
    expect((await get(`/api/mangas/${M[0]}/recommendations/`)).results.map((r: any) => [r.id, r.votes])).toEqual([[M[1], 3]]);
    expect((await get(`/api/mangas/${M[1]}/recommendations/`)).results.map((r: any) => [r.id, r.votes])).toEqual([[M[0], 3]]);
    expect(await get(`/api/mangas/${M[2]}/recommendations/`)).toMatchObject({ count: 0, results: [] });
    // Nor in what is stored: the job writes no list for M2.
    expect(first.manga).toMatchObject({ titles: 3, lists: 2, written: 2 });
  });

  it('a second run with nothing changed writes no list, and only moves refreshed_at', async () => {
    const before = await get(`/api/animes/${T[3]}/recommendations/?limit=50`);
    const second = await run();
    expect(second.anime.written).toBe(0);
    expect(second.manga.written).toBe(0);
    expect(second.refreshed_at > first.refreshed_at).toBe(true);
    const after = await get(`/api/animes/${T[3]}/recommendations/?limit=50`);
    expect(after).toEqual({ ...before, refreshed_at: second.refreshed_at });
    first = second;
  });

  it('two runs at once: one does the work, the other finds the lease taken; the lists are the same', async () => {
    const both = await Promise.all([runJob<RunSummary>('recommendations', new Date()), runJob<RunSummary>('recommendations', new Date())]);
    expect(both.some((s) => !s.skipped)).toBe(true);
    const done = both.find((s): s is Extract<RunSummary, { skipped: false }> => !s.skipped)!;
    expect(done.anime.written + done.manga.written).toBe(0);
    const page = await get(`/api/animes/${T[7]}/recommendations/?limit=50`);
    expect(page.results.map((r: any) => [r.id, r.votes])).toEqual(expectedFor('anime', T[7]!, animeScores).map((e) => [e.id, e.votes]));
    first = done;
  });
});

describe('personalised and popular lists', () => {
  it('personalised: the summed votes of the seeds\' lists (the 50 most recently updated high or favourite items), without the caller\'s titles; votes and source', async () => {
    for (const u of ['H', 'V', 'F', ...Array.from({ length: 10 }, (_, i) => `R${i}`)]) {
      const expected = personalised('anime', u, animeScores);
      const all: any[] = [];
      let url: string | null = '/api/recommendations/anime/?limit=7';
      while (url) {
        const body = await get(url, users[u]!.auth);
        expect(body.count).toBeNull();
        expect(body.refreshed_at).toBe(first.refreshed_at);
        all.push(...body.results);
        url = body.next;
      }
      if (expected === null) expect(all.every((r) => r.source === 'popular'), u).toBe(true);
      else {
        expect(all.map((r) => [r.id, r.votes]), u).toEqual(expected.map((e) => [e.id, e.votes]));
        expect(all.every((r) => r.source === 'personalized')).toBe(true);
      }
    }
  });

  it('H\'s seeds are its 50 newest high items: T0 (its oldest, the only way to T56 and T57) counts once it is updated', async () => {
    const ids = async () => (await get('/api/recommendations/anime/?limit=100', users.H!.auth)).results.map((r: any) => r.id);
    expect(await ids()).not.toContain(T[56]);
    const item = items.get('H')!.get(T[0]!)!;
    expectJson(await call(users.H!.auth, 'PATCH', `/api/playlists/animelist/animes/${item.id}/`, { notes: 'watched again' }), 200);
    item.at = clockTick++;
    const now = await ids();
    expect(now).toContain(T[56]);
    expect(now).toContain(T[57]);
    expect(now).toEqual(personalised('anime', 'H', animeScores)!.map((e) => e.id));
  });

  it('a favourite scored 0 is a seed: F gets T57\'s list without T57 itself', async () => {
    const body = await get('/api/recommendations/anime/', users.F!.auth);
    expect(body.results.map((r: any) => [r.id, r.votes, r.source])).toEqual(personalised('anime', 'F', animeScores)!.map((e) => [e.id, e.votes, 'personalized']));
    expect(body.results.map((r: any) => r.id)).not.toContain(T[57]);
  });

  it('popular: without a token or without candidates, by popularity asc, the caller\'s titles left out, votes null; at most 100', async () => {
    // A rankings run: popularity for eight animes (one of them P's title), null for the rest.
    const ranked = popularOnes();
    for (const [i, id] of ranked.entries()) await rank(animeTitle as unknown as TitleDef<BaseRecord>, id, { popularity: i + 1 });
    const anon = await send(server, 'GET', '/api/recommendations/anime/?limit=3');
    const { results, pages } = await walk(server, '/api/recommendations/anime/?limit=3', ['refreshed_at']);
    expect(results.map((r) => [r.id, r.votes, r.source])).toEqual(ranked.map((id) => [id, null, 'popular']));
    expect(pages[0]!.body.refreshed_at).toBe(first.refreshed_at);
    expect(anon.headers.get('cache-control')).toBe('public, max-age=60');
    expect(anon.headers.get('vary')).toContain('Authorization');
    // An anime's own `source` (its material) is shadowed by the list's `source` (decision M6).
    const { votes: v, source, ...title } = results[0];
    expect([v, source]).toEqual([null, 'popular']);
    const { source: material, ...detail } = await get(`/api/animes/${ranked[0]}/`);
    expect(material === null || typeof material === 'string').toBe(true);
    expect(title).toEqual(detail);
    // P has no seed (one low item): popular without its own title.
    const p = await send(server, 'GET', '/api/recommendations/anime/', { headers: users.P!.auth });
    expect(expectJson(p, 200).results.map((r: any) => r.id)).toEqual(ranked.filter((id) => id !== T[5]));
    expect(p.headers.get('cache-control')).toBe('private, no-store');
    // Mangas: none has a popularity.
    expect((await get('/api/recommendations/manga/')).results).toEqual([]);
    expect((await get('/api/recommendations/manga/', users.Q!.auth)).results).toEqual([]);
  });

  it('manga personalised: R2 gets M1 (votes from M0\'s list) but not its own titles; R4 and R5 nothing from M2 (their pair has 2 votes)', async () => {
    expect((await get('/api/recommendations/manga/', users.R2!.auth)).results.map((r: any) => [r.id, r.votes, r.source])).toEqual([[M[1], 3, 'personalized']]);
    // R4's seeds M1 and M2: M1's list is M0 (3 votes); M2's is empty.
    expect((await get('/api/recommendations/manga/', users.R4!.auth)).results.map((r: any) => [r.id, r.votes, r.source])).toEqual([[M[0], 3, 'personalized']]);
  });

  it('a deleted title leaves every list at once (its tombstone), and count follows', async () => {
    const gone = T[45]!;
    const holder = T.find((a) => a !== gone && expectedFor('anime', a, animeScores).some((e) => e.id === gone));
    expect(holder, 'a list that holds T45').toBeDefined();
    expect(await call(editor, 'DELETE', `/api/animes/${gone}/`)).toMatchObject({ status: 204 });
    const page = await get(`/api/animes/${holder}/recommendations/?limit=50`);
    const expected = expectedFor('anime', holder!, animeScores, new Set([gone]));
    expect(page.results.map((r: any) => r.id)).toEqual(expected.map((e) => e.id));
    expect(page.count).toBe(expected.length);
    expectProblem(await send(server, 'GET', `/api/animes/${gone}/recommendations/`), 404, 'not-found');
    for (const u of ['R0', 'R1', 'R2', 'R3']) {
      const ids = (await get('/api/recommendations/anime/?limit=100', users[u]!.auth)).results.map((r: any) => r.id);
      expect(ids, u).not.toContain(gone);
    }
    expect((await get('/api/recommendations/anime/?limit=100')).results.map((r: any) => r.id)).not.toContain(gone);
    names.delete(gone);
    for (const own of items.values()) own.delete(gone);
  });
});

describe('GET /api/home/', () => {
  it('every key, anonymous: seasons of the clock, their animes by members then name (12), non-spoiler reviews and news newest first (6), the popular recommendations (8)', async () => {
    // The index's members, as a rankings run leaves them: two more animes of the current season.
    await rank(animeTitle as unknown as TitleDef<BaseRecord>, T[12]!, { members: 9 });
    await rank(animeTitle as unknown as TitleDef<BaseRecord>, T[3]!, { members: 4 });
    const reviews: any[] = [];
    for (const [i, spoiler] of [false, true, false, false, false, false, false, false].entries()) {
      reviews.push(expectJson(await call(users[`R${i}`]!.auth, 'POST', `/api/animes/${T[20]}/reviews/create/`, { rating: 8, comment: 'A long enough comment about this title.', is_spoiler: spoiler }), 201));
    }
    const articles: any[] = [];
    for (let i = 0; i < 7; i++) articles.push(expectJson(await call(moderator, 'POST', '/api/news/', { name: uniqueName(`News ${i}`), content: 'Text.', anime_ids: [T[1]] }), 201));
    const res = await send(server, 'GET', '/api/home/');
    const home = expectJson(res, 200);
    expect(Object.keys(home)).toEqual(['seasons', 'current_season', 'upcoming_season', 'anime_reviews', 'latest_news', 'anime_recommendations']);
    expect(home.seasons).toEqual({ current: { year: 2025, season: 'fall' }, upcoming: { year: 2026, season: 'winter' } });
    const fall = T.filter((_, n) => (n <= 13 || n >= 58) && names.has(T[n]!));
    // The index's members: the popular test's positions (999…992), then these two.
    const positioned = popularOnes();
    const members = (id: string) => (positioned.includes(id) ? 999 - positioned.indexOf(id) : id === T[12] ? 9 : id === T[3] ? 4 : 0);
    const fallOrder = [...fall].sort((a, b) => members(b) - members(a) || compareCodePoints(searchKey(names.get(a)!), searchKey(names.get(b)!)) || compareCodePoints(a, b));
    expect(home.current_season.map((c: any) => c.id)).toEqual(fallOrder.slice(0, 12));
    expect(Object.keys(home.current_season[0])).toEqual(['id', 'name', 'image', 'media_type', 'status', 'episodes', 'score']);
    const card = await get(`/api/animes/${home.current_season[0].id}/`);
    expect(home.current_season[0]).toMatchObject({ id: card.id, name: card.name, score: card.score, media_type: 'tv' });
    expect(home.upcoming_season.map((c: any) => c.id).sort()).toEqual([T[56], T[57]].sort());
    expect(home.anime_reviews.map((r: any) => r.id)).toEqual(reviews.filter((r) => !r.is_spoiler).reverse().slice(0, 6).map((r) => r.id));
    expect(home.anime_reviews[0]).toEqual(reviews.at(-1));
    expect(home.latest_news.map((n: any) => n.id)).toEqual(articles.reverse().slice(0, 6).map((n) => n.id));
    expect(home.latest_news[0]).not.toHaveProperty('content');
    const popular = (await get('/api/recommendations/anime/?limit=8')).results.map((r: any) => r.id);
    expect(home.anime_recommendations.map((c: any) => c.id)).toEqual(popular);
    expect(Object.keys(home.anime_recommendations[0])).toEqual(Object.keys(home.current_season[0]));
    expect(res.headers.get('cache-control')).toBe('public, max-age=60');
  });

  it('signed in: the caller\'s own recommendations (the first 8 of their list), private; each caller sees only theirs', async () => {
    for (const u of ['H', 'R1', 'F', 'P']) {
      const res = await send(server, 'GET', '/api/home/', { headers: users[u]!.auth });
      const home = expectJson(res, 200);
      const own = (await get('/api/recommendations/anime/?limit=8', users[u]!.auth)).results.map((r: any) => r.id);
      expect(home.anime_recommendations.map((c: any) => c.id), u).toEqual(own);
      expect(res.headers.get('cache-control')).toBe('private, no-store');
    }
    const h = (await get('/api/home/', users.H!.auth)).anime_recommendations.map((c: any) => c.id);
    const f = (await get('/api/home/', users.F!.auth)).anime_recommendations.map((c: any) => c.id);
    expect(h).not.toEqual(f);
  });

  it('an empty store\'s sections are empty arrays, never absent (a season with no animes)', async () => {
    setClock('2099-05-01T00:00:00.000Z');
    try {
      const home = await get('/api/home/');
      expect(home).toMatchObject({ seasons: { current: { year: 2099, season: 'spring' }, upcoming: { year: 2099, season: 'summer' } }, current_season: [], upcoming_season: [] });
    } finally {
      setClock('2025-11-03T12:00:00.000Z');
    }
  });
});

describe('a failing run', () => {
  it('keeps the previous lists and refreshed_at; the next run shows the change', async () => {
    const before = new Map<string, unknown>();
    for (const a of [T[60]!, T[61]!, T[0]!]) before.set(a, await get(`/api/animes/${a}/recommendations/?limit=50`));
    // New co-votes for T60 and T61 (3, so that the pair is shown); every write of T61's list fails.
    for (const u of ['Q', 'Q2', 'Q3']) {
      await list('anime', u, T[60]!, 10);
      await list('anime', u, T[61]!, 10);
    }
    const restore = failWritesOf(`RECS#ANIME#${T[61]}`);
    try {
      await expect(runJob('recommendations', new Date())).rejects.toThrow(/injected engine failure/);
    } finally {
      restore();
    }
    for (const [a, page] of before) expect(await get(`/api/animes/${a}/recommendations/?limit=50`), a).toEqual(page);
    const next = await run();
    expect(next.refreshed_at > first.refreshed_at).toBe(true);
    animeScores = await scoresOf('anime');
    for (const a of [T[60]!, T[61]!]) {
      const page = await get(`/api/animes/${a}/recommendations/?limit=50`);
      expect(page.results.map((r: any) => [r.id, r.votes]), a).toEqual(expectedFor('anime', a, animeScores).map((e) => [e.id, e.votes]));
      expect(page.refreshed_at).toBe(next.refreshed_at);
    }
  }, 300_000);
});

describe('errors', () => {
  it('400 for every bad query parameter; 404 for an unknown title; home takes no parameter, not even fields', async () => {
    for (const path of ['/api/recommendations/anime/', `/api/animes/${T[0]}/recommendations/`, `/api/mangas/${M[0]}/recommendations/`, '/api/recommendations/manga/']) {
      expectErrors(await send(server, 'GET', `${path}?ordering=name`), 400, 'invalid-query', ['ordering']);
      expectErrors(await send(server, 'GET', `${path}?limit=0`), 400, 'invalid-query', ['limit']);
      expectErrors(await send(server, 'GET', `${path}?limit=101`), 400, 'invalid-query', ['limit']);
      expectErrors(await send(server, 'GET', `${path}?cursor=abc`), 400, 'invalid-query', ['cursor']);
      expectErrors(await send(server, 'GET', `${path}?fields=name,nope`), 400, 'invalid-query', ['fields']);
      expectProblem(await send(server, 'GET', `${path}?offset=1`), 400, 'invalid-query');
    }
    expectErrors(await send(server, 'GET', '/api/home/?fields=seasons'), 400, 'invalid-query', ['fields']);
    expectErrors(await send(server, 'GET', '/api/home/?limit=5'), 400, 'invalid-query', ['limit']);
    expectProblem(await send(server, 'GET', '/api/animes/nope/recommendations/'), 404, 'not-found');
    expectProblem(await send(server, 'GET', `/api/mangas/${T[0]}/recommendations/`), 404, 'not-found');
    expectProblem(await send(server, 'GET', '/api/recommendations/anime/', { headers: { authorization: 'Bearer nope' } }), 401, 'invalid-token');
  });

  it('fields: only those keys (and id); the envelope keeps refreshed_at', async () => {
    const page = await get(`/api/animes/${T[0]}/recommendations/?fields=votes,name&limit=2`);
    expect(Object.keys(page)).toEqual(['count', 'next', 'previous', 'results', 'refreshed_at']);
    expect(Object.keys(page.results[0]).sort()).toEqual(['id', 'name', 'votes']);
    const mine = await get('/api/recommendations/anime/?fields=source', users.H!.auth);
    expect(mine.results[0]).toEqual({ id: mine.results[0].id, source: 'personalized' });
  });
});

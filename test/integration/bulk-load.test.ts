/**
 * The bulk loader of the catalogue benchmark (test/bench/load-catalogue.ts) writes exactly the
 * items the API leaves: a small generated catalogue is created through the real create
 * operations into one table (the stream consumer running, as deployed) and through the loader
 * into another, with the API's ids and timestamps; once the consumer has settled, the two tables
 * must hold the same items, after removing what is random per write: the `write` id of title
 * records (staged.ts) and the ids the API gives new videos and pictures (media.ts keepByUrl).
 * The titles' indexes are compared as what they hold (the API's writes leave deltas, the loader
 * a first snapshot): the same vector for every record. Any other difference is a bug in the loader.
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureTable } from '../../infra/local/engines.js';
import { catalogue, resolveRefs, SEGMENTS, type Kind } from '../bench/catalogue-data.js';
import { LOADABLE_KINDS, loadCatalogue, type Stamp } from '../bench/load-catalogue.js';
import { send } from '../support/contract.js';
import { useServer } from '../support/server.js';
import { scanAll, settled, sortKeys, type Item } from '../support/tables.js';
import { indexViews } from '../support/recount.js';
import type { Vector } from '../../shared/db/catalogue-index.js';

const server = useServer();
const cat = catalogue({
  scale: { genre: 8, theme: 5, demographic: 2, producer: 12, magazine: 2, person: 50, character: 60, anime: 16, manga: 4, news: 6 },
  seed: 11,
  today: '2025-06-01',
});

/** The catalogue's items (not those there before it, e.g. the caller's account) without what is random per write. */
function comparable(items: Map<string, Item>, before: ReadonlySet<string> = new Set()): Map<string, Item> {
  const out = new Map<string, Item>();
  for (const [key, item] of items) {
    // The indexes are compared apart; the loader makes no change-feed entries (decision EX10).
    if (before.has(key) || /^[A-Z]+#IX$/.test(String(item.pk)) || /^FEED(#P)?$/.test(String(item.pk))) continue;
    const copy = structuredClone(item);
    if (copy.sk === 'R') delete copy.write;
    if (/^C#(videos|pictures)#/.test(String(copy.sk))) copy.entries = (copy.entries as Item[]).map(({ id, ...rest }) => ({ ...rest, id: typeof id === 'string' && id.length === 22 ? '<new id>' : id }));
    out.set(key, copy);
  }
  return out;
}

const viaApi = new Map<string, Item>();
const viaLoader = new Map<string, Item>();
let indexViaApi: Map<string, Map<string, Vector>>;
let indexViaLoader: Map<string, Map<string, Vector>>;

beforeAll(async () => {
  const auth = (await server.user('contributor')).auth;
  // News are written by moderators; the loader is told who, for their `author`.
  const moderator = await server.user('moderator');
  const apiTable = process.env.TABLE_NAME!;
  const accountItems = new Set((await scanAll(apiTable)).keys());
  const ids: Partial<Record<Kind, string[]>> = {};
  const stamps: Partial<Record<Kind, Stamp[]>> = {};
  for (const kind of LOADABLE_KINDS) {
    ids[kind] = [];
    stamps[kind] = [];
    for (let i = 0; i < cat.sizes[kind]; i++) {
      const headers = kind === 'news' ? moderator.auth : auth;
      const res = await send(server, 'POST', `/api/${SEGMENTS[kind]}/`, { body: resolveRefs(cat.body(kind, i), ids), headers });
      if (res.status !== 201) throw new Error(`${kind} #${i}: ${res.status} ${res.text}`);
      const { id, created_at, updated_at } = res.body as Stamp;
      ids[kind].push(id);
      stamps[kind].push({ id, created_at, updated_at });
    }
  }
  const api = await settled(apiTable);
  for (const [k, v] of comparable(api, accountItems)) viaApi.set(k, v);
  indexViaApi = await indexViews(api);

  const loaderTable = `bulk-${randomBytes(6).toString('hex')}`;
  await ensureTable(process.env.AWS_ENDPOINT_URL_DYNAMODB!, loaderTable);
  process.env.TABLE_NAME = loaderTable;
  try {
    await loadCatalogue({ cat, kinds: LOADABLE_KINDS, stamp: (kind, i) => stamps[kind]![i]!, inFlight: 4, editor: { user_id: moderator.id, username: moderator.username, role: 'moderator' } });
  } finally {
    process.env.TABLE_NAME = apiTable;
  }
  const loaded = await scanAll(loaderTable);
  for (const [k, v] of comparable(loaded)) viaLoader.set(k, v);
  indexViaLoader = await indexViews(loaded);
}, 600_000);

describe('bulk loader', () => {
  it('writes the items the API leaves, item by item', () => {
    const missing = [...viaApi.keys()].filter((k) => !viaLoader.has(k));
    const extra = [...viaLoader.keys()].filter((k) => !viaApi.has(k));
    expect(missing, 'items the API wrote and the loader did not').toEqual([]);
    expect(extra, 'items the loader wrote and the API did not').toEqual([]);
    const differing = [...viaApi.keys()].filter((k) => viaLoader.has(k) && JSON.stringify(sortKeys(viaApi.get(k))) !== JSON.stringify(sortKeys(viaLoader.get(k))));
    for (const k of differing.slice(0, 3)) expect(viaLoader.get(k), k).toEqual(viaApi.get(k));
    expect(differing).toEqual([]);
  });

  it('publishes the indexes the API’s writes leave: the same vector for every record', () => {
    for (const kind of ['ANIME', 'MANGA', 'CHARACTER', 'PERSON', 'NEWS']) {
      const api = indexViaApi.get(kind)!;
      expect(api.size, kind).toBeGreaterThan(0);
      expect(new Map([...indexViaLoader.get(kind)!].sort()), kind).toEqual(new Map([...api].sort()));
    }
  });

  it('covers what the API keeps by increments and by the stream consumer', () => {
    const items = [...viaApi.values()];
    const of = (re: RegExp) => items.filter((i) => re.test(`${String(i.pk)} ${String(i.sk)}`));
    // Entity counters, linked counts with their revisions.
    expect(of(/^ANIME#N N$/)[0]?.n).toBe(cat.sizes.anime);
    expect(of(/^CHARACTER#N N$/)[0]?.n).toBe(cat.sizes.character);
    const genres = of(/^GENRE#[^#]+ R$/);
    expect(genres.some((g) => (g.rec as { anime_count: number }).anime_count > 0 && Number(g.rev) > 1)).toBe(true);
    const producers = of(/^PRODUCER#[^#]+ R$/);
    expect(producers.some((p) => Number((p.priv as { studio_credits: number }).studio_credits) > 0)).toBe(true);
    // Taxonomy ordering entries at the counts (moved by the consumer).
    const counted = of(/^GENRE#O#anime_count#A /);
    expect(counted.length).toBe(cat.sizes.genre);
    expect(counted.some((e) => (e.rec as { anime_count: number }).anime_count > 0)).toBe(true);
    // Titles over one transaction went through the journal, which is gone once applied.
    expect(of(/ J#/)).toEqual([]);
    expect(of(/^ANIME#[^#]+ C#characters#0$/).length).toBeGreaterThan(0);
    // The relations consumer's reverse items and the characters' appearances (their filters).
    expect(of(/^CHARACTER#[^#]+#X ANIME#/).length).toBeGreaterThan(0);
    expect(of(/^PERSON#[^#]+#X (VOICE|STAFF)#/).length).toBeGreaterThan(0);
    expect([...indexViaApi.get('CHARACTER')!.values()].some((v) => (v.f.anime_role ?? []).length > 0)).toBe(true);
    // News with their author and the animes they name.
    expect([...indexViaApi.get('NEWS')!.values()].filter((v) => (v.f.author ?? []).length === 1)).toHaveLength(cat.sizes.news);
    expect([...indexViaApi.get('NEWS')!.values()].some((v) => (v.f.anime ?? []).length > 0)).toBe(true);
  });
});


/**
 * The in-memory index's snapshot (shared/search/snapshot.ts, evaluate.ts) against two other
 * evaluations of the same lists: the brute force of the contract's rules
 * (test/support/reference-list.ts) and the planner's own in-memory evaluation of vectors
 * (catalogue-index.ts vectorPage, with the cursors of pageOf). Random animes (as the planner's
 * property test draws them) make a snapshot, which is packed and unpacked; random deltas then
 * delete, change and add records; random queries over every filter, `q`, `min_score`, `ids`, the
 * exclusions of `sfw` and every ordering in both directions are walked to the end with `next` and back with `previous`, and
 * every page must be the one the current records give, with the same cursors and `count`. The
 * snapshot's entries (the schedule's airing animes, with the deltas after it) must give exactly
 * the entries the current records give, and a snapshot the previous version wrote, without
 * entries, is read with its entries unknown.
 */
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { animeIndex, HOME_ORDERING, scheduleEntryOf, type AnimeRecord, type ScheduleEntry } from '../../shared/db/animes.js';
import { vectorOf, vectorPage, type IndexQuery } from '../../shared/db/catalogue-index.js';
import { sortKey } from '../../shared/db/sort-keys.js';
import type { Cursor } from '../../shared/db/sort-keys.js';
import { entryRows, evaluate, prepareDeltas, type Delta } from '../../shared/search/evaluate.js';
import { buildSnapshot, encodeSnapshot, orderOf, packSnapshot, SNAPSHOT_VERSION, unpackSnapshot, decodeSnapshot } from '../../shared/search/snapshot.js';
import { searchWords } from '../../shared/search/relevance.js';
import { matchesTerms, queryTerms, searchText } from '../../shared/text.js';
import { ByteReader, ByteWriter } from '../../shared/search/codec.js';
import { asVersion1 } from '../support/previous-store.js';
import { referenceList, referenceRelevance } from '../support/reference-list.js';
import { animeArb, FILTERS, GENRES, placeAsARunWould, queryArb, record, where, type Generated, type Query } from '../support/random-animes.js';

const ID_ALPHABET = '-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz';
const idArb = fc.string({ unit: fc.constantFrom(...ID_ALPHABET), minLength: 22, maxLength: 22 });

/** Records of the snapshot, and what happens to them after it: kept, deleted, changed (to another body), and records added. */
const worldArb = fc
  .uniqueArray(idArb, { minLength: 4, maxLength: 40 })
  .chain((ids) =>
    fc.record({
      ids: fc.constant(ids),
      bodies: fc.array(animeArb, { minLength: ids.length, maxLength: ids.length }),
      fates: fc.array(fc.constantFrom('kept', 'kept', 'kept', 'deleted', 'changed'), { minLength: ids.length, maxLength: ids.length }),
      changes: fc.array(animeArb, { minLength: ids.length, maxLength: ids.length }),
      added: fc.array(animeArb, { maxLength: 8 }),
      addedIds: fc.uniqueArray(idArb, { minLength: 8, maxLength: 8 }),
    }),
  );

type World = ReturnType<typeof worldArb.generate>['value'];

/** The records at the snapshot, those now, and the deltas between them (in a random order of writes). */
function history(w: World) {
  const before = w.ids.map((id, i) => record(w.bodies[i]!, id));
  placeAsARunWould(before);
  const deltas: Delta[] = [];
  const now: AnimeRecord[] = [];
  const changed: AnimeRecord[] = [];
  before.forEach((r, i) => {
    if (w.fates[i] === 'kept') now.push(r);
    else if (w.fates[i] === 'deleted') deltas.push({ id: r.id, vector: null });
    else changed.push(record(w.changes[i]!, r.id));
  });
  const added = w.added.map((g: Generated, i) => record(g, w.addedIds[i]!)).filter((r) => !w.ids.includes(r.id));
  for (const r of [...changed, ...added]) {
    // An intermediate write of the same record, replaced by its last one.
    deltas.push({ id: r.id, vector: vectorOf(animeIndex, { ...r, name: 'an earlier name' }) });
    now.push(r);
  }
  for (const r of [...changed, ...added]) deltas.push({ id: r.id, vector: vectorOf(animeIndex, r) });
  // The places the reference orders `rank` and `popularity` by (the index orders by the numbers behind them).
  placeAsARunWould(now);
  return { before, now, deltas };
}

interface Extra {
  ids?: ReadonlySet<string>;
  excluded?: Record<string, string[]>;
}
function indexQuery(q: Query, ordering: string, descending: boolean, extra: Extra = {}): Omit<IndexQuery, 'cursor'> {
  const equals = Object.fromEntries(FILTERS.flatMap((f) => (q[f] === undefined ? [] : [[f, q[f]!]])));
  const terms = q.q === undefined ? [] : (queryTerms(q.q) as { terms: string[] }).terms;
  return { ordering, descending, limit: q.limit, terms, equals, atLeast: q.min_score === undefined ? {} : { score: q.min_score }, ...extra };
}

/** Exclusions (`sfw=true`, API.md §8.3: `rating` rx, explicit genres and themes) for some queries. */
const excludedArb = fc.option(fc.record({ rating: fc.subarray(['rx', 'r']), genre: fc.subarray(GENRES), theme: fc.subarray(GENRES) }), { freq: 2, nil: undefined });
const excludes = (x: Extra['excluded'], r: AnimeRecord) =>
  x !== undefined && (x.rating!.includes(r.rating ?? '') || r.genres.some((g) => x.genre!.includes(g.id)) || r.themes.some((t) => x.theme!.includes(t.id)));

/**
 * `ids` (API.md §8.1) for some queries: picks among the snapshot's records (kept, deleted,
 * changed), the added ones and ids of no record.
 */
const idsPickArb = fc.option(fc.array(fc.nat(), { minLength: 1, maxLength: 12 }), { freq: 2 });
function idsOf(w: World, pick: number[] | null): ReadonlySet<string> | undefined {
  if (pick === null) return undefined;
  const pool = [...w.ids, ...w.addedIds, 'NoSuchRecordAtAll00000', 'AnotherIdOfNoRecord000'];
  return new Set(pick.map((n) => pool[n % pool.length]!));
}

/** The schedule's entries of records, as the digest of schema versions 1–3 held them (API.md §4.15): airing animes only, by id. */
const scheduleOf = (records: readonly AnimeRecord[]): ScheduleEntry[] =>
  records
    .filter((r) => r.status === 'airing')
    .map((r) => ({ id: r.id, name: r.name, score: r.score, status: r.status, broadcast: r.broadcast, aired_from: r.aired_from, aired_to: r.aired_to, episodes: r.episodes }))
    .sort((a, b) => (a.id < b.id ? -1 : 1));
const byId = (entries: ScheduleEntry[]) => [...entries].sort((a, b) => (a.id < b.id ? -1 : 1));

/** Walks a query to the end and back with evaluate, checking each page against vectorPage over the current vectors; returns both walks' ids. */
function walk(snapshot: ReturnType<typeof buildSnapshot>, deltas: Delta[], now: AnimeRecord[], base: Omit<IndexQuery, 'cursor'>) {
  const vectors = now.map((r) => vectorOf(animeIndex, r));
  const prepared = prepareDeltas(snapshot, deltas);
  const page = (cursor: Cursor | null) => {
    const q = { ...base, cursor };
    const want = vectorPage(animeIndex, vectors, q);
    // Both ways of putting the matches in order: walking the ordering, and through its ranks (with the deltas prepared once for the walk).
    const [got, ranked] = [evaluate(animeIndex, snapshot, q, deltas, 0), evaluate(animeIndex, snapshot, q, prepared, 1)];
    for (const p of [got!, ranked!]) {
      expect({ entries: p.entries, next: p.next, previous: p.previous, count: p.count }, JSON.stringify(q)).toEqual({ entries: want.entries, next: want.next, previous: want.previous, count: want.matched });
    }
    return got!;
  };
  const forward: string[] = [];
  let cursor: Cursor | null = null;
  let last: Cursor | null = null;
  for (let n = 0; n < 200; n++) {
    const p = page(cursor);
    forward.push(...p.entries.map((e) => e.id));
    if (p.next === null) {
      last = p.entries.length > 0 ? { d: 'p', k: p.entries.at(-1)!.sk, i: true } : p.previous;
      break;
    }
    cursor = p.next;
  }
  const backward: string[] = [];
  cursor = last;
  for (let n = 0; cursor && n < 200; n++) {
    const p = page(cursor);
    if (p.entries.length === 0) break;
    backward.unshift(...p.entries.map((e) => e.id));
    cursor = p.previous;
  }
  return { forward, backward };
}

describe('the in-memory index snapshot', () => {
  it('walks every query to the end and back exactly as the brute force over the current records, through deltas of every kind', () => {
    fc.assert(
      fc.property(worldArb, fc.array(fc.tuple(queryArb, idsPickArb, excludedArb), { minLength: 8, maxLength: 8 }), (w, queries) => {
        const { before, now, deltas } = history(w);
        const snapshot = unpackSnapshot(animeIndex, packSnapshot(buildSnapshot(animeIndex, before.map((r) => vectorOf(animeIndex, r)))));
        // The entries: the snapshot's own, and with the deltas after it (deleted, changed — an airing anime that stops airing, or starts —, added).
        expect(byId(entryRows(animeIndex, snapshot, prepareDeltas(snapshot, []))!.map(scheduleEntryOf))).toEqual(scheduleOf(before));
        expect(byId(entryRows(animeIndex, snapshot, prepareDeltas(snapshot, deltas))!.map(scheduleEntryOf))).toEqual(scheduleOf(now));
        for (const [q, pick, excluded] of queries) {
          const ids = idsOf(w, pick);
          const extra: Extra = { ...(ids ? { ids } : {}), ...(excluded ? { excluded } : {}) };
          for (const [ordering, descending] of [
            [q.ordering, q.descending],
            [q.ordering, !q.descending],
            ['name', false],
          ] as const) {
            const expected = referenceList(now, {
              ...(q.q === undefined ? {} : { q: q.q }),
              searchFields: (r) => [r.name, r.name_jpn, r.name_rom, ...r.alternative_names],
              where: (r) => where(q)(r) && (ids === undefined || ids.has(r.id)) && !excludes(excluded, r),
              ordering: { value: (r) => (r as unknown as Record<string, string | number | null>)[ordering]!, text: ordering === 'name', descending },
            }).map((r) => r.id);
            const got = walk(snapshot, deltas, now, indexQuery(q, ordering, descending, extra));
            const shown = { q, ids: ids && [...ids], excluded, ordering, descending };
            expect(got.forward, JSON.stringify(shown)).toEqual(expected);
            expect(got.backward, JSON.stringify({ ...shown, backward: true })).toEqual(expected);
          }
          // Home's derived ordering (ascending only): against the planner's evaluation alone.
          walk(snapshot, deltas, now, indexQuery(q, HOME_ORDERING, false, extra));
          // Without deltas: the snapshot's own records.
          walk(snapshot, [], before, indexQuery(q, q.ordering, q.descending, extra));
        }
      }),
      { numRuns: 200, seed: 19 },
    );
  });

  it('ranks by relevance and matches fuzzily exactly as the brute force of §8.4, to the end and back, through deltas of every kind', () => {
    // Exact words, typos (dropped, swapped, doubled letters), words written together, and terms the ranks tell apart.
    const phraseArb = fc.constantFrom('Shingeki no Kyojin', 'Kyojin', 'Love Live! School', 'Live Love', 'Re:Zero kara', 'Full Metal Panic', 'Fullmetal', 'Café Ōkami', 'Pokémon 2', 'Straße x', 'Shingeki', '進撃の巨人');
    const relevanceQ = fc.constantFrom('rezero', 'rezerokara', 'fullmetal', 'fulmetal', 'full metal', 'fullmetalpanic', 'zero', 'shingeki no kyojin', 'shingeki', 'kyojin', 'no kyo', 'love live', 'live', 'shingkei', 'shngeki', 'kyoijn', 'pokmeon', 'pokemonn', 'okamii', 'strase', 'strassse', 'schoool', 'shingekino', 'nokyojin', 'cafeschool', 'lovelive', 'jojoss', 'caf', 'cafe 2', '巨人', 'まどか', 'shingeki kyoijn', 'x');
    fc.assert(
      fc.property(worldArb, fc.array(phraseArb, { minLength: 100, maxLength: 100 }), fc.array(fc.tuple(queryArb, relevanceQ, fc.boolean(), fc.boolean(), idsPickArb, excludedArb), { minLength: 6, maxLength: 6 }), (world, phrases, queries) => {
        // Names from a few phrases, so that words written together, typos and the ranks meet often (in the snapshot and in the deltas).
        let next = 0;
        const named = (g: Generated): Generated => ({ ...g, name: phrases[next++ % phrases.length]!, alternative_names: next % 3 === 0 ? [phrases[next++ % phrases.length]!] : g.alternative_names });
        const w = { ...world, bodies: world.bodies.map(named), changes: world.changes.map(named), added: world.added.map(named) };
        const { before, now, deltas } = history(w);
        const snapshot = unpackSnapshot(animeIndex, packSnapshot(buildSnapshot(animeIndex, before.map((r) => vectorOf(animeIndex, r)))));
        for (const [q, text, fuzzy, reverse, pick, excluded] of queries) {
          const ids = idsOf(w, pick);
          const extra: Extra = { ...(ids ? { ids } : {}), ...(excluded ? { excluded } : {}) };
          const spec = {
            q: text,
            fuzzy,
            searchFields: (r: AnimeRecord) => [r.name, r.name_jpn, r.name_rom, ...r.alternative_names],
            where: (r: AnimeRecord) => where({ ...q, q: undefined })(r) && (ids === undefined || ids.has(r.id)) && !excludes(excluded, r),
            by: (r: AnimeRecord) => r.members,
            reverse,
          };
          const base = { ...indexQuery({ ...q, q: text } as Query, 'relevance', reverse, extra), ...(fuzzy ? { fuzzy: true } : {}) };
          const shown = { q: text, fuzzy, reverse, ids: ids && [...ids], excluded };
          for (const [records, ds, source] of [[now, deltas, 'now'], [before, [], 'snapshot']] as const) {
            const got = walk(snapshot, [...ds], [...records], base);
            const expected = referenceRelevance(records, spec).map((r) => r.id);
            expect(got.forward, JSON.stringify({ ...shown, source })).toEqual(expected);
            expect(got.backward, JSON.stringify({ ...shown, source, backward: true })).toEqual(expected);
          }
          // Fuzzy matching under another ordering: the same records as relevance finds, in that ordering's order.
          if (fuzzy) {
            const got = walk(snapshot, deltas, now, { ...base, ordering: q.ordering, descending: q.descending });
            expect(new Set(got.forward)).toEqual(new Set(referenceRelevance(now, spec).map((r) => r.id)));
          }
        }
      }),
      { numRuns: 150, seed: 20 },
    );
  });

  it('orders each ordering as its partitions do: ascending by sort key, descending by sort key backwards', () => {
    fc.assert(
      fc.property(fc.uniqueArray(idArb, { minLength: 1, maxLength: 60 }), fc.array(animeArb, { minLength: 60, maxLength: 60 }), (ids, bodies) => {
        const records = ids.map((id, i) => record(bodies[i]!, id));
        placeAsARunWould(records);
        const vectors = records.map((r) => vectorOf(animeIndex, r));
        const snapshot = buildSnapshot(animeIndex, vectors);
        for (const [name, col] of snapshot.orderings) {
          for (const descending of name === HOME_ORDERING ? [false] : [false, true]) {
            const o = name === HOME_ORDERING ? animeIndex.derived![name]! : animeIndex.orderings[name]!;
            const dir = descending ? 'desc' : 'asc';
            const keys = sortedByCodePoint(records.map((r) => sortKey(o.value(r), o.type, r.id, dir)), descending);
            const idAt = (i: number) => snapshot.ids.slice(i * 22, i * 22 + 22);
            const got = [...orderOf(col, descending)].map((i) => sortKey(o.value(records.find((r) => r.id === idAt(i))!), o.type, idAt(i), dir));
            expect(got, `${name} ${dir}`).toEqual(keys);
          }
        }
      }),
      { numRuns: 100, seed: 19 },
    );
  });

  it('matches a term exactly when text.ts matchesTerms does: the words are the runs and their rests from Han, kana and Hangul', () => {
    const texts = ['Shingeki no Kyojin', '進撃の巨人', 'まどか☆マギカ', '한국어 단어', 'ショー 2', ''];
    const sw = searchText(texts);
    const words = searchWords(sw);
    for (const t of ['shin', 'kyo', 'no', 'geki', '巨人', '撃の', 'の巨', 'マギカ', 'ギカ', '국어', '어', '2', 'ー', 'x']) {
      expect(words.some((w) => w.startsWith(t)), t).toBe(matchesTerms(sw, [t]));
    }
  });

  it('reads back any table of strings it front-codes, sorted or not, astral characters included', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary', maxLength: 12 }), { maxLength: 40 }), fc.boolean(), (values, sort) => {
        const table = sort ? [...values].sort() : values;
        const w = new ByteWriter();
        w.strings(table);
        const r = new ByteReader(w.done());
        expect(r.strings()).toEqual(table);
        r.end();
      }),
      { numRuns: 300, seed: 19 },
    );
  });

  it('refuses bytes of another version, of another index shape, and truncated bytes', () => {
    const vectors = [record(fc.sample(animeArb, { numRuns: 1, seed: 1 })[0]!, 'A'.repeat(22))].map((r) => vectorOf(animeIndex, r));
    const bytes = encodeSnapshot(buildSnapshot(animeIndex, vectors));
    expect(decodeSnapshot(animeIndex, bytes).n).toBe(1);
    const other = Uint8Array.from(bytes);
    other[4] = SNAPSHOT_VERSION + 1;
    expect(() => decodeSnapshot(animeIndex, other)).toThrow(/version/);
    expect(() => decodeSnapshot({ ...animeIndex, kind: 'MANGA' }, bytes)).toThrow(/built for/);
    expect(() => decodeSnapshot(animeIndex, bytes.subarray(0, bytes.length - 1))).toThrow(/truncated|add up/);
  });
});

describe("a snapshot's entries and the snapshots without them", () => {
  const base = { name_jpn: '', alternative_names: [], media_type: 'tv', rating: null, genres: [], themes: [], studios: [], scored_by: 3, members: 2, favorites: 1, created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-02-01T00:00:00.000Z' };
  const broadcast = { day: 'saturday', time: '23:30', timezone: 'Asia/Tokyo' };
  const records = [
    record({ ...base, name: 'Shingeki no Kyojin', status: 'airing', aired_from: '2001-04-10', score: 8.25, aired_to: null, episodes: 12, broadcast } as Generated, 'A'.repeat(22)),
    record({ ...base, name: 'Café Ōkami', status: 'finished', aired_from: null, score: null, aired_to: '2003-01-01', episodes: 1, broadcast: null } as Generated, 'B'.repeat(22)),
    record({ ...base, name: '進撃の巨人 2', status: 'airing', aired_from: '2002-10-31', score: 7.5, aired_to: null, episodes: null, broadcast: null } as Generated, 'C'.repeat(22)),
  ];
  const vectors = records.map((r) => vectorOf(animeIndex, r));
  /**
   * The same three animes' snapshot as the code before schema version 4 packed it (version 1: no
   * entries section, no `entries` in the header), from vectors without `e`.
   */
  const VERSION_1 =
    'H4sIAAAAAAAAA7VVz2vUQBR+ybbd0oJFvRQPssyloFlNsrbFHOy2RaT441IFsZRlmkx2x00mYTIpXUqx4kEET/4VevHgRdirCP4fVsGbR48ykzTd3S61P+xj4SWZ+b73zffesMsrT1c1ALgzArCN2pR5yEGLj1Ye3kUGYsipGYh6DwhrihZybNtAEfcIp6yZIGdtGzEcEuRkyUCiE8s3QbaERKch4dRFjo+DhEie1dT36VbxYRMHKfFUDYE3AoKc2o5RcGLKidfweRQeMMcBpuwk1HZBbfdQJ27Ee/S6Ucr6BAueHo/U7CENSbhBeHJ62tpQWh9vRpwK8t+JOWbtkzibFTna2DiK0wBzKjqnZz5Qa/Uwu5xgQbwGFmeYhuHUaeydF3U+E43++3EG8trOuoF8Ggg5ac4aColHcUPxGigRWKRyThKCk0hW6BDM89QoPnIsKGsiAzUJy65Bi4QZPvVohAwU88hLXSKhAXUJSyL56HLiUUE8tK6kb+QSssu0vrMEAItDY2loLA+NEgDABFyC8k0AWMb+lw+Vr2/bOKSrLcqapE0rLKrc70TPKfu1++nnu1ffX3788fn9XrdbsSVYAz1PZV1xlcoXAcA2Tatq3qpapl21zGrNUoV0LU9lmeDbm7rK8OeFSvHrulzXIV8HqA9mhdd0LXv9vTCY99eVluvatScAYFrzs7f7Ys427bmqVGg9Nk1H/W6YpvnMnjWPuXPgPErQzAwA9OPnj8QD5Hoz/PS0cu44AG0QYP8LoPKVqctT4wuHVbrYJ5VItl1LevreVn3XDjVeG+i8EqNLz8WmpmpqWQfGYPwCAGAq/8J8ymjSIp6uLIO8SSMwNgEAPg6CJJbb5FcJz1ZL2mg+Tna2kNWBydJYMWcZzq5Kjv1NcF6xW+kfWrhan1QWy5OADqMwLs8POozA6D0pUZqbOcki5fG+xYWje91u9tBr84Drk+pgRcgrIL3Qdf0v2l1IUlQIAAA=';

  it("holds each airing anime's entry and no other, packed and unpacked", () => {
    const s = unpackSnapshot(animeIndex, packSnapshot(buildSnapshot(animeIndex, vectors)));
    expect(s.version).toBe(SNAPSHOT_VERSION);
    expect([...s.entries!.keys()]).toEqual([0, 2]);
    expect(byId(entryRows(animeIndex, s, prepareDeltas(s, []))!.map(scheduleEntryOf))).toEqual(scheduleOf(records));
    // A kind without entries knows them all: none.
    expect(buildSnapshot({ ...animeIndex, entry: undefined }, vectors.map(({ e: _e, ...v }) => v), false).entries).toEqual(new Map());
  });

  it("reads a snapshot of version 1 (the previous code's), with its lists as they were and its entries unknown, never as none", () => {
    const old = decodeSnapshot(animeIndex, new Uint8Array(gunzipSync(Buffer.from(VERSION_1, 'base64'))));
    expect(old.version).toBe(1);
    expect(old.entries).toBeNull();
    expect(entryRows(animeIndex, old, prepareDeltas(old, []))).toBeNull();
    // Everything else is what this code builds from the same vectors without their entries.
    const now = buildSnapshot(animeIndex, vectors.map(({ sb: _sb, ...v }) => v), false);
    expect(now.entries).toBeNull();
    expect(now.relevance).toBeNull();
    expect({ ...old, version: SNAPSHOT_VERSION }).toEqual(now);
    const q: IndexQuery = { ordering: 'score', descending: true, limit: 2, cursor: null, terms: [], equals: { status: 'airing' } };
    expect(evaluate(animeIndex, old, q)).toEqual(evaluate(animeIndex, buildSnapshot(animeIndex, vectors), q));
    // Built from vectors that may lack their entries (a compaction over an older vectors object), it says so when unpacked.
    expect(unpackSnapshot(animeIndex, packSnapshot(now)).entries).toBeNull();
    // What the migration's test publishes as version 3's snapshot (test/support/previous-store.ts) is the previous code's bytes.
    expect(Buffer.from(asVersion1(encodeSnapshot(now))).equals(gunzipSync(Buffer.from(VERSION_1, 'base64')))).toBe(true);
  });
});

/** Keys sorted by code point (DynamoDB's order of string keys), descending when asked. */
function sortedByCodePoint(keys: string[], descending: boolean): string[] {
  const cp = (s: string) => [...s].map((c) => c.codePointAt(0)!);
  const cmp = (a: string, b: string) => {
    const x = cp(a);
    const y = cp(b);
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
    return x.length - y.length;
  };
  return [...keys].sort((a, b) => (descending ? -cmp(a, b) : cmp(a, b)));
}

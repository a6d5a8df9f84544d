/**
 * The catalogue index's planner (shared/db/catalogue-index.ts) against an independent
 * evaluation of the contract's list rules (test/support/reference-list.ts): random animes
 * (titles with shared words, accents, apostrophes, kana and kanji; every filter attribute;
 * nulls), their records written through the title write path and their index items beside
 * them (titles are listed from the in-memory index since issue 19; the planner serves the
 * per-user lists, whose writes write such items), and random queries over every filter, every
 * ordering in both directions and `q`. Each query is walked to the end with `next` and back to
 * the start with `previous`, under both strategies (a driver list read whole, and a walk of the
 * ordering partition), with reads of the index's size and with reads of 2 items (so that a
 * driver list spans several reads and a walk reads on to fill its page, as at catalogue size);
 * the records must be exactly the matching ones, in exactly the order.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { animeEntity, animeIndex, ANIME_RELATIONS, type AnimeRecord } from '../../shared/db/animes.js';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { indexItems, queryIndex, sizeKeyOf, type IndexQuery, type IndexResult } from '../../shared/db/catalogue-index.js';
import { writeItems } from '../../shared/db/batch.js';
import { tableName } from '../../shared/db/client.js';
import { db } from '../../shared/db/sdk.js';
import { counterKeyOf } from '../../shared/db/records.js';
import { commitStaged } from '../../shared/db/staged.js';
import { titleWrite, type TitleDef } from '../../shared/db/titles.js';
import type { Cursor } from '../../shared/db/sort-keys.js';
import { newId } from '../../shared/ids.js';
import { queryTerms } from '../../shared/text.js';
import { referenceList } from '../support/reference-list.js';
import { animeArb, FILTERS, GENRES, placeAsARunWould, queryArb, record, where, type Query } from '../support/random-animes.js';

/** How the planner may read: its choice, or one plan forced; index reads of its own size or of 2 items. */
const STRATEGIES: { force?: 'driver' | 'list' | 'walk'; perRead?: number }[] = [
  {},
  { force: 'driver' },
  { force: 'walk' },
  { force: 'driver', perRead: 2 },
  { force: 'list', perRead: 2 },
  { force: 'walk', perRead: 2 },
];

/** Every page forwards from the start, then backwards from the end: the records of each walk. */
async function walkBothWays(def: TitleDef<AnimeRecord>, q: Query, strategy: (typeof STRATEGIES)[number]) {
  const equals = Object.fromEntries(FILTERS.flatMap((f) => (q[f] === undefined ? [] : [[f, q[f]!]])));
  const terms = q.q === undefined ? [] : (queryTerms(q.q) as { terms: string[] }).terms;
  const base: Omit<IndexQuery, 'cursor'> = { ordering: q.ordering, descending: q.descending, limit: q.limit, terms, equals, atLeast: q.min_score === undefined ? {} : { score: q.min_score } };
  const page = (cursor: Cursor | null) => queryIndex(def.index, counterKeyOf(def.entity), { ...base, cursor }, strategy);
  const forward: string[] = [];
  let cursor: Cursor | null = null;
  let last: Cursor | null = null;
  for (let n = 0; n < 500; n++) {
    const p = await page(cursor);
    forward.push(...p.entries.map((e) => e.id));
    if (p.next === null) {
      // Backward from the end: through the last record, or (an empty last page) the page's own
      // `previous`, which includes the record its cursor followed.
      last = p.entries.length > 0 ? { d: 'p', k: p.entries.at(-1)!.sk, i: true } : p.previous;
      break;
    }
    cursor = p.next;
  }
  const backward: string[] = [];
  cursor = last;
  for (let n = 0; cursor && n < 500; n++) {
    const p = await page(cursor);
    if (p.entries.length === 0) break;
    backward.unshift(...p.entries.map((e) => e.id));
    cursor = p.previous;
  }
  return { forward, backward };
}

describe('the catalogue planner against the contract', () => {
  it('gives exactly the matching records, in order, both ways, under every strategy and read size', { timeout: 600_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(animeArb, { minLength: 5, maxLength: 30 }), fc.array(queryArb, { minLength: 6, maxLength: 6 }), async (animes, queries) => {
        // A kind of its own per run: each run starts from an empty index.
        const kind = `T${newId().replace(/[^A-Za-z]/g, '').slice(0, 8).toUpperCase()}`;
        const def: TitleDef<AnimeRecord> = { entity: { ...animeEntity, kind }, index: { ...animeIndex, kind }, relations: ANIME_RELATIONS };
        const records = animes.map((g) => record(g, newId()));
        placeAsARunWould(records);
        await Promise.all(
          records.map(async (r) => {
            r.name = `${r.name} ${r.id.slice(0, 4)}`;
            const plan = titleWrite(def, null, { after: r, relations: {}, links: [] });
            await commitStaged(plan.main, plan.rest, plan.pk, plan.rev, plan.write);
            // Titles are listed from the in-memory index now; the planner's items are written here, as the per-user lists' writes write theirs.
            await writeItems([...indexItems(def.index, r).values()]);
          }),
        );
        // Each query in its own ordering and in the default one (where lists are walked in order).
        for (const q of queries.flatMap((x) => [x, { ...x, ordering: 'name', descending: false }])) {
          const expected = referenceList(records, {
            ...(q.q === undefined ? {} : { q: q.q }),
            searchFields: (r) => [r.name, r.name_jpn, r.name_rom, ...r.alternative_names],
            where: where(q),
            ordering: { value: (r) => (r as unknown as Record<string, string | number | null>)[q.ordering]!, text: q.ordering === 'name', descending: q.descending },
          }).map((r) => r.id);
          for (const strategy of STRATEGIES) {
            const got = await walkBothWays(def, q, strategy);
            expect(got.forward, JSON.stringify({ q, strategy })).toEqual(expected);
            expect(got.backward, JSON.stringify({ q, strategy, backward: true })).toEqual(expected);
          }
        }
      }),
      { numRuns: 5 },
    );
  });

  it('reads a min_score range whole when its buckets say it is small, walks the score ordering when the range is the one condition, and ends a walk there where the range ends', async () => {
    const kind = `R${newId().replace(/[^A-Za-z]/g, '').slice(0, 8).toUpperCase()}`;
    const def: TitleDef<AnimeRecord> = { entity: { ...animeEntity, kind }, index: { ...animeIndex, kind }, relations: ANIME_RELATIONS };
    const scores = [null, null, null, null, 5, 6.5, 7.99, 8, 8.01, 8.5, 9.25, 10, null, 7.5];
    const records = scores.map((score, i) => ({ ...record(fc.sample(animeArb, { numRuns: 1, seed: i })[0]!, newId()), score }));
    // The list sizes the catalogue consumer keeps (one per posting, one per scored record's bucket).
    const sizes = new Map<string, { pk: string; sk: string; n: number }>();
    for (const r of records) {
      r.name = `${r.name} ${r.id.slice(0, 4)}`;
      const plan = titleWrite(def, null, { after: r, relations: {}, links: [] });
      await commitStaged(plan.main, plan.rest, plan.pk, plan.rev, plan.write);
      // Titles are listed from the in-memory index now; the planner's items are written here, as the per-user lists' writes write theirs.
      await writeItems([...indexItems(def.index, r).values()]);
      for (const item of indexItems(def.index, r).values()) {
        const key = sizeKeyOf(def.index, item);
        if (key) sizes.set(`${key.pk} ${key.sk}`, { ...key, n: (sizes.get(`${key.pk} ${key.sk}`)?.n ?? 0) + 1 });
      }
    }
    expect(sizes.get(`${kind}#L#R#score#8 N`)?.n).toBe(3);
    expect(sizes.get(`${kind}#L#R#score#10 N`)?.n).toBe(1);
    for (const size of sizes.values()) await db().send(new PutCommand({ TableName: tableName(), Item: size }));

    const query = (least: number, ordering: string, descending: boolean, force?: 'walk', cursor: Cursor | null = null) =>
      queryIndex(def.index, counterKeyOf(def.entity), { ordering, descending, limit: 2, cursor, terms: [], equals: {}, atLeast: { score: least } }, force === undefined ? {} : { force });
    const expected = (least: number, ordering: string, descending: boolean) =>
      referenceList(records, { searchFields: () => [], where: (r) => r.score !== null && r.score >= least, ordering: { value: (r) => (r as unknown as Record<string, string | number | null>)[ordering]!, text: ordering === 'name', descending } }).map((r) => r.id);
    const walk = async (least: number, ordering: string, descending: boolean, force?: 'walk') => {
      const ids: string[] = [];
      const calls: number[] = [];
      let cursor: Cursor | null = null;
      do {
        const page = await query(least, ordering, descending, force, cursor);
        ids.push(...page.entries.map((e) => e.id));
        calls.push(page.calls);
        cursor = page.next;
      } while (cursor);
      return { ids, calls };
    };

    // Small buckets: the range of the score ordering is the driver (sizes, then the range).
    const driven = await query(8, 'name', false);
    expect(driven.strategy).toBe('driver');
    expect(driven.calls).toBe(2);
    expect((await walk(8, 'name', false)).ids).toEqual(expected(8, 'name', false));
    expect((await walk(9.9, 'aired_from', true)).ids).toEqual(expected(9.9, 'aired_from', true));
    // Forced to walk: in the score ordering the walk stops at the range's end, both directions;
    // a page of 2 holds the last two matches, so no empty page follows.
    for (const descending of [true, false]) {
      for (const least of [8, 8.02, 10, 0]) {
        const { ids, calls } = await walk(least, 'score', descending, 'walk');
        expect(ids).toEqual(expected(least, 'score', descending));
        expect(calls.length).toBe(Math.max(1, Math.ceil(ids.length / 2)));
        expect(calls.every((c) => c === 2)).toBe(true);
      }
    }
    // Not forced, the range the one condition: the score ordering is walked (a page reads limit + 1
    // entries), not the range read whole, although its buckets say it is small.
    for (const descending of [true, false]) {
      expect((await query(8, 'score', descending)).strategy).toBe('walk');
      const { ids, calls } = await walk(8, 'score', descending);
      expect(ids).toEqual(expected(8, 'score', descending));
      expect(calls.every((c) => c === 2)).toBe(true);
    }
    // Past the range: a cursor beyond its end reads nothing; one before its start reads it all.
    const past = await query(8, 'score', true, 'walk', { d: 'n', k: '0' });
    expect(past.entries).toEqual([]);
    const before = await query(8, 'score', false, 'walk', { d: 'n', k: '0' });
    expect(before.entries.map((e) => e.id)).toEqual(expected(8, 'score', false).slice(0, 2));
  });

  it('a first page makes one index read; later pages read on, up to four reads, until they are full', { timeout: 120_000 }, async () => {
    const kind = `F${newId().replace(/[^A-Za-z]/g, '').slice(0, 8).toUpperCase()}`;
    const def: TitleDef<AnimeRecord> = { entity: { ...animeEntity, kind }, index: { ...animeIndex, kind }, relations: ANIME_RELATIONS };
    // 16 animes, every second one in GENRES[0]; names in that order.
    const records = Array.from({ length: 16 }, (_, i) => ({
      ...record(fc.sample(animeArb, { numRuns: 1, seed: i })[0]!, newId()),
      name: `Title ${String(i).padStart(2, '0')}`,
      genres: i % 2 === 0 ? [{ id: GENRES[0]!, name: 'G' }] : [],
    }));
    for (const r of records) {
      const plan = titleWrite(def, null, { after: r, relations: {}, links: [] });
      await commitStaged(plan.main, plan.rest, plan.pk, plan.rev, plan.write);
      // Titles are listed from the in-memory index now; the planner's items are written here, as the per-user lists' writes write theirs.
      await writeItems([...indexItems(def.index, r).values()]);
    }
    const pages = async (force: 'walk' | 'list') => {
      const out: { ids: string[]; calls: number }[] = [];
      let cursor: Cursor | null = null;
      do {
        // Reads of 2 entries: a walk of the name ordering finds one match per read.
        const page: IndexResult = await queryIndex(def.index, counterKeyOf(def.entity), { ordering: 'name', descending: false, limit: 2, cursor, terms: [], equals: { genre: GENRES[0]! } }, { force, perRead: 2 });
        out.push({ ids: page.entries.map((e) => e.id), calls: page.calls });
        cursor = page.next;
      } while (cursor);
      return out;
    };
    const matching = records.filter((_, i) => i % 2 === 0).map((r) => r.id);
    const walked = await pages('walk');
    expect(walked.flatMap((p) => p.ids)).toEqual(matching);
    // The first page: the sizes and one read (one match); the next ones read until 3 matches are found.
    expect(walked[0]).toEqual({ ids: matching.slice(0, 1), calls: 2 });
    expect(walked.slice(1, -1).every((p) => p.ids.length === 2 && p.calls <= 1 + 4)).toBe(true);
    expect(walked.length).toBeLessThanOrEqual(Math.ceil(matching.length / 2) + 2);
    // The genre's own list in the default ordering: every entry matches, each page reads limit + 1 once.
    const listed = await pages('list');
    expect(listed.flatMap((p) => p.ids)).toEqual(matching);
    expect(listed.map((p) => p.ids.length)).toEqual([2, 2, 2, 2]);
    expect(listed.every((p) => p.calls === 2)).toBe(true);
  });
});

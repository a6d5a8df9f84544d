/**
 * Relevance and typo tolerance (API.md §8.4) on the real catalogue (issue 20): the whole
 * bangumi-data import of the installed package, mapped by the import's own code (catalogue-import.ts
 * sourceCatalogue, then bulkImport into an in-memory sink: the records `npm start`'s first start
 * stores, unique names included), indexed as the service indexes them (vectorOf, buildSnapshot)
 * and queried as the title lists query them (evaluate).
 *
 * It proves, for 50 titles drawn with a fixed seed:
 *  - query A, the first two words of the title's `name`, with `ordering=relevance` puts the title
 *    on the first page (limit 25) — for every one of them;
 *  - query B, A with one typo (a letter dropped, two neighbours swapped, or a letter doubled) in a
 *    word of at least 5 letters, with `ordering=relevance&fuzzy=true` puts it on the first page;
 *  - B without `fuzzy` finds the title less often than with it (the typo matters);
 *  - on this real data, the snapshot's evaluation of every query without `fuzzy` equals the
 *    brute force of the contract (catalogue-index.ts vectorPage).
 * It prints (and writes to /tmp/relevance-catalogue.json) the hit rates — first result and first
 * page — of A and B under relevance, relevance + fuzzy, the default ordering (`name`) and the
 * default ordering + fuzzy, for docs/benchmarks.md.
 *
 * Which titles: those whose `name` is Latin-script (every word of N(name) — a run of letters and
 * digits, text.ts — is made of Latin letters and digits only), has at least two words, and has a
 * word of at least 5 letters among its first two (the typo goes there). The typo never drops a
 * word's last letter (that leaves a prefix of the word, which matches without `fuzzy`: a
 * truncated word, not a typo) and never swaps two equal letters (no change).
 *
 * Imported titles have no community numbers (`members` 0), so inside a rank of §8.4 they are
 * ordered by id: where many titles share the query's words (29 match "detective conan" at rank
 * 2; every typo match is rank 5), which of them makes the first page is chance. The 50 titles of
 * this seed all do; other seeds draw a few that do not (seed 6: "Detective Conan: Full Score of
 * Fear" for A; seed 5: "The World Ends with You The Animation" for B, "the wordl", 36 matches).
 * The sample depends on the installed bangumi-data (its version is pinned in package.json).
 */
import { writeFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { animeEntity, animeIndex, type AnimeRecord } from '../../shared/db/animes.js';
import type { Item } from '../../shared/db/batch.js';
import { vectorOf, vectorPage, type IndexQuery, type Vector } from '../../shared/db/catalogue-index.js';
import { recordKeyOf } from '../../shared/db/records.js';
import { loadBangumiData } from '../../shared/domain/bangumi-data.js';
import { bulkImport, sourceCatalogue, type ItemSink } from '../../shared/domain/catalogue-import.js';
import { evaluate } from '../../shared/search/evaluate.js';
import { buildSnapshot, type Snapshot } from '../../shared/search/snapshot.js';
import { queryTerms, searchRuns } from '../../shared/text.js';
import { rng } from '../support/rng.js';

const SEED = 20;
const SAMPLE = 50;
const PAGE = 25;
/** The import's "now" (statuses only; names and search fields do not depend on it). */
const NOW = new Date('2026-01-15T00:00:00Z');

const LATIN_WORD = /^[\p{Script=Latin}\p{N}]+$/u;
const LETTER = /\p{L}/u;
const letters = (word: string) => [...word].filter((c) => LETTER.test(c)).length;

/** The settings measured: relevance or the anime list's default ordering (`name`), with or without `fuzzy`. */
const SETTINGS = [
  { key: 'relevance', ordering: 'relevance', fuzzy: false },
  { key: 'relevance+fuzzy', ordering: 'relevance', fuzzy: true },
  { key: 'name', ordering: animeIndex.listOrder, fuzzy: false },
  { key: 'name+fuzzy', ordering: animeIndex.listOrder, fuzzy: true },
] as const;
type SettingKey = (typeof SETTINGS)[number]['key'];
type QueryKind = 'A' | 'B';

interface Drawn {
  record: AnimeRecord;
  /** The first two words of N(name). */
  a: string;
  /** `a` with one typo. */
  b: string;
  typo: string;
}

interface Outcome {
  first: boolean;
  page: boolean;
  /** The names on the first page before the title (or the whole page when it is not on it). */
  above: string[];
  count: number;
}

/** The records the first start's import stores (its own mapping: sourceCatalogue, bulkImport), from the installed bangumi-data. */
async function importedRecords(): Promise<AnimeRecord[]> {
  const items: Item[] = [];
  const sink: ItemSink = {
    written: 0,
    put(item: Item) {
      items.push(item);
      this.written++;
      return Promise.resolve();
    },
    drain: () => Promise.resolve(),
  };
  const { titles } = sourceCatalogue(await loadBangumiData());
  await bulkImport(titles, { now: NOW, writer: sink });
  return items.flatMap((item) => {
    const rec = item.rec as AnimeRecord | undefined;
    if (!rec || typeof rec.id !== 'string') return [];
    const key = recordKeyOf(animeEntity, rec.id);
    return item.pk === key.pk && item.sk === key.sk ? [rec] : [];
  });
}

/** The words of N(name) (what `q`'s terms and the typo work on). */
const wordsOf = (name: string): string[] => searchRuns([name])[0]!;

function eligible(r: AnimeRecord): boolean {
  const words = wordsOf(r.name);
  return words.length >= 2 && words.every((w) => LATIN_WORD.test(w)) && words.slice(0, 2).some((w) => letters(w) >= 5);
}

/** One typo in `word`, at a random letter: dropped (not the last), swapped with the next (a different one), or doubled. */
function typo(word: string, random: () => number): { word: string; what: string } {
  const cps = [...word];
  const at = (n: number) => Math.floor(random() * n);
  for (;;) {
    const kind = (['drop', 'swap', 'double'] as const)[at(3)]!;
    const i = at(cps.length);
    if (!LETTER.test(cps[i]!)) continue;
    if (kind === 'drop' && i < cps.length - 1) return { word: [...cps.slice(0, i), ...cps.slice(i + 1)].join(''), what: `drop ${cps[i]!}@${i}` };
    if (kind === 'double') return { word: [...cps.slice(0, i + 1), ...cps.slice(i)].join(''), what: `double ${cps[i]!}@${i}` };
    if (kind === 'swap' && i < cps.length - 1 && LETTER.test(cps[i + 1]!) && cps[i] !== cps[i + 1]) {
      return { word: [...cps.slice(0, i), cps[i + 1]!, cps[i]!, ...cps.slice(i + 2)].join(''), what: `swap ${cps[i]!}${cps[i + 1]!}@${i}` };
    }
  }
}

/** SAMPLE eligible titles drawn without replacement (a partial Fisher–Yates shuffle over the records in id order), with their queries. */
function draw(records: readonly AnimeRecord[]): Drawn[] {
  const random = rng(SEED);
  const pool = records.filter(eligible).sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
  const out: Drawn[] = [];
  for (let k = 0; k < SAMPLE && k < pool.length; k++) {
    const j = k + Math.floor(random() * (pool.length - k));
    [pool[k], pool[j]] = [pool[j]!, pool[k]!];
    const record = pool[k]!;
    const two = wordsOf(record.name).slice(0, 2);
    const long = two.map((w, i) => ({ w, i })).filter(({ w }) => letters(w) >= 5);
    const { w, i } = long[Math.floor(random() * long.length)]!;
    const t = typo(w, random);
    const b = two.map((x, n) => (n === i ? t.word : x));
    out.push({ record, a: two.join(' '), b: b.join(' '), typo: `${w} → ${t.word} (${t.what})` });
  }
  return out;
}

function terms(q: string): string[] {
  const t = queryTerms(q);
  if ('error' in t) throw new Error(`${q}: ${t.error}`);
  return t.terms;
}

describe('relevance and fuzzy on the real catalogue (bangumi-data import, issue 20)', () => {
  let records: AnimeRecord[];
  let byId: Map<string, AnimeRecord>;
  let snapshot: Snapshot;
  let vectors: Vector[];
  /** Every query evaluated, for the comparison with the brute force. */
  const queries: IndexQuery[] = [];
  let drawn: Drawn[];
  const results = new Map<string, Outcome>();
  const result = (q: QueryKind, s: SettingKey, i: number) => results.get(`${q}/${s}/${i}`)!;
  const timings: Record<string, number> = {};

  beforeAll(async () => {
    let t = performance.now();
    records = await importedRecords();
    timings.import_ms = Math.round(performance.now() - t);
    t = performance.now();
    vectors = records.map((r) => vectorOf(animeIndex, r));
    snapshot = buildSnapshot(animeIndex, vectors);
    timings.snapshot_ms = Math.round(performance.now() - t);
    byId = new Map(records.map((r) => [r.id, r]));
    drawn = draw(records);
    t = performance.now();
    for (const [i, d] of drawn.entries()) {
      for (const [kind, q] of [
        ['A', d.a],
        ['B', d.b],
      ] as const) {
        for (const s of SETTINGS) {
          const query: IndexQuery = { ordering: s.ordering, descending: false, limit: PAGE, cursor: null, terms: terms(q), equals: {}, fuzzy: s.fuzzy };
          queries.push(query);
          const page = evaluate(animeIndex, snapshot, query);
          const at = page.entries.findIndex((e) => e.id === d.record.id);
          const above = (at === -1 ? page.entries : page.entries.slice(0, at)).map((e) => byId.get(e.id)?.name ?? e.id);
          results.set(`${kind}/${s.key}/${i}`, { first: at === 0, page: at !== -1, above, count: page.count });
        }
      }
    }
    timings.queries_ms = Math.round(performance.now() - t);
  }, 120_000);

  it('imports the whole catalogue and draws 50 titles', () => {
    expect(records.length).toBeGreaterThan(8000);
    expect(new Set(records.map((r) => r.name)).size).toBe(records.length);
    expect(drawn).toHaveLength(SAMPLE);
    expect(new Set(drawn.map((d) => d.record.id)).size).toBe(SAMPLE);
    for (const d of drawn) expect(d.b).not.toBe(d.a);
  });

  it('reports the hit rates (first result, first page) of A and B under each setting', () => {
    const rate = (q: QueryKind, s: SettingKey, what: 'first' | 'page') => drawn.filter((_, i) => result(q, s, i)[what]).length;
    const table: Record<string, Record<string, string>> = {};
    for (const q of ['A', 'B'] as const) {
      for (const s of SETTINGS) table[`${q} ${s.key}`] = { 'first result': `${rate(q, s.key, 'first')}/${SAMPLE}`, 'first page': `${rate(q, s.key, 'page')}/${SAMPLE}` };
    }
    // Relevance's queries whose title is not the first result, with what the first page shows before it.
    const misses = drawn.flatMap((d, i) =>
      (['A', 'B'] as const).flatMap((q) =>
        SETTINGS.filter((s) => s.ordering === 'relevance' && !result(q, s.key, i).first).map((s) => ({
          setting: `${q} ${s.key}`,
          title: d.record.name,
          query: q === 'A' ? d.a : d.b,
          typo: d.typo,
          count: result(q, s.key, i).count,
          on_first_page: result(q, s.key, i).page,
          above: result(q, s.key, i).above,
        })),
      ),
    );
    const report = {
      catalogue: records.length,
      seed: SEED,
      sample: drawn.map((d) => ({ name: d.record.name, a: d.a, b: d.b, typo: d.typo })),
      hits: table,
      misses,
      timings,
    };
    writeFileSync('/tmp/relevance-catalogue.json', `${JSON.stringify(report, null, 2)}\n`);
    console.log(`relevance on the real catalogue (${records.length} titles, ${SAMPLE} drawn, seed ${SEED}, page ${PAGE}); timings ${JSON.stringify(timings)}`);
    console.table(table);
    expect(Object.keys(table)).toHaveLength(8);
  });

  // Without `fuzzy` only: the brute force tries every word of every record against each term (about
  // 100 ms a fuzzy query here; the fuzzy ones, compared once, agreed too — test/unit/fuzzy.test.ts
  // and test/unit/snapshot.test.ts compare them on random data).
  it('evaluates each query without fuzzy as the brute force of the contract does (catalogue-index.ts vectorPage)', () => {
    const t = performance.now();
    for (const q of queries.filter((x) => x.fuzzy !== true)) {
      const page = evaluate(animeIndex, snapshot, q);
      const brute = vectorPage(animeIndex, vectors, q);
      expect({ q: q.terms.join(' '), ordering: q.ordering, fuzzy: q.fuzzy, ids: page.entries.map((e) => e.id), count: page.count }).toEqual({
        q: q.terms.join(' '),
        ordering: q.ordering,
        fuzzy: q.fuzzy,
        ids: brute.entries.map((e) => e.id),
        count: brute.matched,
      });
    }
    console.log(`brute force: ${Math.round(performance.now() - t)} ms`);
  });

  it('A (the first two words) with ordering=relevance puts the title on the first page', () => {
    const missed = drawn.filter((_, i) => !result('A', 'relevance', i).page).map((d) => d.a);
    expect(missed).toEqual([]);
  });

  it('B (A with one typo) with ordering=relevance and fuzzy=true puts the title on the first page', () => {
    const missed = drawn.filter((_, i) => !result('B', 'relevance+fuzzy', i).page).map((d) => `${d.b} (${d.typo})`);
    expect(missed).toEqual([]);
  });

  it('B without fuzzy finds the title less often than with it (the typo matters)', () => {
    const found = (s: SettingKey) => drawn.filter((_, i) => result('B', s, i).page).length;
    expect(found('relevance')).toBeLessThan(found('relevance+fuzzy'));
    expect(found('name')).toBeLessThan(found('name+fuzzy'));
  });
});

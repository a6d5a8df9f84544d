/**
 * Figures of the in-memory index's snapshot (shared/search; issue 19, docs/decisions.md E1–):
 * `npx tsx test/bench/snapshot.ts [--seed=1] [--today=YYYY-MM-DD] [--dir=/dev/shm/snapshot-bench] [--pages=3] [--sets=anime,manga,…]`.
 *
 * The vectors of every record of the five listed kinds at MyAnimeList scale (catalogue-data.ts
 * `mal`: the records the bulk loader builds, in memory, nothing written, with the numbers a
 * rankings run would leave in the titles (rankingsNumbers); cached in `--dir`), and
 * the animes replicated ten times with new ids (300,000: the same words and values, so the word
 * table does not grow as a real catalogue's would). For each: the snapshot's bytes raw and
 * gzipped, the time to build, encode and gzip it; in a fresh process (node --expose-gc), the
 * time to gunzip and decode it into usable structures, the memory it then holds, and the first
 * evaluation of each ordering (which builds the descending orders); then the CPU of evaluating
 * pages over the query shapes — the query matrix's `q` (catalogue-data.ts queryMatrix) and the
 * filters (each filter's most and least common value, two and three combined, `min_score`, `q`
 * plus a filter), in every ordering and both directions — first pages and later pages (the
 * cursor of the page before), limit 25, with no deltas and with 1,000.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { gunzipSync } from 'node:zlib';
import { animeIndex } from '../../shared/db/animes.js';
import { vectorOf, type IndexDef, type IndexQuery, type Vector } from '../../shared/db/catalogue-index.js';
import { characterIndex } from '../../shared/db/characters.js';
import { mangaIndex } from '../../shared/db/mangas.js';
import { newsIndex } from '../../shared/db/news.js';
import { personIndex } from '../../shared/db/persons.js';
import type { BaseRecord } from '../../shared/db/records.js';
import { RANKING_MINIMUM } from '../../shared/db/titles.js';
import { ID_LENGTH } from '../../shared/ids.js';
import { evaluate, prepareDeltas, type Delta, type DeltaSet } from '../../shared/search/evaluate.js';
import { buildSnapshot, decodeSnapshot, encodeSnapshot, packSnapshot, type Snapshot } from '../../shared/search/snapshot.js';
import { queryTerms } from '../../shared/text.js';
import { RELEVANCE } from '../../shared/search/relevance.js';
import { catalogue, queryMatrix, withTypo, type Kind } from './catalogue-data.js';
import { loadCatalogue } from './load-catalogue.js';
import { int, percentile, table } from './stats.js';

type Listed = 'anime' | 'manga' | 'character' | 'person' | 'news';
const LISTED: readonly Listed[] = ['anime', 'manga', 'character', 'person', 'news'];
const INDEXES: Record<Listed, IndexDef<BaseRecord>> = { anime: animeIndex, manga: mangaIndex, character: characterIndex, person: personIndex, news: newsIndex } as never;
const LIMIT = 25;
const DELTAS = 1_000;
const SECTIONS = ['ids', 'ordering values', 'ordering permutations', 'filter values', 'filter postings', 'range numbers', 'words', 'word postings', 'entries', 'relevance'];

const arg = (name: string, fallback: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;
const msOf = (v: number) => `${v.toFixed(v < 10 ? 2 : 0)} ms`;

/** The vectors of each listed kind, from the cache in `dir` or computed (about a minute at `mal`). */
async function vectors(dir: string, seed: number, today: string): Promise<Record<Listed, Vector[]>> {
  // `entries`: the vectors carry their entries (IndexDef.entry, the schedule's airing animes; decision O15).
  // `sb`: each searched field's runs (relevance, API.md §8.4).
  const file = join(dir, `vectors-mal-ranked-entries-sb-${seed}-${today}.json`);
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as Record<Listed, Vector[]>;
  const cat = catalogue({ scale: 'mal', seed, today });
  const out: Record<Listed, Vector[]> = { anime: [], manga: [], character: [], person: [], news: [] };
  const t0 = performance.now();
  // The plans name a table; nothing is written (write: false).
  process.env.TABLE_NAME ??= 'snapshot-bench';
  await loadCatalogue({
    cat,
    write: false,
    adjust: (kind, i, record) => (kind === 'anime' || kind === 'manga' ? rankingsNumbers(record, cat.popularityWeight(kind, i), i) : record),
    onRecord: (kind: Kind, i: number, record: BaseRecord) => {
      if ((LISTED as readonly string[]).includes(kind)) out[kind as Listed][i] = vectorOf(INDEXES[kind as Listed], record);
    },
  });
  console.log(`vectors computed in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, JSON.stringify(out));
  return out;
}

/**
 * The numbers a rankings run would have written into a title (its index orders by them): members
 * from the generator's popularity weight (Zipf: ~3M for the most popular), favorites a fiftieth
 * of them, a score with two decimals for five titles in six (between 4 and 9.5) from enough
 * scorers to be ranked.
 */
function rankingsNumbers(r: BaseRecord, weight: number, i: number): BaseRecord {
  const members = Math.max(1, Math.round(3_000_000 * weight));
  const h = (i * 2654435761) >>> 0;
  const score = i % 6 === 0 ? null : Math.round((4 + (h % 5500) / 1000) * 100) / 100;
  return { ...r, members, favorites: Math.floor(members / 50), score, scored_by: score === null ? 0 : Math.max(RANKING_MINIMUM, Math.floor(members / 3)) } as BaseRecord;
}

/** The animes `times` times over, each copy with new ids (ids of shared/ids.ts's shape, from a hash). */
function replicated(vs: readonly Vector[], times: number): Vector[] {
  return Array.from({ length: times }, (_, k) => vs.map((v) => (k === 0 ? v : { ...v, id: createHash('sha256').update(`${k}/${v.id}`).digest('base64url').slice(0, ID_LENGTH) }))).flat();
}

interface Shape {
  label: string;
  equals: Record<string, string>;
  atLeast: Record<string, number>;
  terms: string[];
  /** `fuzzy=true` (API.md §8.4). */
  fuzzy?: boolean;
}

/** The query shapes of a kind: everything, the query matrix's `q`, one-letter `q`, each filter's most and least common value, combinations, `min_score`. */
function shapes(s: Snapshot, matrix: readonly { label: string; q: string }[]): Shape[] {
  const out: Shape[] = [{ label: 'everything', equals: {}, atLeast: {}, terms: [] }];
  const terms = (q: string) => (queryTerms(q) as { terms: string[] }).terms;
  for (const m of matrix) out.push({ label: `q ${m.label}`, equals: {}, atLeast: {}, terms: terms(m.q) });
  const top = matrix.find((m) => m.label === 'top')?.q;
  if (top) out.push({ label: 'q one letter', equals: {}, atLeast: {}, terms: terms(top.slice(0, 1)) });
  const bySize = (name: string) => {
    const d = s.filters.get(name)!;
    return d.values.map((v, x) => [v, d.lists.offsets[x + 1]! - d.lists.offsets[x]!] as const).sort((a, b) => b[1] - a[1]);
  };
  const most: Record<string, string> = {};
  for (const name of s.filters.keys()) {
    const sizes = bySize(name);
    if (sizes.length === 0) continue;
    most[name] = sizes[0]![0];
    out.push({ label: `${name} (most common)`, equals: { [name]: sizes[0]![0] }, atLeast: {}, terms: [] });
    out.push({ label: `${name} (rarest)`, equals: { [name]: sizes.at(-1)![0] }, atLeast: {}, terms: [] });
  }
  const names = Object.keys(most);
  if (names.length >= 2) out.push({ label: `${names[0]} + ${names[1]}`, equals: { [names[0]!]: most[names[0]!]!, [names[1]!]: most[names[1]!]! }, atLeast: {}, terms: [] });
  if (names.length >= 3) out.push({ label: `${names[0]} + ${names[1]} + ${names[2]}`, equals: Object.fromEntries(names.slice(0, 3).map((n) => [n, most[n]!])), atLeast: {}, terms: [] });
  if (s.numbers.has('score')) {
    out.push({ label: 'min_score 7.5', equals: {}, atLeast: { score: 7.5 }, terms: [] });
    if (names[0]) out.push({ label: `min_score 7.5 + ${names[0]}`, equals: { [names[0]]: most[names[0]]! }, atLeast: { score: 7.5 }, terms: [] });
  }
  const common = matrix.find((m) => m.label === 'common')?.q;
  if (common && names[0]) out.push({ label: `q common + ${names[0]}`, equals: { [names[0]]: most[names[0]]! }, atLeast: {}, terms: terms(common) });
  // `fuzzy=true` (§8.4): each `q` as it is, and with a typo in its longest word.
  for (const shape of out.filter((x) => x.terms.length > 0)) {
    out.push({ ...shape, label: `${shape.label}, fuzzy`, fuzzy: true });
    const typoed = withTypo(shape.terms);
    if (typoed) out.push({ ...shape, label: `${shape.label} with a typo (${typoed.join(' ')}), fuzzy`, terms: typoed, fuzzy: true });
  }
  return out;
}

/** Deltas as writes since a snapshot would leave them: every 7th… record changed (members moved), a tenth of them deleted. */
function deltasOf(vs: readonly Vector[], n: number): Delta[] {
  const step = Math.max(1, Math.floor(vs.length / n));
  const out: Delta[] = [];
  for (let i = 0; i < vs.length && out.length < n; i += step) {
    const v = vs[i]!;
    out.push(out.length % 10 === 0 ? { id: v.id, vector: null } : { id: v.id, vector: { ...v, o: { ...v.o, ...(typeof v.o.members === 'number' ? { members: v.o.members + 1 } : {}) } } });
  }
  return out;
}

/** CPU per page (ms) of every shape in every ordering, both directions: first pages and `pages − 1` later ones. */
function evaluation(def: IndexDef<BaseRecord>, s: Snapshot, all: Shape[], deltas: DeltaSet, pages: number) {
  const first: number[] = [];
  const later: number[] = [];
  /** The pages of `q` with relevance or `fuzzy` (§8.4), first and later. */
  const ranked: number[] = [];
  const worst: { ms: number; what: string }[] = [];
  const orderings = [...Object.keys(def.orderings).flatMap((o) => [[o, false], [o, true]] as const), ...Object.keys(def.derived ?? {}).map((o) => [o, false] as const)];
  for (const shape of all) {
    const relevance = shape.terms.length > 0 && def.relevance ? ([[RELEVANCE, false], [RELEVANCE, true]] as const) : [];
    for (const [ordering, descending] of [...orderings, ...relevance]) {
      let q: IndexQuery = { ordering, descending, limit: LIMIT, cursor: null, terms: shape.terms, equals: shape.equals, atLeast: shape.atLeast, ...(shape.fuzzy ? { fuzzy: true } : {}) };
      for (let p = 0; p < pages; p++) {
        const t0 = performance.now();
        const page = evaluate(def, s, q, deltas);
        const t = performance.now() - t0;
        (p === 0 ? first : later).push(t);
        if (ordering === RELEVANCE || shape.fuzzy) ranked.push(t);
        worst.push({ ms: t, what: `${shape.label}, ${descending ? '-' : ''}${ordering}, page ${p + 1} (count ${page.count})` });
        if (!page.next) break;
        q = { ...q, cursor: page.next };
      }
    }
  }
  worst.sort((a, b) => b.ms - a.ms);
  return { first, later, ranked, worst: worst.slice(0, 3) };
}

interface ChildResult {
  gunzip: number;
  decode: number;
  firstEvaluations: number;
  held: number;
  /** The first `fuzzy` query's CPU (it decodes the relevance words and builds the word table's views, once per snapshot: snapshot.ts, fuzzy.ts). */
  firstFuzzy: number;
  evaluations: { deltas: string; prepare: number; shapes: number; first: number[]; later: number[]; ranked: number[]; worst: { ms: number; what: string }[] }[];
}

/**
 * In a fresh process holding nothing else (as a function would): read, gunzip and decode a
 * snapshot; the memory it then holds; the first evaluation of each ordering (which builds its
 * descending order); then the pages of every shape, with no deltas and with the work file's.
 */
function child(kind: Listed, file: string, work: string, pages: number): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc');
  const def = INDEXES[kind];
  const gz = readFileSync(file);
  const { shapes: all, deltas } = JSON.parse(readFileSync(work, 'utf8')) as { shapes: Shape[]; deltas: Delta[] };
  gc();
  const m0 = process.memoryUsage();
  const t0 = performance.now();
  const raw = gunzipSync(gz);
  const t1 = performance.now();
  const s = decodeSnapshot(def, raw);
  const t2 = performance.now();
  let firstEvaluations = 0;
  for (const ordering of Object.keys(def.orderings)) {
    for (const descending of [false, true]) {
      const a = performance.now();
      evaluate(def, s, { ordering, descending, limit: LIMIT, cursor: null, terms: [], equals: {}, atLeast: {} });
      firstEvaluations += performance.now() - a;
    }
  }
  gc();
  const m1 = process.memoryUsage();
  const held = m1.heapUsed - m0.heapUsed + (m1.arrayBuffers - m0.arrayBuffers);
  const f0 = performance.now();
  if (def.relevance) evaluate(def, s, { ordering: RELEVANCE, descending: false, limit: LIMIT, cursor: null, terms: ['sakura'], equals: {}, fuzzy: true });
  const firstFuzzy = performance.now() - f0;
  evaluation(def, s, all.slice(0, 3), prepareDeltas(s, []), 2); // warm-up
  const evaluations: ChildResult['evaluations'] = [];
  for (const [label, ds] of [
    ['none', [] as Delta[]],
    [int(deltas.length), deltas],
  ] as const) {
    // Prepared once, as a function holding them would (its own time reported apart).
    const p0 = performance.now();
    const prepared = prepareDeltas(s, ds);
    const prepare = performance.now() - p0;
    evaluations.push({ deltas: label, prepare, shapes: all.length, ...evaluation(def, s, all, prepared, pages) });
  }
  const out: ChildResult = { gunzip: t1 - t0, decode: t2 - t1, firstEvaluations, held, firstFuzzy, evaluations };
  console.log(JSON.stringify(out));
}

async function main(): Promise<void> {
  const pages = Number(arg('pages', '3'));
  if (process.argv[2] === 'child') return child(process.argv[3] as Listed, process.argv[4]!, process.argv[5]!, pages);
  const seed = Number(arg('seed', '1'));
  const today = arg('today', '2026-01-01');
  const dir = arg('dir', existsSync('/dev/shm') ? '/dev/shm/snapshot-bench' : 'snapshot-bench');
  const vs = await vectors(dir, seed, today);
  const cat = catalogue({ scale: 'mal', seed, today });
  const sets: { name: string; kind: Listed; vectors: Vector[] }[] = [...LISTED.map((kind) => ({ name: kind, kind, vectors: vs[kind] })), { name: 'anime ×10', kind: 'anime' as const, vectors: replicated(vs.anime, 10) }];
  const sizeRows: string[][] = [];
  const sectionRows: string[][] = [];
  const evalRows: string[][] = [];
  const worstLines: string[] = [];
  const entryLines: string[] = [];
  const rankedRows: string[][] = [];
  const only = arg('sets', '').split(',').filter(Boolean);
  for (const set of sets.filter((x) => only.length === 0 || only.includes(x.name))) {
    const def = INDEXES[set.kind];
    const t0 = performance.now();
    const snap = buildSnapshot(def, set.vectors);
    const t1 = performance.now();
    const sections = new Map<string, number>();
    const raw = encodeSnapshot(snap, sections);
    sectionRows.push([set.name, ...SECTIONS.map((x) => mb(sections.get(x) ?? 0))]);
    // What the entries add (the same snapshot without them: as before schema version 4).
    if (def.entry) {
      const without = packSnapshot(buildSnapshot(def, set.vectors, false)).length;
      entryLines.push(`- ${set.name}: ${int(snap.entries!.size)} entries, ${mb(sections.get('entries') ?? 0)} raw; gzip ${mb(without)} without them, +${int(packSnapshot(snap).length - without)} bytes with them`);
    }
    const t2 = performance.now();
    const gz = packSnapshot(snap);
    const t3 = performance.now();
    const name = set.name.replace(/\W+/g, '');
    const file = join(dir, `snapshot-${name}.gz`);
    writeFileSync(file, gz);
    // The query shapes: the matrix of this kind's data (the replicated animes: the animes' matrix).
    const work = join(dir, `work-${name}.json`);
    writeFileSync(work, JSON.stringify({ shapes: shapes(snap, queryMatrix(cat, [set.kind])), deltas: deltasOf(set.vectors, DELTAS) }));
    const run = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', process.argv[1]!, 'child', set.kind, file, work, `--pages=${pages}`], { encoding: 'utf8', maxBuffer: 1 << 28 });
    if (run.status !== 0) throw new Error(run.stderr);
    const d = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as ChildResult;
    const per30k = (bytes: number) => mb((bytes / set.vectors.length) * 30_000);
    sizeRows.push([set.name, int(set.vectors.length), mb(raw.length), mb(gz.length), per30k(gz.length), msOf(t1 - t0), msOf(t2 - t1), msOf(t3 - t2), msOf(d.gunzip), msOf(d.decode), msOf(d.gunzip + d.decode), msOf(d.firstEvaluations), mb(d.held)]);
    for (const e of d.evaluations) {
      evalRows.push([set.name, `${e.deltas} (prepared in ${msOf(e.prepare)})`, int(e.shapes), int(e.first.length), msOf(percentile(e.first, 50)), msOf(percentile(e.first, 99)), msOf(Math.max(...e.first)), int(e.later.length), msOf(percentile(e.later, 50)), msOf(percentile(e.later, 99)), msOf(Math.max(...e.later))]);
      worstLines.push(`- ${set.name}, deltas ${e.deltas}: ${e.worst.map((w) => `${msOf(w.ms)} ${w.what}`).join('; ')}`);
      if (e.ranked.length > 0) rankedRows.push([set.name, e.deltas, int(e.ranked.length), msOf(percentile(e.ranked, 50)), msOf(percentile(e.ranked, 99)), msOf(Math.max(...e.ranked)), msOf(d.firstFuzzy)]);
    }
    console.log(`${set.name} done`);
  }
  console.log(`\nSnapshot per kind (seed ${seed}, today ${today}; ${process.version}, ${process.arch})\n`);
  console.log(table(['Set', 'Records', 'Raw', 'Gzip', 'Gzip per 30k', 'Build', 'Encode', 'Encode + gzip', 'Gunzip', 'Decode', 'Load', 'First evaluation of each ordering', 'Memory held'], sizeRows));
  console.log(`\nRaw bytes per section\n`);
  console.log(table(['Set', ...SECTIONS], sectionRows));
  console.log(`\nEvaluation CPU per page in the fresh process (limit ${LIMIT}; every shape × every ordering and direction; later pages: up to ${pages - 1} by \`next\`)\n`);
  console.log(table(['Set', 'Deltas', 'Shapes', 'First pages', 'p50', 'p99', 'max', 'Later pages', 'p50', 'p99', 'max'], evalRows));
  console.log(`\nOf them, the pages of \`q\` with ordering=relevance or fuzzy=true (API.md §8.4; every \`q\` shape as it is and with a typo, fuzzy, in every ordering and relevance both ways)\n`);
  console.log(table(['Set', 'Deltas', 'Pages', 'p50', 'p99', 'max', "First relevance query (decodes the relevance words, builds the word table's views)"], rankedRows));
  console.log(`\nSlowest pages:\n${worstLines.join('\n')}`);
  if (entryLines.length > 0) console.log(`\nEntries (the schedule's airing animes):\n${entryLines.join('\n')}`);
}

await main();

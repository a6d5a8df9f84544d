/**
 * The `catalogue` section: a MyAnimeList-sized catalogue (catalogue-data.ts, `--scale`), loaded
 * by the bulk loader (load-catalogue.ts) into a table of its own in the kept data dir
 * (`DATA_DIR`; loading is skipped when a manifest says the same catalogue is there), then the
 * query matrix of the list operations through the local API Gateway: `q` (the generator's
 * queryMatrix plus a one-letter prefix), each filter alone, two and three filters combined
 * (with a rare intersection of two large sets), `q` plus filters, each in several orderings and
 * both directions. For each: the matches m (the pages collected must equal an independent
 * in-memory evaluation, test/support/reference-list.ts), the requests needed to collect them
 * (target ≤ ceil(m / limit) + 2), the DynamoDB calls of the first page (≤ 3), the items read per
 * match, the bytes read per DynamoDB call (≤ 1 MB, from the consumed capacity) and per request,
 * the size of the index items against what the planner assumes, scans (none) and the
 * first page's latency as a multiple of a detail GET's.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DeleteTableCommand, DescribeTableCommand, ResourceNotFoundException } from '@aws-sdk/client-dynamodb';
import { ensureTable } from '../../infra/local/engines.js';
import { animeIndex } from '../../shared/db/animes.js';
import { vectorOf, type IndexDef } from '../../shared/db/catalogue-index.js';
import { characterIndex } from '../../shared/db/characters.js';
import { mangaIndex } from '../../shared/db/mangas.js';
import { newsIndex } from '../../shared/db/news.js';
import { personIndex } from '../../shared/db/persons.js';
import type { BaseRecord } from '../../shared/db/records.js';
import { referenceList } from '../support/reference-list.js';
import { catalogue, queryMatrix, SEGMENTS, type Catalogue, type Kind } from './catalogue-data.js';
import { LOADABLE_KINDS, loadCatalogue, type LoadReport } from './load-catalogue.js';
import { onOwnTable, relationProbe, type LagFigures } from './lag.js';
import { adminClient, type BenchEnv } from './local.js';
import type { BenchOptions } from './options.js';
import type { BudgetCheck, SectionBody } from './report.js';
import type { SdkCall } from './sdk-calls.js';
import { int, median, ratio, table, timed } from './stats.js';

/** Page size of every list request of the matrix (the contract's maximum). */
const LIMIT = 100;
/** Above this many matches, only the first ordering of a kind is collected whole (the others: the first pages). */
const FULL_MAX = 10_000;
const PARTIAL_PAGES = 5;
const MB = 1024 * 1024;
/**
 * The most one Query call can read (decision 107): DynamoDB ends a page after the item that
 * reaches 1 MB, so its consumed capacity can be 1 MB plus that item, rounded up to 4 KB units.
 */
const callCap = (largestItem: number) => MB + Math.ceil(largestItem / 4096) * 4096;

type Rec = BaseRecord & Record<string, unknown>;
interface Row {
  rec: Rec;
  texts: string[];
}
type Listed = 'anime' | 'manga' | 'character' | 'person' | 'news';
const LISTED: readonly Listed[] = ['anime', 'manga', 'character', 'person', 'news'];

/** The orderings run for every query of a kind (ascending and descending where nulls or ties matter). */
const ORDERINGS: Record<Listed, string[]> = {
  anime: ['name', '-name', 'aired_from', '-aired_from', '-members'],
  manga: ['name', '-name', 'published_from', '-published_from', '-members'],
  character: ['name', '-name', '-favorites'],
  person: ['name', '-name', 'birthday', '-birthday'],
  news: ['-created_at', 'created_at', 'name', '-name'],
};

/** The default ordering of each kind (its index's `listOrder`), where lists are walked in order. */
const DEFAULT_ORDERING = (kind: Listed) => INDEXES[kind].listOrder;
const INDEXES: Record<Listed, IndexDef<BaseRecord>> = { anime: animeIndex, manga: mangaIndex, character: characterIndex, person: personIndex, news: newsIndex } as never;

/** A delta item at most this size is one read unit strongly consistent: a list page reading the few deltas since its last request stays within 2 (decision O2). */
const DELTA_BYTES = 4_096;

/** Each kind's delta item sizes (a record's vector, as JSON: at least what DynamoDB counts). */
function vectorChecks(vectors: Record<string, number[]>): BudgetCheck[] {
  return LISTED.filter((k) => vectors[k]?.length).map((kind) => {
    const sorted = [...vectors[kind]!].sort((a, b) => a - b);
    const mean = Math.round(sorted.reduce((n, x) => n + x, 0) / sorted.length);
    const p99 = percentile(sorted, 99);
    return {
      name: `Index delta size, ${kind} (mean / p99 / max)`,
      measured: `${mean} / ${p99} / ${sorted.at(-1)} B`,
      limit: `p99 ≤ ${DELTA_BYTES} B`,
      ok: p99 <= DELTA_BYTES,
    };
  });
}

const refIds = (v: unknown) => (v as { id: string }[]).map((x) => x.id);
const minScore = (r: Rec, v: string) => r.score !== null && Number(r.score) >= Number(v);
/** A character's appearances (`ANIME#<id>#<role>` tokens, shared/domain/reverse-views.ts) in titles of one kind. */
const appearing = (r: Rec, kind: 'ANIME' | 'MANGA') => ((r.appearances as string[] | undefined) ?? []).map((t) => t.split('#')).filter(([k]) => k === kind);
/** Each filter parameter as the contract defines it, on the stored record. */
const FILTERS: Record<Listed, Record<string, (r: Rec, value: string, all: Record<string, string>) => boolean>> = {
  anime: {
    media_type: (r, v) => r.media_type === v,
    status: (r, v) => r.status === v,
    season: (r, v) => r.season === v,
    year: (r, v) => r.year !== null && String(r.year) === v,
    rating: (r, v) => r.rating === v,
    genre: (r, v) => refIds(r.genres).includes(v),
    theme: (r, v) => refIds(r.themes).includes(v),
    studio: (r, v) => refIds(r.studios).includes(v),
    min_score: minScore,
  },
  manga: {
    media_type: (r, v) => r.media_type === v,
    status: (r, v) => r.status === v,
    genre: (r, v) => refIds(r.genres).includes(v),
    theme: (r, v) => refIds(r.themes).includes(v),
    demographic: (r, v) => refIds(r.demographics).includes(v),
    magazine: (r, v) => refIds(r.serializations).includes(v),
    author: (r, v) => refIds(r.authors).includes(v),
    min_score: minScore,
  },
  // §4.2: with `anime` or `manga`, `role` is the character's role in that title.
  character: {
    anime: (r, v, all) => appearing(r, 'ANIME').some(([, id, role]) => id === v && (all.role === undefined || role === all.role)),
    manga: (r, v, all) => appearing(r, 'MANGA').some(([, id, role]) => id === v && (all.role === undefined || role === all.role)),
    role: (r, v, all) => all.anime !== undefined || all.manga !== undefined || [...appearing(r, 'ANIME'), ...appearing(r, 'MANGA')].some(([, , role]) => role === v),
  },
  person: {
    category: (r, v) => r.category === v,
    language: (r, v) => r.language === v,
  },
  news: {
    tag: (r, v) => r.tag === v,
    anime: (r, v) => refIds(r.animes).includes(v),
    manga: (r, v) => refIds(r.mangas).includes(v),
  },
};

interface Case {
  kind: Listed;
  label: string;
  q?: string;
  filters: Record<string, string>;
  /** The generator's count of `q` matches (queryMatrix), checked against the evaluation. */
  generated?: number;
}

interface Outcome {
  c: Case;
  ordering: string;
  m: number;
  got: number;
  correct: boolean;
  /** Collected whole (else the first PARTIAL_PAGES pages). */
  whole: boolean;
  requests: number;
  target: number;
  firstCalls: number;
  /** Records on the first page, and the most DynamoDB calls any page made. */
  firstGot: number;
  maxCalls: number;
  itemsRead: number;
  /** The most a request read (all its calls) and the most one DynamoDB call read, in bytes. */
  maxBytes: number;
  maxCallBytes: number;
  scans: number;
  firstMs: number;
}

// ---- The kept store

interface ManifestEntry {
  loader?: number;
  scale: string;
  seed: number;
  today: string;
  kinds: readonly Kind[];
  sizes: Record<string, number>;
  loadedAt: string;
  report: LoadReport;
  /** false while loading: the kinds in `loaded` are written, a later run resumes after them. */
  complete?: boolean;
  loaded?: Kind[];
}
type Manifest = Record<string, ManifestEntry>;

/** Raised when the loader writes other items (a store loaded by an older loader is loaded again). */
const LOADER_VERSION = 7;

const manifestFile = (dataDir: string) => join(dataDir, 'catalogue-manifest.json');
const readManifest = (dataDir: string): Manifest => (existsSync(manifestFile(dataDir)) ? (JSON.parse(readFileSync(manifestFile(dataDir), 'utf8')) as Manifest) : {});
const writeManifest = (dataDir: string, m: Manifest) => writeFileSync(manifestFile(dataDir), `${JSON.stringify(m, null, 2)}\n`);

export async function tableExists(env: BenchEnv, name: string): Promise<boolean> {
  const admin = adminClient(env.runtime.engines.dynamodb);
  try {
    await admin.send(new DescribeTableCommand({ TableName: name }));
    return true;
  } catch (err) {
    if (err instanceof ResourceNotFoundException) return false;
    throw err;
  } finally {
    admin.destroy();
  }
}

/**
 * A new, empty table for the catalogue (no stream: the loader writes what the consumer would),
 * at the current schema version (ensureTable puts its item: the loaders write this code's items).
 */
export async function freshTable(env: BenchEnv, name: string): Promise<void> {
  const admin = adminClient(env.runtime.engines.dynamodb);
  try {
    if (await tableExists(env, name)) await admin.send(new DeleteTableCommand({ TableName: name }));
  } finally {
    admin.destroy();
  }
  await ensureTable(env.runtime.engines.dynamodb, name, { stream: false });
}

/**
 * The catalogue in the table (loaded now, or found in the manifest and skipped) and the stored
 * records of the listed kinds, computed by the loader's own pipeline either way.
 */
async function ensureCatalogue(env: BenchEnv, opts: BenchOptions, tableName: string, log: string[]) {
  const manifest = readManifest(opts.dataDir);
  const entry = manifest[tableName];
  const today = opts.today ?? entry?.today ?? new Date().toISOString().slice(0, 10);
  const cat = catalogue({ scale: opts.scale, seed: opts.seed, today });
  const rows: Record<Listed, Row[]> = { anime: [], manga: [], character: [], person: [], news: [] };
  const vectors: Record<string, number[]> = {};
  const onRecord = (kind: Kind, i: number, record: BaseRecord) => {
    if (!(LISTED as readonly string[]).includes(kind)) return;
    rows[kind as Listed][i] = { rec: record as Rec, texts: cat.searchTexts(kind, i) };
    // The size of its delta (its vector with the delta's key and id), as JSON (≥ DynamoDB's size).
    const delta = { pk: `${INDEXES[kind as Listed].kind}#IX`, sk: `D#${'0'.repeat(12)}`, id: record.id, v: vectorOf(INDEXES[kind as Listed], record) };
    (vectors[kind] ??= []).push(Buffer.byteLength(JSON.stringify(delta)));
  };
  const same =
    entry !== undefined &&
    entry.today === today &&
    JSON.stringify(entry.kinds) === JSON.stringify(LOADABLE_KINDS) &&
    entry.loader === LOADER_VERSION &&
    JSON.stringify(entry.sizes) === JSON.stringify(cat.sizes) &&
    (await tableExists(env, tableName));
  if (same && entry.complete !== false) {
    const t = await timed(() => loadCatalogue({ cat, write: false, onRecord }));
    log.push(`Catalogue found in ${opts.dataDir} (loaded ${entry.loadedAt}): loading skipped; its records recomputed in memory in ${(t.ms / 1000).toFixed(1)} s.`);
    return { cat, rows, vectors, report: entry.report, reused: true };
  }
  // A load that stopped (e.g. the machine did) resumes after the kinds it wrote.
  const skip = same ? (entry.loaded ?? []) : [];
  if (!same) await freshTable(env, tableName);
  const progress: ManifestEntry = { loader: LOADER_VERSION, scale: opts.scale, seed: opts.seed, today, kinds: LOADABLE_KINDS, sizes: { ...cat.sizes }, loadedAt: '', report: null as never, complete: false, loaded: [...skip] };
  manifest[tableName] = progress;
  writeManifest(opts.dataDir, manifest);
  console.log(`  loading the ${opts.scale} catalogue (seed ${opts.seed}, ${today}) into ${tableName} in ${opts.dataDir}${skip.length ? ` (resumed: ${skip.join(', ')} written before)` : ''}…`);
  const onWritten = (kind: Kind) => {
    progress.loaded!.push(kind);
    writeManifest(opts.dataDir, manifest);
  };
  const report = await loadCatalogue({ cat, onRecord, skip, onWritten, onProgress: (line) => console.log(line) });
  Object.assign(progress, { loadedAt: new Date().toISOString(), report, complete: true });
  writeManifest(opts.dataDir, manifest);
  log.push(skip.length ? `Catalogue load resumed in ${opts.dataDir} now (${skip.join(', ')} written by an earlier run; the figures are this run's).` : `Catalogue loaded into ${opts.dataDir} now.`);
  return { cat, rows, vectors, report, reused: false };
}

// ---- The matrix

/** Values of a filter by how many records have them, most first. */
function frequencies(rows: readonly Row[], values: (r: Rec) => unknown[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const { rec } of rows) for (const v of new Set(values(rec).filter((x) => x !== null).map(String))) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
}

function cases(cat: Catalogue, rows: Record<Listed, Row[]>): Case[] {
  const out: Case[] = [];
  for (const kind of LISTED) {
    out.push({ kind, label: 'everything', filters: {} });
    const matrix = queryMatrix(cat, [kind]);
    for (const m of matrix) out.push({ kind, label: `q ${m.label}`, q: m.q, filters: {}, generated: m.matches });
    const top = matrix.find((m) => m.label === 'top')?.q;
    if (top) out.push({ kind, label: 'q one letter', q: top.slice(0, 1), filters: {} });
    const common = matrix.find((m) => m.label === 'common')?.q;
    const rare = matrix.find((m) => m.label === 'rare')?.q;
    const most = (values: (r: Rec) => unknown[]) => frequencies(rows[kind], values)[0]?.[0];
    const least = (values: (r: Rec) => unknown[]) => frequencies(rows[kind], values).at(-1)?.[0];
    if (kind === 'anime') {
      const one = (f: string) => (r: Rec) => [r[f]];
      const refs = (f: string) => (r: Rec) => refIds(r[f]);
      const tv = most(one('media_type'))!;
      const genre = most(refs('genres'))!;
      const year = most(one('year'))!;
      for (const [label, filters] of [
        ['media_type (most common)', { media_type: tv }],
        ['media_type (rarest)', { media_type: least(one('media_type'))! }],
        ['status', { status: most(one('status'))! }],
        ['season', { season: most(one('season'))! }],
        ['year (most common)', { year }],
        ['rating', { rating: most(one('rating'))! }],
        ['genre (most common)', { genre }],
        ['genre (rarest)', { genre: least(refs('genres'))! }],
        ['theme (most common)', { theme: most(refs('themes'))! }],
        ['studio (most common)', { studio: most(refs('studios'))! }],
        ['min_score', { min_score: '7.5' }],
        ['media_type + status', { media_type: tv, status: most(one('status'))! }],
        ['genre + theme', { genre, theme: most(refs('themes'))! }],
        ['rare intersection: common genre + one year', { genre, year: rareIntersection(rows.anime, genre) }],
        ['media_type + genre + year', { media_type: tv, genre, year }],
      ] as [string, Record<string, string>][]) {
        out.push({ kind, label, filters });
      }
      if (common) out.push({ kind, label: 'q common + media_type', q: common, filters: { media_type: tv } });
      if (rare) out.push({ kind, label: 'q rare + genre', q: rare, filters: { genre } });
    }
    if (kind === 'manga') {
      const one = (f: string) => (r: Rec) => [r[f]];
      const refs = (f: string) => (r: Rec) => refIds(r[f]);
      const type = most(one('media_type'))!;
      const genre = most(refs('genres'))!;
      for (const [label, filters] of [
        ['media_type (most common)', { media_type: type }],
        ['status', { status: most(one('status'))! }],
        ['genre (most common)', { genre }],
        ['theme (most common)', { theme: most(refs('themes'))! }],
        ['demographic (most common)', { demographic: most(refs('demographics'))! }],
        ['magazine (most common)', { magazine: most(refs('serializations'))! }],
        ['author (most prolific)', { author: most(refs('authors'))! }],
        ['min_score', { min_score: '7.5' }],
        ['media_type + genre + demographic', { media_type: type, genre, demographic: most(refs('demographics'))! }],
      ] as [string, Record<string, string>][]) {
        out.push({ kind, label, filters });
      }
      if (common) out.push({ kind, label: 'q common + genre', q: common, filters: { genre } });
    }
    if (kind === 'character') {
      const titles = (k: 'ANIME' | 'MANGA') => (r: Rec) => appearing(r, k).map(([, id]) => id);
      const anime = most(titles('ANIME'))!;
      out.push({ kind, label: 'anime (largest cast)', filters: { anime } });
      out.push({ kind, label: 'manga (largest cast)', filters: { manga: most(titles('MANGA'))! } });
      out.push({ kind, label: 'role', filters: { role: 'main' } });
      out.push({ kind, label: 'anime + role', filters: { anime, role: 'main' } });
      if (common) out.push({ kind, label: 'q common + role', q: common, filters: { role: 'main' } });
    }
    if (kind === 'news') {
      const refs = (f: string) => (r: Rec) => refIds(r[f]);
      const tag = most((r) => [r.tag])!;
      const anime = most(refs('animes'))!;
      out.push({ kind, label: 'tag (most common)', filters: { tag } });
      out.push({ kind, label: 'tag (rarest)', filters: { tag: least((r) => [r.tag])! } });
      out.push({ kind, label: 'anime (most covered)', filters: { anime } });
      out.push({ kind, label: 'manga (most covered)', filters: { manga: most(refs('mangas'))! } });
      out.push({ kind, label: 'tag + anime', filters: { tag, anime } });
      if (common) out.push({ kind, label: 'q common + tag', q: common, filters: { tag } });
    }
    if (kind === 'person') {
      const one = (f: string) => (r: Rec) => [r[f]];
      const category = most(one('category'))!;
      const language = most(one('language'))!;
      out.push({ kind, label: 'category', filters: { category } });
      out.push({ kind, label: 'language (most common)', filters: { language } });
      out.push({ kind, label: 'language (rarest)', filters: { language: least(one('language'))! } });
      out.push({ kind, label: 'category + rarest language', filters: { category, language: least(one('language'))! } });
      if (common) out.push({ kind, label: 'q common + language', q: common, filters: { language } });
    }
  }
  return out;
}

/** Among the years of at least 1% of the animes, the one the genre shares the fewest (but some) records with. */
function rareIntersection(rows: readonly Row[], genre: string): string {
  const years = frequencies(rows, (r) => [r.year]).filter(([, n]) => n >= rows.length / 100);
  const shared = (year: string) => rows.filter(({ rec }) => String(rec.year) === year && refIds(rec.genres).includes(genre)).length;
  return years.map(([y]) => [y, shared(y)] as const).filter(([, n]) => n > 0).sort((a, b) => a[1] - b[1])[0]?.[0] ?? years[0]![0];
}

function expected(c: Case, rows: readonly Row[], ordering: string): string[] {
  const key = ordering.replace(/^-/, '');
  const where = Object.entries(c.filters).map(([f, v]) => (r: Rec) => FILTERS[c.kind][f]!(r, v, c.filters));
  return referenceList(
    rows.map((r) => ({ id: r.rec.id, row: r })),
    {
      ...(c.q !== undefined ? { q: c.q } : {}),
      searchFields: (x) => x.row.texts,
      where: (x) => where.every((w) => w(x.row.rec)),
      ordering: { value: (x) => x.row.rec[key] as string | number | null, text: key === 'name', descending: ordering.startsWith('-') },
    },
  ).map((x) => x.id);
}

function pathOf(c: Case, ordering: string): string {
  const params = new URLSearchParams({ ...(c.q !== undefined ? { q: c.q } : {}), ...c.filters, ordering, limit: String(LIMIT) });
  return `/api/${SEGMENTS[c.kind]}/?${params.toString()}`;
}

const dynamo = (calls: SdkCall[]) => calls.filter((x) => x.service === 'dynamodb');
const bytesOf = (calls: SdkCall[]) => dynamo(calls).reduce((n, x) => n + (x.capacity ?? 0), 0) * 4096;
const largestCall = (calls: SdkCall[]) => Math.max(0, ...dynamo(calls).map((x) => (x.capacity ?? 0) * 4096));

async function run(env: BenchEnv, c: Case, ordering: string, want: string[], whole: boolean): Promise<Outcome> {
  const got: string[] = [];
  let target: string | null = pathOf(c, ordering);
  let requests = 0;
  let firstCalls = 0;
  let firstGot = 0;
  let maxCalls = 0;
  let itemsRead = 0;
  let maxBytes = 0;
  let maxCallBytes = 0;
  let scans = 0;
  let firstMs = 0;
  while (target !== null && (whole || requests < PARTIAL_PAGES)) {
    env.sdk.take();
    const { ms, value: res } = await timed(() => env.http.request('GET', target!));
    const calls = dynamo(env.sdk.take());
    if (res.status !== 200) throw new Error(`GET ${target}: ${res.status} ${res.text.slice(0, 300)}`);
    const page = JSON.parse(res.text) as { next: string | null; results: { id: string }[] };
    if (requests === 0) {
      firstCalls = calls.length;
      firstGot = page.results.length;
      firstMs = ms;
    }
    maxCalls = Math.max(maxCalls, calls.length);
    requests++;
    got.push(...page.results.map((r) => r.id));
    itemsRead += calls.reduce((n, x) => n + (x.itemsRead ?? 0), 0);
    maxBytes = Math.max(maxBytes, bytesOf(calls));
    maxCallBytes = Math.max(maxCallBytes, largestCall(calls));
    scans += calls.filter((x) => x.operation === 'Scan').length;
    target = page.next;
  }
  // The first page again (warm), for its latency: the median of three.
  const again: number[] = [firstMs];
  for (let i = 0; i < 2; i++) again.push((await timed(() => env.http.request('GET', pathOf(c, ordering)))).ms);
  env.sdk.take();
  const correct = whole ? JSON.stringify(got) === JSON.stringify(want) : JSON.stringify(got) === JSON.stringify(want.slice(0, got.length)) && got.length > 0;
  return {
    c,
    ordering,
    m: want.length,
    got: got.length,
    correct,
    whole,
    requests,
    target: Math.ceil(want.length / LIMIT) + 2,
    firstCalls,
    firstGot,
    maxCalls,
    itemsRead,
    maxBytes,
    maxCallBytes,
    scans,
    firstMs: median(again),
  };
}

/** Median latency of a detail GET of the kind (the unit of the first pages' latencies). */
async function detailLatency(env: BenchEnv, kind: Listed, rows: readonly Row[]): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 31; i++) {
    const row = rows[(i * 7919) % rows.length]!;
    const t = await timed(() => env.http.expect(200, 'GET', `/api/${SEGMENTS[kind]}/${row.rec.id}/`));
    if (i > 0) times.push(t.ms);
  }
  return median(times);
}

/** The p-th percentile (0–100) of sorted numbers. */
const percentile = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

/**
 * Relation lag (API.md §1.8: reverse views and embedded names may lag a write by seconds, never
 * more than 60): the time from a write's response to the first read that shows its effect on the
 * other side, polled every 10 ms through the local gateway, with the stream poller and the
 * consumers running as `npm start` runs them, on a table of its own (streams from its first
 * record). Three kinds of write: an anime created with a cast (→ the character's `animes`), a
 * character renamed (→ its voice actor's `voices/` entry) and a genre renamed (→ the anime's
 * embedded `genres`).
 */
export async function relationLag(env: BenchEnv, _cat: Catalogue, samples = 40): Promise<Record<string, LagFigures>> {
  return onOwnTable('lag', async (_poller, headers) => {
    const probe = relationProbe(env, headers);
    for (let i = 0; i < samples; i++) await probe.probe(i);
    return probe.figures();
  });
}

export async function catalogueSection(env: BenchEnv, opts: BenchOptions): Promise<SectionBody> {
  const tableName = `bench-catalogue-${opts.scale}-s${opts.seed}`;
  const previousTable = process.env.TABLE_NAME;
  const log: string[] = [];
  process.env.TABLE_NAME = tableName;
  try {
    const { cat, rows, vectors, report, reused } = await ensureCatalogue(env, opts, tableName, log);
    env.sdk.measureCapacity = true;
    const all = cases(cat, rows);
    const outcomes: Outcome[] = [];
    const detail: Record<string, number> = {};
    for (const kind of LISTED) {
      detail[kind] = await detailLatency(env, kind, rows[kind]);
      // Warm the list function.
      await env.http.expect(200, 'GET', `/api/${SEGMENTS[kind]}/?limit=1`);
      for (const c of all.filter((x) => x.kind === kind)) {
        for (const [i, ordering] of ORDERINGS[kind].entries()) {
          const want = expected(c, rows[kind], ordering);
          const whole = i === 0 || want.length <= FULL_MAX;
          outcomes.push(await run(env, c, ordering, want, whole));
        }
        const last = outcomes.at(-1)!;
        console.log(`  ${kind} ${c.label}: m=${last.m}, ${last.requests} requests (${last.ordering}), first page ${last.firstCalls} calls${outcomes.slice(-ORDERINGS[kind].length).every((o) => o.correct) ? '' : ' WRONG RESULTS'}`);
      }
    }
    const lag = await relationLag(env, cat);
    return render(opts, report, reused, log, all, outcomes, detail, lag, vectors);
  } finally {
    env.sdk.measureCapacity = false;
    process.env.TABLE_NAME = previousTable;
  }
}

function render(
  opts: BenchOptions,
  report: LoadReport,
  reused: boolean,
  log: string[],
  all: Case[],
  outcomes: Outcome[],
  detail: Record<string, number>,
  lag: Record<string, { p50: number; p99: number; max: number; samples: number }>,
  vectors: Record<string, number[]>,
): SectionBody {
  const yes = (ok: boolean) => (ok ? 'ok' : '**fail**');
  // Per kind, once: the largest index item (a spread of 100,000+ sizes would overflow the call stack).
  const caps = new Map(Object.entries(vectors).map(([kind, sizes]) => [kind, callCap(sizes.reduce((m, x) => Math.max(m, x), 0))]));
  const cap = (o: Outcome) => caps.get(o.c.kind) ?? callCap(0);
  const generatedWrong = all.filter((c) => c.generated !== undefined && outcomes.some((o) => o.c === c && o.m !== c.generated));
  const rows = outcomes.map((o) => {
    const reqOk = !o.whole || o.requests <= o.target;
    return [
      o.c.kind,
      o.c.label,
      [o.c.q !== undefined ? `q=${o.c.q}` : '', ...Object.entries(o.c.filters).map(([k, v]) => `${k}=${v.length > 12 ? `${v.slice(0, 8)}…` : v}`)].filter(Boolean).join(' '),
      o.ordering,
      int(o.m),
      o.whole ? (o.correct ? 'ok' : `**fail** (${o.got})`) : o.correct ? `first ${o.got} ok` : '**fail**',
      o.whole ? `${o.requests} / ${o.target} ${yes(reqOk)}` : `${o.requests} (first pages)`,
      `${o.firstCalls} ${yes(o.firstCalls <= 3)}`,
      `${o.firstGot} / ${Math.min(LIMIT, o.m)}`,
      String(o.maxCalls),
      o.got > 0 ? (o.itemsRead / o.got).toFixed(1) : `${o.itemsRead} (none returned)`,
      `${(o.maxCallBytes / 1024).toFixed(0)} KB ${yes(o.maxCallBytes <= cap(o))} (request ${(o.maxBytes / 1024).toFixed(0)} KB)`,
      `${o.firstMs.toFixed(1)} ms (${ratio(o.firstMs / detail[o.c.kind]!)})`,
    ];
  });
  const wrong = outcomes.filter((o) => !o.correct);
  const overRequests = outcomes.filter((o) => o.whole && o.requests > o.target);
  const overCalls = outcomes.filter((o) => o.firstCalls > 3);
  /** First pages with fewer records than the query has up to the limit (allowed, §1.5; a last resort). */
  const shortFirst = outcomes.filter((o) => o.firstGot < Math.min(LIMIT, o.m));
  const inDefault = (o: Outcome) => o.ordering === DEFAULT_ORDERING(o.c.kind);
  const overBytes = outcomes.filter((o) => o.maxCallBytes > cap(o));
  const scans = outcomes.reduce((n, o) => n + o.scans, 0);
  const name = (o: Outcome) => `${o.c.kind} ${o.c.label} (${o.ordering})`;
  const list = (os: Outcome[]) => (os.length === 0 ? '' : `: ${os.slice(0, 6).map(name).join('; ')}${os.length > 6 ? '; …' : ''}`);
  const ratios = outcomes.map((o) => o.firstMs / detail[o.c.kind]!);
  const budgets: BudgetCheck[] = [
    { name: `Catalogue matrix: results equal the in-memory evaluation (${outcomes.length} query × ordering runs)`, measured: `${outcomes.length - wrong.length} equal${list(wrong)}`, limit: 'all', ok: wrong.length === 0 },
    { name: 'Catalogue matrix: requests to collect all m matches', measured: `${overRequests.length} over${list(overRequests)}`, limit: `≤ ceil(m / ${LIMIT}) + 2`, ok: overRequests.length === 0 },
    { name: 'Catalogue matrix: DynamoDB calls of the first page', measured: `max ${Math.max(...outcomes.map((o) => o.firstCalls))}${list(overCalls)}`, limit: '≤ 3', ok: overCalls.length === 0 },
    { name: 'Catalogue matrix: DynamoDB calls of any later page', measured: `max ${Math.max(...outcomes.map((o) => o.maxCalls))}`, limit: '— (the index deltas\' Query with the named keys, then the records: decision O2)', ok: null },
    {
      name: 'Catalogue matrix: short first pages (fewer than min(limit, m) records)',
      measured: `${shortFirst.length} of ${outcomes.length}; in the default ordering ${shortFirst.filter(inDefault).length} of ${outcomes.filter(inDefault).length}${list(shortFirst.filter(inDefault))}`,
      limit: '— (§1.5 allows them)',
      ok: null,
    },
    {
      name: 'Catalogue matrix: bytes read per DynamoDB call (consumed capacity × 4 KB)',
      measured: `max ${(Math.max(...outcomes.map((o) => o.maxCallBytes)) / 1024).toFixed(0)} KB${list(overBytes)}`,
      limit: "≤ 1 MB, as DynamoDB counts a Query page: + the item that crosses it, in 4 KB units (decision 107)",
      ok: overBytes.length === 0,
    },
    { name: 'Catalogue matrix: bytes read per request, all calls (the index read + the page of records)', measured: `max ${(Math.max(...outcomes.map((o) => o.maxBytes)) / 1024).toFixed(0)} KB`, limit: '— (decision 101)', ok: null },
    ...vectorChecks(vectors),
    { name: 'Catalogue matrix: Scan calls', measured: String(scans), limit: '0', ok: scans === 0 },
    { name: 'Catalogue matrix: first page latency / detail GET (median, max)', measured: `${ratio(median(ratios))}, ${ratio(Math.max(...ratios))}`, limit: '—', ok: null },
    { name: 'Catalogue load (items/s)', measured: `${int(report.itemsPerSecond)} items/s, ${int(report.items)} items in ${report.seconds.toFixed(0)} s${reused ? ' (kept store: loaded before)' : ''}`, limit: '—', ok: null },
  ];
  const loadTable = table(
    ['Kind', 'Records', 'Items', 'Seconds', 'Items/s'],
    [
      ...report.kinds.map((k) => [k.kind, int(k.records), int(k.items), k.seconds.toFixed(1), int(k.items / Math.max(k.seconds, 1e-3))]),
      ['aggregates (counters, taxonomy records at their counts, list sizes)', '', int(report.aggregates.items), report.aggregates.seconds.toFixed(1), int(report.aggregates.items / Math.max(report.aggregates.seconds, 1e-3))],
      ['**total**', '', int(report.items), report.seconds.toFixed(1), int(report.itemsPerSecond)],
    ],
  );
  const body = [
    `Catalogue \`--scale ${opts.scale}\`, seed ${opts.seed}; data dir \`${opts.dataDir}\`. ${log.join(' ')}`,
    '',
    '### Load',
    '',
    loadTable,
    '',
    '(Taxonomy kinds show no items of their own: their records are written with the aggregates, at their final counts.)',
    '',
    '### Query matrix',
    '',
    `Detail GET latency (median of 30): ${Object.entries(detail).map(([k, v]) => `${k} ${v.toFixed(1)} ms`).join(', ')}.`,
    '',
    ...(generatedWrong.length ? [`**The generator's count differs from the evaluation for:** ${generatedWrong.map((c) => `${c.kind} ${c.label}`).join(', ')}.`, ''] : []),
    table(['Kind', 'Query', 'Parameters', 'Ordering', 'm', 'Results', `Requests / target`, 'First page calls (≤ 3)', 'First page records', 'Most calls of a page', 'Items read / match', 'Max read / call (≤ 1 MB)', 'First page (× detail GET)'], rows),
    '',
    '### Relation lag (write → visible on the other side; API.md §1.8 allows 60 s)',
    '',
    table(['Write → view', 'Samples', 'p50 (ms)', 'p99 (ms)', 'max (ms)'], Object.entries(lag).map(([k, v]) => [k, String(v.samples), v.p50.toFixed(0), v.p99.toFixed(0), v.max.toFixed(0)])),
  ].join('\n');
  return {
    method: [
      `The catalogue of catalogue-data.ts (\`--scale ${opts.scale}\`, seed ${opts.seed}) is written by the bulk loader (test/bench/load-catalogue.ts: the API's own item builders, BatchWriteItem, 8 calls in flight) into its own table of the kept DynamoDB Local store (DATA_DIR); a later run with the same scale, seed and date skips the load (catalogue-manifest.json).`,
      `Every query is requested anonymously with limit=${LIMIT} through the local gateway in each ordering of its kind (${LISTED.map((k) => `${k}: ${ORDERINGS[k].join(', ')}`).join('; ')}), following \`next\` until it is null; with more than ${int(FULL_MAX)} matches only the first ordering is collected whole, the others for ${PARTIAL_PAGES} pages.`,
      'The ids collected are compared, in order, with an independent in-memory evaluation of the contract\'s rules (test/support/reference-list.ts) over the records the loader stored; `q` counts are also checked against the generator\'s.',
      'DynamoDB calls, items read (a Query\'s scanned items, a batch\'s responses) and consumed capacity (ReturnConsumedCapacity added by the recorder; 1 unit = 4 KB strongly consistent) are recorded per request by the SDK middleware of sdk-calls.ts. First page latency: median of three requests, divided by the median detail GET of the kind.',
    ],
    body,
    budgets,
    summary: [
      `catalogue: ${outcomes.length} runs; ${wrong.length} wrong, ${overRequests.length} over the request target, ${overCalls.length} over 3 calls, ${overBytes.length} over a Query page, ${scans} scans, ${shortFirst.length} short first pages; load ${int(report.itemsPerSecond)} items/s${reused ? ' (reused)' : ''}`,
    ],
  };
}

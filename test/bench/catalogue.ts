/**
 * The `catalogue` section: a MyAnimeList-sized catalogue (catalogue-data.ts, `--scale`), loaded
 * by the bulk loader (load-catalogue.ts) into a table of its own in the kept data dir
 * (`DATA_DIR`; loading is skipped when a manifest says the same catalogue is there), then the
 * query matrix of the list operations through the local API Gateway: `q` (the generator's
 * queryMatrix plus a one-letter prefix), each filter alone, two and three filters combined
 * (with a rare intersection of two large sets), `q` plus filters, each in several orderings and
 * both directions. Lists are evaluated over each kind's in-memory index (issue 19, decisions
 * E1–E6, O1–O12); the section checks the issue's targets on every run, first and later pages:
 * - the pages collected equal an independent in-memory evaluation (test/support/reference-list.ts);
 * - requests to collect all m matches at limit 100: ceil(m / 100), every page full but the last;
 * - rounds of DynamoDB calls per page ≤ 2 (the deltas' Query with the tombstones and named
 *   records, then the page's records), apart from a function's first request of a kind, which
 *   loads the snapshot and is reported on its own;
 * - read units per page of 25 (records included, as DynamoDB bills them: strongly consistent
 *   reads cost twice eventual ones), p99 ≤ 35, on the first three pages of 25 of every run;
 * - index data read per page beyond its records (the calls on `<KIND>#IX`) ≤ 8 KB (2 units);
 * - no Scan; each kind's delta item sizes.
 * The snapshot's own figures (size, load, memory, evaluation CPU) are test/bench/snapshot.ts's
 * (decision E5), not measured again here.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BatchGetItemCommand, DeleteTableCommand, DescribeTableCommand, GetItemCommand, ResourceNotFoundException } from '@aws-sdk/client-dynamodb';
import { DYNAMO_FILE, dynamoDataDir, ensureTable } from '../../infra/local/engines.js';
import { animeIndex } from '../../shared/db/animes.js';
import { vectorOf, vectorPage, type IndexDef, type Vector } from '../../shared/db/catalogue-index.js';
import { RELEVANCE } from '../../shared/search/relevance.js';
import { queryTerms } from '../../shared/text.js';
import { characterIndex } from '../../shared/db/characters.js';
import { tableName } from '../../shared/db/client.js';
import { mangaIndex } from '../../shared/db/mangas.js';
import { newsIndex } from '../../shared/db/news.js';
import { personIndex } from '../../shared/db/persons.js';
import { recordKeyOfKind, type BaseRecord } from '../../shared/db/records.js';
import { forgetIndexes } from '../../shared/domain/index-reader.js';
import { referenceList } from '../support/reference-list.js';
import { catalogue, queryMatrix, SEGMENTS, withTypo, type Catalogue, type Kind } from './catalogue-data.js';
import { LOADABLE_KINDS, loadCatalogue, type LoadReport } from './load-catalogue.js';
import { migrateStore } from '../../shared/domain/migrations.js';
import { voiceOrderings } from '../../shared/domain/voices.js';
import { onOwnTable, relationProbe, type LagFigures } from './lag.js';
import { adminClient, type BenchEnv } from './local.js';
import type { BenchOptions } from './options.js';
import type { BudgetCheck, SectionBody } from './report.js';
import { rounds, type SdkCall } from './sdk-calls.js';
import { int, median, percentile, ratio, table, timed } from './stats.js';

/** Page size of every list request of the matrix (the contract's maximum). */
const LIMIT = 100;
/** Above this many matches, only the first ordering of a kind is collected whole (the others: the first pages). */
const FULL_MAX = 10_000;
const PARTIAL_PAGES = 5;
/** The page size of the read-unit target (the contract's default), and how many pages of it each run reads. */
const SMALL_LIMIT = 25;
const SMALL_PAGES = 3;
/** The issue's targets (issue 19): rounds per list page, read units per page of 25 (p99), index data per page. */
const MAX_ROUNDS = 2;
const MAX_RU_25 = 35;
const MAX_INDEX_BYTES = 8 * 1024;
const RU_BYTES = 4096;

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
  /** `fuzzy=true` (API.md §8.4): `q` with a typo. */
  fuzzy?: boolean;
}

/** The orderings a case runs in: every `q` also by relevance (§8.4); a fuzzy case by relevance and the list's default. */
const orderingsOf = (c: Case): string[] => (c.fuzzy ? [RELEVANCE, ORDERINGS[c.kind][0]!] : c.q !== undefined ? [...ORDERINGS[c.kind], RELEVANCE] : ORDERINGS[c.kind]);

interface Outcome {
  c: Case;
  ordering: string;
  m: number;
  got: number;
  /** The pages of 100 (whole, or the first PARTIAL_PAGES) and the first pages of 25 equal the evaluation. */
  correct: boolean;
  /** Collected whole (else the first PARTIAL_PAGES pages). */
  whole: boolean;
  requests: number;
  /** max(1, ceil(m / 100)). */
  target: number;
  /** Pages with `next` but fewer records than the limit, at either page size (target 0). */
  shortPages: number;
  /** Each request of the walk at limit 100. */
  pages: PageCost[];
  /** The first SMALL_PAGES pages at limit 25. */
  small: SmallPage[];
  firstMs: number;
}

/** A page of 25 and its number in its walk (1: the first page). */
type SmallPage = PageCost & { page: number };
/** A function's first request of a kind (the snapshot's load); `pointerRead`: it read the pointer (it was a fresh load). */
type LoadCost = PageCost & { kind: Listed; pointerRead: boolean };
/** Read units DynamoDB Local reported for one record read both ways. */
interface Probe {
  strong: number;
  eventual: number;
  batchStrong: number;
  batchEventual: number;
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
    // A store kept by an earlier version of the code is brought to this one, as `npm start` does.
    await migrateStore();
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
    for (const m of matrix) {
      const typo = withTypo((queryTerms(m.q) as { terms: string[] }).terms);
      if (typo) out.push({ kind, label: `q ${m.label} with a typo, fuzzy`, q: typo.join(' '), filters: {}, fuzzy: true });
    }
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

/** Each kind's vectors, in the order of its rows (built on first use). */
const rowVectors = new WeakMap<readonly Row[], Vector[]>();

function expected(c: Case, rows: readonly Row[], ordering: string): string[] {
  const key = ordering.replace(/^-/, '');
  const where = Object.entries(c.filters).map(([f, v]) => (r: Rec) => FILTERS[c.kind][f]!(r, v, c.filters));
  if (key === RELEVANCE || c.fuzzy) {
    // Relevance and fuzzy: the evaluation of the current vectors (vectorPage), which the property test holds equal to §8.4's brute force.
    let vs = rowVectors.get(rows);
    if (!vs) rowVectors.set(rows, (vs = rows.map((r) => vectorOf(INDEXES[c.kind], r.rec))));
    const kept = vs.filter((_, i) => where.every((w) => w(rows[i]!.rec)));
    const terms = (queryTerms(c.q ?? '') as { terms: string[] }).terms;
    return vectorPage(INDEXES[c.kind], kept, { ordering: key, descending: ordering.startsWith('-'), limit: kept.length, cursor: null, terms, equals: {}, ...(c.fuzzy ? { fuzzy: true } : {}) }).entries.map((e) => e.id);
  }
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

function pathOf(c: Case, ordering: string, limit: number): string {
  const params = new URLSearchParams({ ...(c.q !== undefined ? { q: c.q } : {}), ...(c.fuzzy ? { fuzzy: 'true' } : {}), ...c.filters, ordering, limit: String(limit) });
  return `/api/${SEGMENTS[c.kind]}/?${params.toString()}`;
}

const dynamo = (calls: SdkCall[]) => calls.filter((x) => x.service === 'dynamodb');
const READ_OPS = new Set(['GetItem', 'BatchGetItem', 'TransactGetItems', 'Query', 'Scan']);
/** Strongly consistent: a read call whose input (or, for a batch, a table's keys) asks for it. */
const consistent = (call: SdkCall) =>
  call.input.ConsistentRead === true || Object.values((call.input.RequestItems ?? {}) as Record<string, { ConsistentRead?: boolean }>).some((t) => t.ConsistentRead === true);
/**
 * The read units DynamoDB bills for a read call: the consumed capacity DynamoDB Local reports
 * (it bills strongly consistent reads at twice eventual ones, as DynamoDB does: checked at every
 * run by `consistencyProbe`), and at least the minimum of a read (1 unit strongly consistent, 0.5
 * eventual) where it reports 0 (a Query that returns no item).
 */
const billed = (call: SdkCall) => (READ_OPS.has(call.operation) ? Math.max(call.capacity ?? 0, consistent(call) ? 1 : 0.5) : 0);
/** A call on the kind's index partition (`<KIND>#IX`: the deltas and the pointer). */
const onIndex = (call: SdkCall, kind: Listed) => {
  const pk = `${INDEXES[kind].kind}#IX`;
  const values = [...Object.values((call.input.ExpressionAttributeValues ?? {}) as Record<string, unknown>), (call.input.Key as { pk?: unknown } | undefined)?.pk];
  return values.some((v) => v === pk || (v as { S?: string } | undefined)?.S === pk);
};

/** What one list request cost DynamoDB. */
interface PageCost {
  /** Records on the page. */
  got: number;
  /** Rounds of DynamoDB calls (sdk-calls.ts `rounds`: calls made together share one). */
  rounds: number;
  calls: number;
  /** Read units as billed, all calls (records included). */
  ru: number;
  /** Read units of the calls on the kind's index partition, and the bytes they stand for (4 KB each). */
  indexRu: number;
  strong: number;
  reads: number;
  scans: number;
  ms: number;
}

function costOf(kind: Listed, calls: SdkCall[], got: number, ms: number): PageCost {
  const reads = calls.filter((c) => READ_OPS.has(c.operation));
  return {
    got,
    rounds: rounds(calls).length,
    calls: calls.length,
    ru: reads.reduce((n, c) => n + billed(c), 0),
    indexRu: reads.filter((c) => onIndex(c, kind)).reduce((n, c) => n + billed(c), 0),
    strong: reads.filter(consistent).length,
    reads: reads.length,
    scans: calls.filter((c) => c.operation === 'Scan').length,
    ms,
  };
}

/** One list request through the gateway: its page and what it cost. */
async function listRequest(env: BenchEnv, kind: Listed, target: string): Promise<{ page: { next: string | null; count: number; results: { id: string }[] }; cost: PageCost; calls: SdkCall[] }> {
  env.sdk.take();
  const { ms, value: res } = await timed(() => env.http.request('GET', target));
  const calls = dynamo(env.sdk.take());
  if (res.status !== 200) throw new Error(`GET ${target}: ${res.status} ${res.text.slice(0, 300)}`);
  const page = JSON.parse(res.text) as { next: string | null; count: number; results: { id: string }[] };
  return { page, cost: costOf(kind, calls, page.results.length, ms), calls };
}

async function run(env: BenchEnv, c: Case, ordering: string, want: string[], whole: boolean): Promise<Outcome> {
  const got: string[] = [];
  const pages: PageCost[] = [];
  let target: string | null = pathOf(c, ordering, LIMIT);
  let shortPages = 0;
  while (target !== null && (whole || pages.length < PARTIAL_PAGES)) {
    const { page, cost } = await listRequest(env, c.kind, target);
    pages.push(cost);
    got.push(...page.results.map((r) => r.id));
    // Every page but the last is full (the last: the one without `next`).
    if (page.next !== null && page.results.length < LIMIT) shortPages++;
    target = page.next;
  }
  // The first page again (warm), for its latency: the median of three.
  const again: number[] = [pages[0]!.ms];
  for (let i = 0; i < 2; i++) again.push((await timed(() => env.http.request('GET', pathOf(c, ordering, LIMIT)))).ms);
  env.sdk.take();
  // Pages of 25 (what the read-unit target is of): the first three.
  const small: SmallPage[] = [];
  const gotSmall: string[] = [];
  target = pathOf(c, ordering, SMALL_LIMIT);
  for (let n = 1; target !== null && n <= SMALL_PAGES; n++) {
    const { page, cost } = await listRequest(env, c.kind, target);
    small.push({ ...cost, page: n });
    gotSmall.push(...page.results.map((r) => r.id));
    if (page.next !== null && page.results.length < SMALL_LIMIT) shortPages++;
    target = page.next;
  }
  const same = (ids: string[]) => JSON.stringify(ids) === JSON.stringify(want.slice(0, ids.length));
  const correct = (whole ? JSON.stringify(got) === JSON.stringify(want) : same(got) && got.length > 0) && same(gotSmall) && gotSmall.length === Math.min(want.length, SMALL_LIMIT * SMALL_PAGES);
  return { c, ordering, m: want.length, got: got.length, correct, whole, requests: pages.length, target: Math.max(1, Math.ceil(want.length / LIMIT)), shortPages, pages, small, firstMs: median(again) };
}

/**
 * A function's first request of a kind: the copy of the index the functions hold is forgotten
 * (forgetIndexes: a new instance), so the request reads the pointer, loads the snapshot (one S3
 * GET, not a DynamoDB call) and reads the deltas after it, then the page's records.
 */
async function loadRequest(env: BenchEnv, kind: Listed): Promise<LoadCost> {
  forgetIndexes();
  const { cost, calls } = await listRequest(env, kind, `/api/${SEGMENTS[kind]}/?limit=${SMALL_LIMIT}`);
  const pointerRead = calls.some((c) => c.operation === 'GetItem' && onIndex(c, kind));
  return { ...cost, kind, pointerRead };
}

/**
 * What DynamoDB Local reports for strongly consistent and eventually consistent reads of one
 * record (GetItem, BatchGetItem): DynamoDB bills a strongly consistent read at twice an
 * eventual one; the read units above are taken as reported only if DynamoDB Local does too.
 */
async function consistencyProbe(env: BenchEnv, kind: Listed, id: string): Promise<Probe> {
  const { pk, sk } = recordKeyOfKind(INDEXES[kind].kind, id);
  const Key = { pk: { S: pk }, sk: { S: sk } };
  const TableName = tableName();
  const admin = adminClient(env.runtime.engines.dynamodb);
  try {
    const get = async (ConsistentRead: boolean) => capacityOf(await admin.send(new GetItemCommand({ TableName, Key, ConsistentRead, ReturnConsumedCapacity: 'TOTAL' })));
    const batch = async (ConsistentRead: boolean) => capacityOf(await admin.send(new BatchGetItemCommand({ RequestItems: { [TableName]: { Keys: [Key], ConsistentRead } }, ReturnConsumedCapacity: 'TOTAL' })));
    return { strong: await get(true), eventual: await get(false), batchStrong: await batch(true), batchEventual: await batch(false) };
  } finally {
    admin.destroy();
  }
}
const capacityOf = (out: { ConsumedCapacity?: { CapacityUnits?: number } | { CapacityUnits?: number }[] }) =>
  ([] as { CapacityUnits?: number }[]).concat(out.ConsumedCapacity ?? []).reduce((n, x) => n + (x.CapacityUnits ?? 0), 0);

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


/** `voices/`' orderings (API.md §4.9), both directions. */
const VOICE_ORDERINGS = voiceOrderings.flatMap((o) => [o, `-${o}`]);

interface VoicesCost {
  /** Which person: the most entries, the 99th and 50th percentiles of those with any. */
  who: string;
  entries: number;
  /** The count the pages gave (every page the same). */
  count: number | null;
  /** Pages of 25 read (the first three of every ordering, and with `language=japanese`). */
  pages: PageCost[];
  short: number;
  /** A function's first requests: `character_name` (the character index's snapshot loaded), then `aired_from` (the anime index's). */
  first: PageCost[];
}

/**
 * A person's `voices/` at the catalogue's size (decision O17): for the person with the most voice
 * entries and for persons at the 99th and 50th percentile, the first three pages of 25 in every
 * ordering and with a filter, through the gateway, as the matrix measures list pages; and a
 * function's first requests, which load the character index's and the anime index's snapshots.
 */
async function voicesCosts(env: BenchEnv, cat: Catalogue, rows: Record<Listed, Row[]>): Promise<VoicesCost[]> {
  const entries = new Map<number, Set<string>>();
  let a = 0;
  for (const body of cat.bodies('anime')) {
    for (const c of body.characters ?? []) for (const v of c.voice_actors) (entries.get(v.person_id.index) ?? entries.set(v.person_id.index, new Set()).get(v.person_id.index)!).add(`${a} ${c.character_id.index} ${v.language}`);
    a++;
  }
  const ranked = [...entries].map(([i, e]) => ({ i, n: e.size })).sort((x, y) => y.n - x.n);
  if (ranked.length === 0) return [];
  const at = (q: number) => ranked[Math.min(ranked.length - 1, Math.floor((1 - q) * ranked.length))]!;
  const out: VoicesCost[] = [];
  for (const [who, p] of [['most', ranked[0]!], ['p99', at(0.99)], ['p50', at(0.5)]] as const) {
    const id = rows.person[p.i]!.rec.id;
    const request = (target: string) => listRequest(env, 'person', target);
    forgetIndexes();
    const first: PageCost[] = [];
    for (const ordering of ['character_name', 'aired_from']) first.push((await request(`/api/persons/${id}/voices/?limit=${SMALL_LIMIT}&ordering=${ordering}`)).cost);
    const pages: PageCost[] = [];
    const counts = new Set<number>();
    let short = 0;
    for (const ordering of VOICE_ORDERINGS) {
      for (const filter of ['', '&language=japanese']) {
        let target: string | null = `/api/persons/${id}/voices/?limit=${SMALL_LIMIT}&ordering=${ordering}${filter}`;
        for (let n = 0; target !== null && n < SMALL_PAGES; n++) {
          const { page, cost } = await request(target);
          pages.push(cost);
          if (filter === '') counts.add(page.count);
          if (page.next !== null && page.results.length < SMALL_LIMIT) short++;
          target = page.next;
        }
      }
    }
    out.push({ who, entries: p.n, count: counts.size === 1 ? [...counts][0]! : null, pages, short, first });
  }
  return out;
}

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
    const probe = await consistencyProbe(env, 'anime', rows.anime[0]!.rec.id);
    const all = cases(cat, rows);
    const outcomes: Outcome[] = [];
    const loads: LoadCost[] = [];
    const detail: Record<string, number> = {};
    for (const kind of LISTED) {
      detail[kind] = await detailLatency(env, kind, rows[kind]);
      loads.push(await loadRequest(env, kind));
      for (const c of all.filter((x) => x.kind === kind)) {
        const orderings = orderingsOf(c);
        for (const [i, ordering] of orderings.entries()) {
          const want = expected(c, rows[kind], ordering);
          const whole = i === 0 || want.length <= FULL_MAX;
          outcomes.push(await run(env, c, ordering, want, whole));
        }
        const last = outcomes.slice(-orderings.length);
        const ru = Math.max(...last.flatMap((o) => o.small.map((p) => p.ru)));
        console.log(`  ${kind} ${c.label}: m=${last[0]!.m}, ${last[0]!.requests} requests (${last[0]!.ordering}), pages of 25 ≤ ${ru} RU${last.every((o) => o.correct) ? '' : ' WRONG RESULTS'}`);
      }
    }
    const voices = await voicesCosts(env, cat, rows);
    const lag = await relationLag(env, cat);
    const storeBytes = statSync(join(dynamoDataDir(opts.dataDir), DYNAMO_FILE)).size;
    return render(opts, report, reused, log, all, outcomes, loads, probe, detail, lag, vectors, storeBytes, voices);
  } finally {
    env.sdk.measureCapacity = false;
    process.env.TABLE_NAME = previousTable;
  }
}

const fmt = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(1));
const kbOf = (ru: number) => `${((ru * RU_BYTES) / 1024).toFixed(0)} KB`;

function render(
  opts: BenchOptions,
  report: LoadReport,
  reused: boolean,
  log: string[],
  all: Case[],
  outcomes: Outcome[],
  loads: LoadCost[],
  probe: Probe,
  detail: Record<string, number>,
  lag: Record<string, { p50: number; p99: number; max: number; samples: number }>,
  vectors: Record<string, number[]>,
  storeBytes: number,
  voices: VoicesCost[],
): SectionBody {
  const yes = (ok: boolean) => (ok ? 'ok' : '**fail**');
  const name = (o: Outcome) => `${o.c.kind} ${o.c.label}${o.c.q !== undefined ? ` (q=${o.c.q})` : ''}, ${o.ordering}`;
  const list = (os: Outcome[]) => (os.length === 0 ? '' : `: ${os.slice(0, 6).map(name).join('; ')}${os.length > 6 ? '; …' : ''}`);
  const generatedWrong = all.filter((c) => c.generated !== undefined && outcomes.some((o) => o.c === c && o.m !== c.generated));
  // Every warm page (both sizes); the snapshot loads are `loads`.
  const pagesOf = (os: Outcome[]) => os.flatMap((o) => [...o.pages, ...o.small]);
  const smallOf = (os: Outcome[]) => os.flatMap((o) => o.small);
  const wrong = outcomes.filter((o) => !o.correct);
  const overRequests = outcomes.filter((o) => o.whole && o.requests !== o.target);
  const short = outcomes.filter((o) => o.shortPages > 0);
  const overRounds = outcomes.filter((o) => pagesOf([o]).some((p) => p.rounds > MAX_ROUNDS));
  const overIndex = outcomes.filter((o) => pagesOf([o]).some((p) => p.indexRu * RU_BYTES > MAX_INDEX_BYTES));
  const scans = pagesOf(outcomes).reduce((n, p) => n + p.scans, 0) + loads.reduce((n, l) => n + l.scans, 0);
  const small = smallOf(outcomes).map((p) => p.ru);
  const ru99 = percentile(small, 99);
  const allPages = pagesOf(outcomes);
  const strongShare = allPages.reduce((n, p) => n + p.strong, 0) / Math.max(1, allPages.reduce((n, p) => n + p.reads, 0));
  const ratios = outcomes.map((o) => o.firstMs / detail[o.c.kind]!);
  const doubled = probe.strong === 2 * probe.eventual && probe.batchStrong === 2 * probe.batchEventual;

  const perKind = LISTED.map((kind) => {
    const os = outcomes.filter((o) => o.c.kind === kind);
    const ps = pagesOf(os);
    const ru = smallOf(os).map((p) => p.ru);
    const ru100 = os.flatMap((o) => o.pages.map((p) => p.ru));
    const load = loads.find((l) => l.kind === kind)!;
    return [
      kind,
      `${os.length - os.filter((o) => !o.correct).length} / ${os.length}`,
      `${os.filter((o) => o.whole && o.requests !== o.target).length} off (${os.filter((o) => o.whole).length} whole walks)`,
      String(os.reduce((n, o) => n + o.shortPages, 0)),
      `${Math.max(...ps.map((p) => p.rounds))} ${yes(Math.max(...ps.map((p) => p.rounds)) <= MAX_ROUNDS)}`,
      `${fmt(percentile(ru, 50))} / ${fmt(percentile(ru, 99))} / ${fmt(Math.max(...ru))} ${yes(percentile(ru, 99) <= MAX_RU_25)}`,
      `${fmt(percentile(ru100, 99))}`,
      `${kbOf(Math.max(...ps.map((p) => p.indexRu)))} ${yes(Math.max(...ps.map((p) => p.indexRu)) * RU_BYTES <= MAX_INDEX_BYTES)}`,
      String(ps.reduce((n, p) => n + p.scans, 0)),
      `${load.rounds} rounds, ${fmt(load.ru)} RU (index ${kbOf(load.indexRu)}), ${load.ms.toFixed(0)} ms${load.pointerRead ? '' : ' (**not a fresh load**)'}`,
    ];
  });
  // Relevance and fuzzy (§8.4): the runs ordered by relevance or with `fuzzy`, per kind.
  const rankedRows = LISTED.map((kind) => {
    const os = outcomes.filter((o) => o.c.kind === kind && (o.ordering === RELEVANCE || o.c.fuzzy));
    const ru = smallOf(os).map((p) => p.ru);
    const ms = os.map((o) => o.firstMs);
    const rounds = Math.max(0, ...pagesOf(os).map((p) => p.rounds));
    return [kind, `${os.filter((o) => o.correct).length} / ${os.length}`, `${os.filter((o) => o.c.fuzzy).length}`, ru.length ? `${fmt(percentile(ru, 50))} / ${fmt(percentile(ru, 99))} / ${fmt(Math.max(...ru))}` : '—', String(rounds), ms.length ? `${percentile(ms, 50).toFixed(0)} / ${percentile(ms, 99).toFixed(0)} ms` : '—'];
  });
  const worst = outcomes
    .flatMap((o) => o.small.map((p) => ({ o, p })))
    .sort((x, y) => y.p.ru - x.p.ru)
    .slice(0, 8)
    .map(({ o, p }) => [name(o), String(p.page), `${p.got}`, fmt(p.ru), kbOf(p.indexRu), String(p.rounds)]);

  const budgets: BudgetCheck[] = [
    { name: `Catalogue matrix: results equal the in-memory evaluation (${outcomes.length} query × ordering runs, pages of 100 and of 25)`, measured: `${outcomes.length - wrong.length} equal${list(wrong)}`, limit: 'all', ok: wrong.length === 0 },
    { name: 'Catalogue matrix: requests to collect all m matches (whole walks, limit 100)', measured: `${overRequests.length} off${list(overRequests)}`, limit: `= max(1, ceil(m / ${LIMIT}))`, ok: overRequests.length === 0 },
    { name: 'Catalogue matrix: short pages that are not the last (limits 100 and 25)', measured: `${short.reduce((n, o) => n + o.shortPages, 0)}${list(short)}`, limit: '0', ok: short.length === 0 },
    { name: 'Catalogue matrix: rounds of DynamoDB calls per list page (a function\'s first request of a kind apart)', measured: `max ${Math.max(...allPages.map((p) => p.rounds))} over ${int(allPages.length)} pages${list(overRounds)}`, limit: `≤ ${MAX_ROUNDS}`, ok: overRounds.length === 0 },
    { name: 'Catalogue matrix: read units per page of 25 (records included, as billed), p50 / p99 / max', measured: `${fmt(percentile(small, 50))} / ${fmt(ru99)} / ${fmt(Math.max(...small))} over ${int(small.length)} pages`, limit: `p99 ≤ ${MAX_RU_25}`, ok: ru99 <= MAX_RU_25 },
    { name: 'Catalogue matrix: index data read per page beyond its records (calls on `<KIND>#IX`)', measured: `max ${kbOf(Math.max(...allPages.map((p) => p.indexRu)))}${list(overIndex)}`, limit: `≤ ${MAX_INDEX_BYTES / 1024} KB (${MAX_INDEX_BYTES / RU_BYTES} read units)`, ok: overIndex.length === 0 },
    { name: 'Catalogue matrix: Scan calls', measured: String(scans), limit: '0', ok: scans === 0 },
    ...vectorChecks(vectors),
    {
      name: "A function's first request of a kind (snapshot load: pointer, S3 GET, deltas, records; limit 25)",
      measured: loads.map((l) => `${l.kind} ${l.rounds} rounds / ${fmt(l.ru)} RU / ${l.ms.toFixed(0)} ms${l.pointerRead ? '' : ' (not a fresh load)'}`).join('; '),
      limit: '— (reported apart; snapshot load times: decision E5)',
      ok: loads.every((l) => l.pointerRead) ? null : false,
    },
    {
      name: 'DynamoDB Local bills strongly consistent reads at 2× eventual (one record: GetItem, BatchGetItem)',
      measured: `GetItem ${fmt(probe.strong)} / ${fmt(probe.eventual)}, BatchGetItem ${fmt(probe.batchStrong)} / ${fmt(probe.batchEventual)} RU`,
      limit: '2× (else the read units above are not as billed)',
      ok: doubled,
    },
    ...voices.map((v) => {
      const ru = v.pages.map((p) => p.ru);
      const rounds = Math.max(...v.pages.map((p) => p.rounds));
      // An entry shows two records (its anime and its character): the lists' target is per 25 records shown.
      const perRecords = v.pages.filter((p) => p.got === SMALL_LIMIT).map((p) => (p.ru * SMALL_LIMIT) / (2 * p.got));
      const worst = perRecords.length > 0 ? Math.max(...perRecords) : 0;
      return {
        name: `A person's \`voices/\` (decision O17), ${v.who} (${int(v.entries)} entries): pages of 25 entries (50 records), read units p50 / max and per 25 records shown, rounds, short pages, count; a function's first requests`,
        measured: `${fmt(percentile(ru, 50))} / ${fmt(Math.max(...ru))} RU (${fmt(worst)} per 25 records) over ${v.pages.length} pages, ${rounds} rounds, ${v.short} short, count ${v.count === v.entries ? 'exact' : `**${v.count ?? 'varies'}**`}; first requests (character, anime index loaded) ${v.first.map((f) => `${f.rounds} rounds / ${fmt(f.ru)} RU / ${f.ms.toFixed(0)} ms`).join(', ')}`,
        limit: `≤ ${MAX_RU_25} RU per 25 records, ≤ ${MAX_ROUNDS} rounds, 0 short, exact`,
        ok: worst <= MAX_RU_25 && rounds <= MAX_ROUNDS && v.short === 0 && v.count === v.entries,
      };
    }),
    { name: 'Catalogue matrix: strongly consistent read calls', measured: `${(strongShare * 100).toFixed(0)} %`, limit: '—', ok: null },
    { name: 'Catalogue matrix: first page latency / detail GET (median, max)', measured: `${ratio(median(ratios))}, ${ratio(Math.max(...ratios))}`, limit: '—', ok: null },
    { name: 'Catalogue load (items/s)', measured: `${int(report.itemsPerSecond)} items/s, ${int(report.items)} items in ${report.seconds.toFixed(0)} s${reused ? ' (kept store: loaded before)' : ''}`, limit: '—', ok: null },
    { name: 'Catalogue store: DynamoDB Local files', measured: `${(storeBytes / 1e9).toFixed(2)} GB`, limit: '—', ok: null },
  ];
  const loadTable = table(
    ['Kind', 'Records', 'Items', 'Seconds', 'Items/s'],
    [
      ...report.kinds.map((k) => [k.kind, int(k.records), int(k.items), k.seconds.toFixed(1), int(k.items / Math.max(k.seconds, 1e-3))]),
      ['aggregates (counters, taxonomy records at their counts, index snapshots)', '', int(report.aggregates.items), report.aggregates.seconds.toFixed(1), int(report.aggregates.items / Math.max(report.aggregates.seconds, 1e-3))],
      ['**total**', '', int(report.items), report.seconds.toFixed(1), int(report.itemsPerSecond)],
    ],
  );
  const body = [
    `Catalogue \`--scale ${opts.scale}\`, seed ${opts.seed}; data dir \`${opts.dataDir}\` (DynamoDB Local files ${(storeBytes / 1e9).toFixed(2)} GB). ${log.join(' ')}`,
    '',
    '### Load',
    '',
    loadTable,
    '',
    '(Taxonomy kinds show no items of their own: their records are written with the aggregates, at their final counts.)',
    '',
    '### The issue\'s targets, per kind',
    '',
    `Detail GET latency (median of 30): ${Object.entries(detail).map(([k, v]) => `${k} ${v.toFixed(1)} ms`).join(', ')}. DynamoDB Local's read units for one anime record, strongly consistent / eventual: GetItem ${fmt(probe.strong)} / ${fmt(probe.eventual)}, BatchGetItem ${fmt(probe.batchStrong)} / ${fmt(probe.batchEventual)}.`,
    '',
    ...(generatedWrong.length ? [`**The generator's count differs from the evaluation for:** ${generatedWrong.map((c) => `${c.kind} ${c.label}`).join(', ')}.`, ''] : []),
    table(
      ['Kind', 'Runs equal', `Requests = ceil(m / ${LIMIT})`, 'Short non-last pages (0)', `Rounds per page (≤ ${MAX_ROUNDS})`, `RU per page of 25, p50 / p99 / max (p99 ≤ ${MAX_RU_25})`, `RU per page of ${LIMIT}, p99`, `Index data per page, max (≤ ${MAX_INDEX_BYTES / 1024} KB)`, 'Scans', 'First request of the kind (snapshot load)'],
      perKind,
    ),
    '',
    `Relevance and fuzzy (API.md §8.4): every \`q\` of the matrix by \`ordering=relevance\`, and with a typo (the middle letter of its longest word dropped) and \`fuzzy=true\` by relevance and the default ordering; their first pages' latency (warm, median of three) and read units per page of 25:`,
    '',
    table(['Kind', 'Runs equal', 'Of them fuzzy', 'RU per page of 25, p50 / p99 / max', 'Rounds per page, max', 'First page p50 / p99'], rankedRows),
    '',
    `Worst pages of 25 by read units (page: its number in the walk):`,
    '',
    table(['Run', 'Page', 'Records', 'RU', 'Index data', 'Rounds'], worst),
    ...(wrong.length || overRequests.length || short.length
      ? ['', `Runs off target: ${[...new Set([...wrong, ...overRequests, ...short])].slice(0, 12).map((o) => `${name(o)} (m=${o.m}, ${o.requests} requests for ${o.target}, ${o.shortPages} short${o.correct ? '' : ', **wrong results**'})`).join('; ')}.`]
      : []),
    '',
    '### Relation lag (write → visible on the other side; API.md §1.8 allows 60 s)',
    '',
    table(['Write → view', 'Samples', 'p50 (ms)', 'p99 (ms)', 'max (ms)'], Object.entries(lag).map(([k, v]) => [k, String(v.samples), v.p50.toFixed(0), v.p99.toFixed(0), v.max.toFixed(0)])),
  ].join('\n');
  return {
    method: [
      `The catalogue of catalogue-data.ts (\`--scale ${opts.scale}\`, seed ${opts.seed}) is written by the bulk loader (test/bench/load-catalogue.ts: the API's own item builders, BatchWriteItem, 8 calls in flight, and each kind's first index snapshot) into its own table of the kept DynamoDB Local store (DATA_DIR); a later run with the same scale, seed and date skips the load (catalogue-manifest.json).`,
      `Every query is requested anonymously through the local gateway in each ordering of its kind (${LISTED.map((k) => `${k}: ${ORDERINGS[k].join(', ')}`).join('; ')}): with limit=${LIMIT}, following \`next\` until it is null (with more than ${int(FULL_MAX)} matches only the first ordering whole, the others for ${PARTIAL_PAGES} pages), then with limit=${SMALL_LIMIT} for its first ${SMALL_PAGES} pages. The ids collected are compared, in order, with an independent in-memory evaluation of the contract's rules (test/support/reference-list.ts) over the records the loader stored; \`q\` counts also with the generator's.`,
      `Per request, the DynamoDB calls the functions make are recorded by the SDK middleware of sdk-calls.ts with ReturnConsumedCapacity: rounds (\`rounds()\`: calls that overlap share one), read units as DynamoDB bills them (the consumed capacity, which DynamoDB Local reports at twice the eventual figure for strongly consistent reads — checked at every run on one record; an empty read counted at its minimum, 1 unit strongly consistent), and the units of the calls on the kind's index partition (\`<KIND>#IX\`: the pointer and deltas) × 4 KB as its index data. Before each kind's matrix the functions' copy of the index is forgotten (a new instance): that first request, which loads the snapshot, is reported apart and left out of the per-page figures.`,
      'Evaluation CPU, snapshot size, load time and memory are decision E5\'s (test/bench/snapshot.ts), not measured here. First page latency: median of three requests, divided by the median detail GET of the kind.',
    ],
    body,
    budgets,
    summary: [
      `catalogue: ${outcomes.length} runs; ${wrong.length} wrong, ${overRequests.length} off ceil(m/${LIMIT}), ${short.reduce((n, o) => n + o.shortPages, 0)} short non-last pages, rounds max ${Math.max(...allPages.map((p) => p.rounds))}, RU per page of 25 p99 ${fmt(ru99)} (max ${fmt(Math.max(...small))}), index data max ${kbOf(Math.max(...allPages.map((p) => p.indexRu)))}, ${scans} scans; load ${int(report.itemsPerSecond)} items/s${reused ? ' (reused)' : ''}, store ${(storeBytes / 1e9).toFixed(2)} GB`,
    ],
  };
}

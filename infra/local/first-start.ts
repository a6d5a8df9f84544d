/**
 * `npm start`'s first start (README "A real catalogue on first start"; docs/decisions.md I7):
 * when the data dir holds no table yet, the whole bangumi-data catalogue is loaded before the API
 * listens, with a progress bar on the terminal.
 *
 * A new data dir (no database file yet) gets its catalogue as a whole database file before its
 * engine starts (ensureCatalogueFile; catalogue-file.ts, docs/decisions.md P1–P4): imported into a
 * DynamoDB Local of its own in `/dev/shm` and moved in, or copied from the cache of an earlier
 * first start. The rest of this comment is the import itself, there or in place.
 *
 * The table is created without its stream, the titles are written in bulk
 * (shared/domain/catalogue-import.ts bulkImport: the items the API's write path would leave but
 * their index deltas, the counter included, proved item-identical by
 * test/integration/catalogue-import.test.ts; the animes' index is built from the records once the
 * data dir's engines run: infra/local/runtime.ts, shared/domain/index-rebuild.ts),
 * and only then is the stream turned on (engines.ts ensureTable), so the stream consumers never see
 * the load. A table that exists without a stream is a first import that stopped half-way (Ctrl-C):
 * it is loaded again, in place (ensureTableWithCatalogue; the titles' ids come from their source
 * keys, so the same items are put again).
 * `npm start -- --fresh` starts from an empty store and imports nothing (the season refresh job then
 * adds the current and upcoming seasons).
 */
import { existsSync } from 'node:fs';
import { DescribeTableCommand, DynamoDBClient, ResourceNotFoundException } from '@aws-sdk/client-dynamodb';
import { BulkWriter } from '../../shared/db/batch.js';
import { loadBangumiData } from '../../shared/domain/bangumi-data.js';
import { bulkImport, sourceCatalogue } from '../../shared/domain/catalogue-import.js';
import { catalogueKey, copyFromCache, databaseFile, stageCatalogue, stagingRoot } from './catalogue-file.js';
import { ensureTable } from './engines.js';

export interface FirstImport {
  titles: number;
  items: number;
  /** Items of the data set left out (README "What the data has and lacks"). */
  skipped: number;
  seconds: number;
  /**
   * How: `staged` (imported into a DynamoDB Local of its own, its file then moved into the data
   * dir: catalogue-file.ts), `cached` (that file, kept from an earlier first start, copied) or
   * `in-place` (imported into the data dir's own engine: a first import that stopped half-way).
   */
  via: 'staged' | 'cached' | 'in-place';
  /** Where a staged import was written (`/dev/shm`, the temp dir or the data dir). */
  stagedIn?: string;
}

/** `absent`: a new data dir; `unfinished`: a table without a stream (a first import that stopped); `ready`. */
export async function tableState(endpoint: string, name: string): Promise<'absent' | 'unfinished' | 'ready'> {
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  try {
    const out = await client.send(new DescribeTableCommand({ TableName: name }));
    return out.Table?.StreamSpecification?.StreamEnabled ? 'ready' : 'unfinished';
  } catch (err) {
    if (err instanceof ResourceNotFoundException) return 'absent';
    throw err;
  } finally {
    client.destroy();
  }
}

/** A progress bar on a terminal (redrawn in place), else a line at every quarter. */
export function progressBar(total: number, out: NodeJS.WriteStream = process.stderr, label = 'importing the catalogue', unit = 'titles'): { update(done: number): void; end(): void } {
  const started = Date.now();
  const width = 30;
  let lastQuarter = -1;
  let lastDraw = 0;
  const line = (done: number) => {
    const filled = total === 0 ? width : Math.round((done / total) * width);
    const secs = ((Date.now() - started) / 1000).toFixed(1);
    return `${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} ${unit} ${secs}s`;
  };
  return {
    update(done) {
      if (out.isTTY) {
        const now = Date.now();
        if (done < total && now - lastDraw < 100) return;
        lastDraw = now;
        out.write(`\r${line(done)}`);
      } else {
        const quarter = total === 0 ? 4 : Math.floor((done / total) * 4);
        if (quarter > lastQuarter) {
          lastQuarter = quarter;
          out.write(`${line(done)}\n`);
        }
      }
    },
    end() {
      if (out.isTTY) out.write('\n');
    },
  };
}

export interface FileStartOptions {
  dataDir: string;
  table: string;
  /** The data set (default: the installed bangumi-data). */
  data?: unknown;
  /** The import's "now" (default: the clock). */
  now?: Date;
  /** Progress (default: a bar on standard error). */
  onProgress?: (done: number, total: number) => void;
  /** Where to stage, the first that exists and has room (default: `/dev/shm`, the OS temp dir; then the data dir). */
  stagingRoots?: readonly string[];
}

/**
 * A new data dir's catalogue, before its engine starts (catalogue-file.ts): when the data dir
 * has no database file yet, the file is copied from the cache, else imported into a staging
 * engine and moved in. Returns what was imported, or null (the data dir has a database: the
 * table, or a first import that stopped, is then ensureTableWithCatalogue's).
 */
export async function ensureCatalogueFile(opts: FileStartOptions): Promise<FirstImport | null> {
  if (existsSync(databaseFile(opts.dataDir))) return null;
  const started = Date.now();
  const data = opts.data ?? (await loadBangumiData());
  const catalogue = sourceCatalogue(data);
  const total = catalogue.titles.length;
  const key = catalogueKey(data, opts.table, opts.now);
  const cached = copyFromCache(key, opts.dataDir, (from) => {
    if (!opts.onProgress) process.stderr.write(`copying the catalogue imported by an earlier first start (${from})\n`);
  });
  if (cached) {
    return { titles: cached.titles, items: cached.items, skipped: cached.skipped, seconds: (Date.now() - started) / 1000, via: 'cached' };
  }
  const bar = opts.onProgress ? null : progressBar(total);
  const onProgress = opts.onProgress ?? ((done: number) => bar!.update(done));
  onProgress(0, total);
  let staged;
  try {
    staged = await stageCatalogue({
      dataDir: opts.dataDir,
      table: opts.table,
      catalogue,
      key,
      ...(opts.now ? { now: opts.now } : {}),
      ...(opts.stagingRoots ? { stagingRoot: stagingRoot(opts.dataDir, total, opts.stagingRoots) } : {}),
      onProgress: (done) => onProgress(done, total),
    });
  } finally {
    bar?.end();
  }
  return { titles: total, items: staged.items, skipped: catalogue.skipped.length, seconds: (Date.now() - started) / 1000, via: 'staged', stagedIn: staged.stagedIn };
}

export interface FirstStartOptions {
  endpoint: string;
  table: string;
  /** The data set (default: the installed bangumi-data). */
  data?: unknown;
  /** The import's "now" (default: the clock). */
  now?: Date;
  /** Progress (default: a bar on standard error). */
  onProgress?: (done: number, total: number) => void;
}

/**
 * Makes the table and, when it is absent or its first import did not finish, loads the catalogue
 * into it first (see the module comment). Returns what was imported, or null (nothing to do).
 * TABLE_NAME and AWS_ENDPOINT_URL_DYNAMODB must name `table` on `endpoint` (the shared client's).
 */
export async function ensureTableWithCatalogue(opts: FirstStartOptions): Promise<FirstImport | null> {
  const state = await tableState(opts.endpoint, opts.table);
  if (state === 'ready') return null;
  const started = Date.now();
  await ensureTable(opts.endpoint, opts.table, { stream: false });
  const catalogue = sourceCatalogue(opts.data ?? (await loadBangumiData()));
  const total = catalogue.titles.length;
  const bar = opts.onProgress ? null : progressBar(total);
  const onProgress = opts.onProgress ?? ((done: number) => bar!.update(done));
  onProgress(0, total);
  let items: number;
  try {
    items = await bulkImport(catalogue.titles, { writer: new BulkWriter(4, { transact: true }), ...(opts.now ? { now: opts.now } : {}), onProgress: (done) => onProgress(done, total) });
  } finally {
    bar?.end();
  }
  await ensureTable(opts.endpoint, opts.table);
  return { titles: total, items, skipped: catalogue.skipped.length, seconds: (Date.now() - started) / 1000, via: 'in-place' };
}

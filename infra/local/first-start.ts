/**
 * `npm start`'s first start (README "A real catalogue on first start"; docs/decisions.md I7):
 * when the data dir holds no table yet, the whole bangumi-data catalogue is loaded before the API
 * listens, with a progress bar on the terminal.
 *
 * The table is created without its stream, the titles are written in bulk
 * (shared/domain/catalogue-import.ts bulkImport: the items the API's write path would leave, the
 * counter and list sizes included, proved item-identical by test/integration/catalogue-import.test.ts),
 * and only then is the stream turned on (engines.ts ensureTable), so the stream consumers never see
 * the load. A table that exists without a stream is a first import that stopped half-way (Ctrl-C):
 * it is loaded again (the titles' ids come from their source keys, so the same items are put again).
 * `npm start -- --fresh` starts from an empty store and imports nothing (the season refresh job then
 * adds the current and upcoming seasons).
 */
import { DescribeTableCommand, DynamoDBClient, ResourceNotFoundException } from '@aws-sdk/client-dynamodb';
import { BulkWriter } from '../../shared/db/batch.js';
import { loadBangumiData } from '../../shared/domain/bangumi-data.js';
import { bulkImport, sourceCatalogue } from '../../shared/domain/catalogue-import.js';
import { ensureTable } from './engines.js';

export interface FirstImport {
  titles: number;
  items: number;
  /** Items of the data set left out (README "What the data has and lacks"). */
  skipped: number;
  seconds: number;
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
export function progressBar(total: number, out: NodeJS.WriteStream = process.stderr, label = 'importing the catalogue'): { update(done: number): void; end(): void } {
  const started = Date.now();
  const width = 30;
  let lastQuarter = -1;
  let lastDraw = 0;
  const line = (done: number) => {
    const filled = total === 0 ? width : Math.round((done / total) * width);
    const secs = ((Date.now() - started) / 1000).toFixed(1);
    return `${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} titles ${secs}s`;
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
    items = await bulkImport(catalogue.titles, { writer: new BulkWriter(4, undefined, { transact: true }), ...(opts.now ? { now: opts.now } : {}), onProgress: (done) => onProgress(done, total) });
  } finally {
    bar?.end();
  }
  await ensureTable(opts.endpoint, opts.table);
  return { titles: total, items, skipped: catalogue.skipped.length, seconds: (Date.now() - started) / 1000 };
}

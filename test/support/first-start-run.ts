/**
 * One `npm start` startup (infra/local/runtime.ts startLocal, as infra/local/start.ts calls it)
 * in a process of its own, as `npm start` is one (the functions' shared clients name the engines
 * of their process), on a small sample of the real data; prints what it saw as one JSON line and
 * stops. `node --import tsx test/support/first-start-run.ts <data dir> <mode> [table]`:
 *  - `start`: a start of the data dir as `npm start` does it (importing on a first start, staged
 *    in `/dev/shm` or the temp dir, or copied from the cache CATALOGUE_CACHE_DIR names);
 *  - `start-in-data-dir`: the same where neither `/dev/shm` nor the temp dir may be used (the
 *    staging falls back to the data dir);
 *  - `fresh`: `npm start -- --fresh`, then a table left as a first import that stopped half-way
 *    (without its stream) is made, named `table`.
 */
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { ensureTable } from '../../infra/local/engines.js';
import { tableState } from '../../infra/local/first-start.js';
import { LOCAL_TABLE, startLocal } from '../../infra/local/runtime.js';
import { realSample } from './bangumi-sample.js';

const [dataDir, mode, table = LOCAL_TABLE] = process.argv.slice(2) as [string, string, string?];
const NOW = new Date('2026-04-15T03:00:00.000Z');

const read = async (url: string) => {
  const list = (await (await fetch(`${url}/api/animes/?q=cardfight&ordering=aired_from&limit=20`)).json()) as { results: { name: string }[] };
  const all = (await (await fetch(`${url}/api/animes/?limit=1`)).json()) as { count: number };
  return { names: list.results.map((r) => r.name), count: all.count };
};

/** Staging folders of this process left anywhere it may stage (catalogue-file.ts). */
const leftovers = () =>
  ['/dev/shm', tmpdir(), dataDir].flatMap((dir) => {
    try {
      return readdirSync(dir).filter((f) => f.startsWith(`anime-catalogue-staging-${process.pid}-`));
    } catch {
      return [];
    }
  });

let out: Record<string, unknown>;
if (mode === 'start' || mode === 'start-in-data-dir') {
  const progress: number[] = [];
  const data = await realSample();
  const stagingRoots = mode === 'start' ? {} : { stagingRoots: [`${dataDir}/no-such-dir`] };
  const runtime = await startLocal({ port: 0, dataDir, persist: true, table, importCatalogue: { data, now: NOW, onProgress: (done) => progress.push(done), ...stagingRoots } });
  out = {
    imported: runtime.imported,
    progress: progress.length > 0 ? [progress[0], progress.at(-1)] : [],
    table: await tableState(runtime.engines.dynamodb, table),
    ...(await read(runtime.gateway.url)),
    leftovers: leftovers(),
  };
  await runtime.stop();
} else {
  const runtime = await startLocal({ port: 0, dataDir, persist: true, fresh: true });
  out = { imported: runtime.imported, ...(await read(runtime.gateway.url)) };
  await ensureTable(runtime.engines.dynamodb, table, { stream: false });
  out.unfinished = await tableState(runtime.engines.dynamodb, table);
  await runtime.stop();
}
process.stdout.write(`${JSON.stringify(out)}\n`);
process.exit(0);

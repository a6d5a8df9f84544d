/**
 * `npm start`: the whole service on this machine. Starts the engines, creates the table, and
 * serves the API on http://localhost:PORT (default 3000). DATA_DIR (default ./.data) keeps data
 * between runs; on the first start of a data dir the real catalogue (bangumi-data) is imported
 * before the API listens, with a progress bar (infra/local/first-start.ts); a data dir written by
 * an earlier version is migrated to this one before the API listens (shared/domain/migrations.ts);
 * `npm start -- --fresh` starts from an empty store and imports nothing. Ctrl-C / SIGTERM stop all.
 */
import { resolve } from 'node:path';
import { removeState, startLocal, writeState } from './runtime.js';

const args = process.argv.slice(2);
const unknown = args.filter((a) => a !== '--fresh');
if (unknown.length > 0) {
  console.error(`unknown argument(s): ${unknown.join(' ')}\nusage: npm start [-- --fresh]   (env: PORT, DATA_DIR)`);
  process.exit(2);
}
// An empty PORT (`PORT= npm start`) is unset, not port 0 (a random port).
const port = Number(process.env.PORT || 3000);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`PORT must be a port number, not ${process.env.PORT}`);
  process.exit(2);
}
const dataDir = resolve(process.env.DATA_DIR || '.data');

const fresh = args.includes('--fresh');
const runtime = await startLocal({ port, dataDir, fresh, persist: true, importCatalogue: !fresh });
if (runtime.imported) {
  const i = runtime.imported;
  const how = i.via === 'cached' ? 'copied from the cache of an earlier first start' : i.via === 'staged' ? `imported (staged in ${i.stagedIn})` : 'imported';
  console.log(`${how}: ${i.titles} titles of bangumi-data (CC BY 4.0; ${i.skipped} items left out) in ${i.seconds.toFixed(1)} s (${i.items} items)`);
}
if (runtime.migrated) {
  const m = runtime.migrated;
  const did = m.steps.map((s) => Object.entries(s.summary).map(([k, v]) => `${v} ${k.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`)}`).join(', ')).join('; ');
  console.log(`migrated the store from schema version ${m.from} to ${m.to} in ${m.seconds.toFixed(1)} s (${did})`);
}
writeState(dataDir, {
  pid: process.pid,
  url: runtime.gateway.url,
  dynamodb: runtime.engines.dynamodb,
  mail: runtime.engines.mail,
  s3: runtime.engines.s3,
  secrets: runtime.engines.secrets,
  table: runtime.env.TABLE_NAME!,
});
console.log(`listening on ${runtime.gateway.url}`);
console.log(`dynamodb: ${runtime.engines.dynamodb}`);
console.log(`mail: ${runtime.engines.mail}`);
console.log(`s3: ${runtime.engines.s3}`);

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.log(`${signal}: stopping`);
  removeState(dataDir);
  await runtime.stop();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));

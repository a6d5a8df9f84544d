/**
 * How fast the migration to the current schema version runs (docs/decisions.md "Migrating a store
 * (issue 18)"): `node --import tsx test/bench/migration-speed.ts [--scale small|mal] [--users N]
 * [--reviews N] [--items N] [--concurrency N]`. Starts the local runtime on a fresh data dir of its
 * own (in /dev/shm when there is one; no import, no consumers), writes the bench's catalogue and a
 * community with the bench's loaders (what the current code writes), turns the store into what
 * schema version 1 held for the same records (test/support/previous-store.ts), migrates it as
 * `npm start` does, and prints the store's size, the time and the rates (items of the migrated
 * store per second, titles per second), then the time of a second run (which writes nothing).
 * The catalogue and community are test/integration/migrations.test.ts's times K (default 5).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { LOCAL_TABLE, startLocal } from '../../infra/local/runtime.js';
import type { BaseRecord } from '../../shared/db/records.js';
import { migrateStore } from '../../shared/domain/migrations.js';
import { storeV2 } from '../../shared/domain/store-v2.js';
import { toVersion1 } from '../support/previous-store.js';
import { scanAll } from '../support/tables.js';
import { catalogue, type Kind } from './catalogue-data.js';
import { community } from './community-data.js';
import { LOADABLE_KINDS, loadCatalogue } from './load-catalogue.js';
import { loadCommunity, type TitleLookup } from './load-community.js';

const { values } = parseArgs({ options: { times: { type: 'string', default: '5' }, concurrency: { type: 'string', default: '8' } } });
const k = Number(values.times);
const base = { genre: 8, theme: 5, demographic: 3, producer: 12, magazine: 4, person: 60, character: 90, anime: 40, manga: 50, news: 30 };
const scale = Object.fromEntries(Object.entries(base).map(([kind, n]) => [kind, ['genre', 'theme', 'demographic', 'magazine'].includes(kind) ? n : n * k])) as typeof base;
const dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'migration-speed-'));
const runtime = await startLocal({ port: 0, dataDir: dir, persist: false, fresh: true, background: false });
try {
  const t0 = Date.now();
  const cat = catalogue({ scale, seed: 7, today: '2025-06-01' });
  const records: Record<string, BaseRecord[]> = { anime: [], manga: [] };
  await loadCatalogue({ cat, kinds: LOADABLE_KINDS, inFlight: 4, onRecord: (kind: Kind, i, r) => void (kind in records && (records[kind]![i] = r)) });
  const titles: TitleLookup = (kind, i) => ({ id: records[kind]![i]!.id, rec: records[kind]![i] as unknown as Record<string, unknown> });
  console.error(`loaded the catalogue in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  await loadCommunity({ comm: community(cat, { users: 40 * k, items: 300 * k, reviews: 60 * k }), titles, passwordHash: '$scrypt$bench', inFlight: 4 });
  const current = (await scanAll(LOCAL_TABLE)).size;
  const t1 = Date.now();
  const old = await toVersion1();
  const t2 = Date.now();
  console.error(`loaded ${current} items in ${((t1 - t0) / 1000).toFixed(1)} s; made the version 1 store (${old.deleted} deleted, ${old.put} put) in ${((t2 - t1) / 1000).toFixed(1)} s`);
  const report = await migrateStore({ concurrency: Number(values.concurrency) });
  const n = cat.sizes.anime + cat.sizes.manga;
  const after = (await scanAll(LOCAL_TABLE)).size;
  const t3 = Date.now();
  const again = await storeV2.run({ concurrency: Number(values.concurrency), segments: 4, checkpoint: null, save: async () => undefined, progress: () => undefined });
  const second = (Date.now() - t3) / 1000;
  const summary = report.steps[0]!.summary;
  console.log(
    JSON.stringify({
      times: k,
      sizes: cat.sizes,
      titles: n,
      madeOld: old,
      itemsAfter: after,
      seconds: report.seconds,
      itemsPerSecond: Math.round(after / report.seconds),
      titlesPerSecond: Math.round((n / report.seconds) * 10) / 10,
      summary,
      secondRun: { seconds: second, itemsPerSecond: Math.round(after / second), wrote: (again.countsPut ?? 0) + (again.reviews ?? 0) + (again.entriesRemoved ?? 0) + (again.listsRemoved ?? 0) },
    }),
  );
} finally {
  await runtime.stop();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);

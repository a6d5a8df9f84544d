/**
 * Makes a data dir that an earlier `npm start` could have left: a store of schema version 1
 * (test/support/previous-store.ts), in a process of its own with its own engines, data kept on
 * disk. `node --import tsx test/support/old-store-run.ts <data dir>` starts the local runtime on
 * a fresh data dir (no import), writes a small catalogue and community with the bench's loaders,
 * reads a few views the current code serves for them (the answers a migrated store must give
 * again), turns the store into version 1's, reads the same views again, stops, and prints
 * `{ views: [{ path, now, old }] }` as one JSON line.
 */
import { LOCAL_TABLE, startLocal } from '../../infra/local/runtime.js';
import type { BaseRecord } from '../../shared/db/records.js';
import { catalogue, type Kind } from '../bench/catalogue-data.js';
import { community } from '../bench/community-data.js';
import { LOADABLE_KINDS, loadCatalogue } from '../bench/load-catalogue.js';
import { loadCommunity, type TitleLookup } from '../bench/load-community.js';
import { toVersion1 } from './previous-store.js';
import { forgetIndexes } from '../../shared/domain/index-reader.js';
import { scanAll } from './tables.js';

const [dataDir] = process.argv.slice(2) as [string];
const runtime = await startLocal({ port: 0, dataDir, persist: true, fresh: true, background: false });
const cat = catalogue({
  scale: { genre: 6, theme: 4, demographic: 2, producer: 10, magazine: 3, person: 50, character: 60, anime: 20, manga: 20, news: 10 },
  seed: 9,
  today: '2025-06-01',
});
const records: Record<string, BaseRecord[]> = { anime: [], manga: [] };
await loadCatalogue({ cat, kinds: LOADABLE_KINDS, inFlight: 4, onRecord: (kind: Kind, i, r) => void (kind in records && (records[kind]![i] = r)) });
const titles: TitleLookup = (kind, i) => ({ id: records[kind]![i]!.id, rec: records[kind]![i] as unknown as Record<string, unknown> });
await loadCommunity({ comm: community(cat, { users: 30, items: 200, reviews: 40 }), titles, passwordHash: '$scrypt$bench', inFlight: 4 });

// Views that read what version 1 lacked: a person's voices, a title's reviews, a season's animes.
const items = [...(await scanAll(LOCAL_TABLE)).values()];
const most = (re: RegExp) => items.filter((i) => re.test(`${String(i.pk)} ${String(i.sk)}`)).sort((a, b) => Number(b.n) - Number(a.n))[0]!;
const voices = new Map<string, number>();
for (const i of items) if (/^PERSON#[^#]+#X$/.test(String(i.pk)) && String(i.sk).startsWith('VA#')) voices.set(String(i.pk), (voices.get(String(i.pk)) ?? 0) + (i.e as unknown[]).length);
const person = /^PERSON#([^#]+)#X$/.exec([...voices].sort((a, b) => b[1] - a[1])[0]![0])![1];
const reviewed = /^REVIEWS#ANIME#([^#]+)$/.exec(String(most(/^REVIEWS#ANIME#[^#]+ N$/).pk))![1];
// The season with the most animes.
const seasons = new Map<string, number>();
for (const r of records.anime!) {
  const a = r as unknown as { year: number | null; season: string | null };
  if (a.year !== null && a.season !== null) seasons.set(`${a.year}-${a.season}`, (seasons.get(`${a.year}-${a.season}`) ?? 0) + 1);
}
const [year, season] = [...seasons].sort((x, y) => y[1] - x[1])[0]![0].split('-');
const paths = [`/api/persons/${person}/voices/?limit=5`, `/api/animes/${reviewed}/reviews/?limit=5`, `/api/seasons/${year}/${season}/?limit=5`];
const read = async () => Promise.all(paths.map(async (p) => (await fetch(`${runtime.gateway.url}${p}`)).json()));
const now = await read();
await toVersion1();
// The functions run in this process: as new ones would, they read the index of the old store afresh.
forgetIndexes();
const old = await read();
await runtime.stop();
process.stdout.write(`${JSON.stringify({ views: paths.map((path, i) => ({ path, now: now[i], old: old[i] })) })}\n`);
process.exit(0);

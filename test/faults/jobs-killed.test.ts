/**
 * A job killed half-way and run again gives what one clean run gives (API.md §5.5; the jobs'
 * idempotence, docs/decisions.md K5, M1–M12, I8). Two identical stores — a generated catalogue
 * and community (the benchmark's loaders, one seed), copied — and for each of the rankings job,
 * the recommendations job and the season refresh (over a data set of its own): a clean run on
 * one store, and on the other a run in a process of its own that is SIGKILLed right after half
 * of the clean run's table writes, then a run to completion once its lease has expired (set to
 * the past, as the time after the run's deadline would). The two stores must hold the same
 * items but for what the contract lets differ: the completion time (`refreshed_at`), the run
 * numbers and lease of the jobs' own state items, a title write's id (`write`), which random-pick
 * slot an imported title got (the set of slotted titles must be equal), the versions of a
 * recommendation list that readers do not see, new media ids, and journal items of title writes
 * that never committed (inert, staged.ts). Both stores must also agree with a recount.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTable } from '../../infra/local/engines.js';
import { db } from '../../shared/db/sdk.js';
import type { BaseRecord } from '../../shared/db/records.js';
import { catalogue, type Kind } from '../bench/catalogue-data.js';
import { community } from '../bench/community-data.js';
import { LOADABLE_KINDS, loadCatalogue } from '../bench/load-catalogue.js';
import { loadCommunity, type TitleLookup } from '../bench/load-community.js';
import { item } from '../support/bangumi-sample.js';
import { publishedVectors, recount } from '../support/recount.js';
import { scanAll, sortKeys, type Item } from '../support/tables.js';

const cat = catalogue({
  scale: { genre: 5, theme: 4, demographic: 2, producer: 10, magazine: 2, person: 50, character: 60, anime: 16, manga: 10, news: 0 },
  seed: 909,
  today: '2026-06-01',
  // Titles without casts and staff: the run's writes are the titles' (characters' and persons'
  // numbers stay 0), which keeps three runs per job within seconds.
  lean: true,
});
// Enough users that pairs of titles reach the 3 votes a recommendation needs (§5.4): 13 titles get a list.
const comm = community(cat, { users: 60, items: 600, reviews: 0 });
/** The season refresh's "now" and data set: 24 titles of summer 2026, which it imports then. */
const JUNE = '2026-06-20T04:00:00.000Z';
const data = { items: Array.from({ length: 24 }, (_, i) => item(String(9100 + i), i % 3 === 0 ? { begin: '2026-04-09T15:00:00.000Z', broadcast: 'R/2026-04-09T15:00:00.000Z/P7D', end: '2026-06-25T15:30:00.000Z' } : {})) };

const dir = mkdtempSync(join(tmpdir(), 'jobs-killed-'));
const dataFile = join(dir, 'bangumi.json');
// Two tables of their own, without streams: no consumer runs here, and DynamoDB Local slows down with every stream record it keeps.
const stores = { killed: `killed-${randomBytes(6).toString('hex')}`, clean: `clean-${randomBytes(6).toString('hex')}` };

/** Runs `job` in a child process on `table`; killed after `kill` writes when given. */
async function child(job: string, table: string, kill?: number): Promise<{ writes: number; killed: boolean; ms: number }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'test/support/job-child.ts', job, job === 'season-refresh' ? JUNE : new Date().toISOString(), kill === undefined ? '-' : String(kill), job === 'season-refresh' ? dataFile : ''],
      { env: { ...process.env, TABLE_NAME: table }, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const ms = Date.now() - started;
        if (err && (err as { signal?: string }).signal === 'SIGKILL') return resolve({ writes: kill!, killed: true, ms });
        if (err) return reject(new Error(`${job} failed: ${stderr.slice(-2000)}`));
        resolve({ writes: (JSON.parse(stdout.trim().split('\n').at(-1)!) as { writes: number }).writes, killed: false, ms });
      },
    );
  });
}

/** Sets a job's lease to have run out (the killed run held it until after its deadline). */
async function expireLease(job: string): Promise<void> {
  const [Key, attribute] = job === 'rankings' ? [{ pk: 'RANKINGS', sk: 'LEASE' }, 'until'] : job === 'recommendations' ? [{ pk: 'RECS#JOB', sk: 'R' }, 'lease_until'] : [null, ''];
  if (!Key) return;
  await db().send(new UpdateCommand({ TableName: stores.killed, Key, UpdateExpression: 'SET #a = :past', ConditionExpression: 'attribute_exists(#a)', ExpressionAttributeNames: { '#a': attribute }, ExpressionAttributeValues: { ':past': 0 } })).catch((err: Error) => {
    if (err.name !== 'ConditionalCheckFailedException') throw err;
  });
}

/** A store without what the contract lets differ between a killed-and-rerun job and a clean run (see above). */
function comparable(items: Map<string, Item>): Map<string, Item> {
  const out = new Map<string, Item>();
  const done = Number(items.get('RECS#JOB R')?.done ?? 0);
  for (const [key, original] of items) {
    const i = structuredClone(original);
    const pk = String(i.pk);
    const sk = String(i.sk);
    const writer = items.get(`${pk} R`) ?? items.get(`${pk} W`);
    if (sk.startsWith('J#') && !(writer && writer.rev === i.rev && writer.write === i.write)) continue;
    // The titles' indexes: their deltas are numbered in the order writes committed and their
    // snapshots named per compaction — compared as what they hold, by the recount of each store.
    if (/^[A-Z]+#IX$/.test(pk)) continue;
    if (sk === 'R' && /^(ANIME|MANGA|CHARACTER|PERSON)#[^#]+$/.test(pk)) {
      delete i.write;
      if (i.slot !== undefined) i.slot = '<slot>';
    }
    // The change feed's changes (not numbered here: no stream): keyed by their time and a random id, compared as what they name.
    if (pk === 'FEED#P') {
      out.set(`${pk} ${String(i.k)} ${String(i.id)} ${String(i.c)}`, { pk, k: i.k, id: i.id, c: i.c });
      continue;
    }
    if (/^(ANIME|MANGA|CHARACTER|PERSON)#SLOT$/.test(pk)) {
      out.set(`${pk} <slot of ${String(i.id)}>`, { pk, id: i.id });
      continue;
    }
    if (/^C#(videos|pictures)#/.test(sk)) i.entries = (i.entries as Item[]).map(({ id: _id, ...rest }) => ({ ...rest, id: '<new id>' }));
    if (pk === 'RANKINGS' && sk === 'STATE') i.refreshed_at = '<time>';
    if (pk === 'RECS#JOB') {
      out.set(key, { pk, sk, completed: i.done !== undefined, held: i.holder !== undefined });
      continue;
    }
    if (/^RECS#(ANIME|MANGA)#/.test(pk)) {
      const visible = (i.v as { n: number; b: unknown }[]).filter((v) => v.n <= done).at(-1);
      out.set(key, { pk, sk, visible: visible?.b ?? null });
      continue;
    }
    out.set(key, i);
  }
  return out;
}

function differences(a: Map<string, Item>, b: Map<string, Item>): string[] {
  const out: string[] = [];
  for (const [k, v] of a) if (!b.has(k)) out.push(`only after the killed run: ${k}`);
  else if (JSON.stringify(sortKeys(v)) !== JSON.stringify(sortKeys(b.get(k)))) out.push(`differs: ${k}: ${JSON.stringify(sortKeys(v)).slice(0, 300)} / ${JSON.stringify(sortKeys(b.get(k))).slice(0, 300)}`);
  for (const k of b.keys()) if (!a.has(k)) out.push(`only after the clean run: ${k}`);
  return out;
}

/** Loads the generated catalogue and community into the table of TABLE_NAME (the benchmark's loaders: the same items for the same seed). */
async function load(): Promise<void> {
  const records: Record<string, BaseRecord[]> = { anime: [], manga: [] };
  await loadCatalogue({ cat, kinds: LOADABLE_KINDS, inFlight: 4, onRecord: (kind: Kind, i, r) => void (kind in records && (records[kind]![i] = r)) });
  const titles: TitleLookup = (kind, i) => ({ id: records[kind]![i]!.id, rec: records[kind]![i] as unknown as Record<string, unknown> });
  await loadCommunity({ comm, titles, passwordHash: '$scrypt$bench', inFlight: 4 });
}

let loaded = '';
beforeAll(async () => {
  const started = Date.now();
  writeFileSync(dataFile, JSON.stringify(data));
  const own = process.env.TABLE_NAME;
  try {
    for (const table of [stores.killed, stores.clean]) {
      await ensureTable(process.env.AWS_ENDPOINT_URL_DYNAMODB!, table, { stream: false });
      process.env.TABLE_NAME = table;
      await load();
    }
  } finally {
    process.env.TABLE_NAME = own;
  }
  const [a, b] = await Promise.all([scanAll(stores.killed), scanAll(stores.clean)]);
  // Identical but for what is random per write (title writes' ids, new media ids).
  expect(differences(comparable(a), comparable(b))).toEqual([]);
  loaded = `two stores of ${a.size} items loaded in ${Date.now() - started} ms; `;
}, 600_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a job killed half-way and run again = one clean run', () => {
  for (const job of ['rankings', 'recommendations', 'season-refresh']) {
    it(job, { timeout: 600_000 }, async () => {
      const clean = await child(job, stores.clean);
      expect(clean.writes).toBeGreaterThan(4);
      const half = Math.ceil(clean.writes / 2);
      const killed = await child(job, stores.killed, half);
      expect(killed.killed, `the run was killed after ${half} of ${clean.writes} writes`).toBe(true);
      // Half-way: the killed run's store is not yet what the clean run left.
      expect(differences(comparable(await scanAll(stores.killed)), comparable(await scanAll(stores.clean)))).not.toEqual([]);
      await expireLease(job);
      const again = await child(job, stores.killed);
      expect(again.killed).toBe(false);
      const [a, b] = await Promise.all([scanAll(stores.killed), scanAll(stores.clean)]);
      expect(differences(comparable(a), comparable(b))).toEqual([]);
      expect(recount(a, await publishedVectors(a))).toEqual([]);
      expect(recount(b, await publishedVectors(b))).toEqual([]);
      const note = loaded;
      loaded = '';
      console.log(`${note}${job}: clean run ${clean.writes} writes in ${clean.ms} ms; killed after ${half} writes (${killed.ms} ms); run again: ${again.writes} writes in ${again.ms} ms; the stores (${a.size} items) agree`);
    });
  }
});

/**
 * `npm start`'s first start (infra/local/first-start.ts, catalogue-file.ts) on a small sample of
 * the real data, in a process of its own as `npm start` is (test/support/first-start-run.ts:
 * startLocal as infra/local/start.ts calls it, its own engines, data kept on disk): the catalogue
 * is imported into a staging engine (in `/dev/shm` or the temp dir, else in the data dir), its
 * database file is moved into the data dir, and the API then serves every title from the data
 * dir as soon as it listens, with the table's stream on; no staging folder is left; a second start
 * of the same data dir imports nothing and keeps the titles; a new data dir copies the file the
 * cache kept instead of importing; a data dir whose first import stopped half-way (a table without
 * its stream) is imported again, in place; `--fresh` imports nothing.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stagingRoot } from '../../infra/local/catalogue-file.js';
import { sourceCatalogue } from '../../shared/domain/catalogue-import.js';
import { realSample } from '../support/bangumi-sample.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const newDir = (prefix = 'first-start-') => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};

/** One startup in a process of its own (test/support/first-start-run.ts), with the environment `npm start` gets. */
async function start(dir: string, mode: 'start' | 'start-in-data-dir' | 'fresh', opts: { table?: string; cache?: string } = {}): Promise<any> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'test/support/first-start-run.ts', dir, mode, ...(opts.table ? [opts.table] : [])], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, POWERTOOLS_LOG_LEVEL: 'SILENT', CATALOGUE_CACHE_DIR: opts.cache ?? 'off' },
    timeout: 200_000,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!);
}

const databaseFile = (dir: string) => join(dir, 'dynamodb', 'shared-local-instance.db');
const cacheEntries = (cache: string) => readdirSync(cache).sort();

let total: number;
beforeAll(async () => {
  total = sourceCatalogue(await realSample()).titles.length;
});

const CARDFIGHT = 7;

describe('npm start: the first start imports the catalogue', () => {
  const cache = newDir('first-start-cache-');
  let names: string[];

  it('imports into a staging engine, moves its database file into the data dir and then serves it; a second start imports nothing', async () => {
    const dir = newDir();
    const first = await start(dir, 'start', { cache });
    // Staged in /dev/shm where it is memory-backed and has room (else in the data dir).
    expect(first.imported).toMatchObject({ titles: total, skipped: 0, via: 'staged', stagedIn: stagingRoot(dir, total) });
    // Per title: its record, name claim, random-pick slot and source link (its index is built from the records once the engine runs).
    expect(first.imported.items).toBeGreaterThanOrEqual(total * 4);
    expect(first.progress).toEqual([0, total]);
    expect(first.table).toBe('ready');
    expect(first.count).toBe(total);
    expect(first.names).toHaveLength(CARDFIGHT);
    expect(first.leftovers).toEqual([]);
    expect(existsSync(databaseFile(dir))).toBe(true);
    // The cache keeps the file and its counts.
    expect(cacheEntries(cache)).toHaveLength(2);
    names = first.names;
    const second = await start(dir, 'start', { cache });
    expect(second).toEqual({ imported: null, progress: [], table: 'ready', count: total, names, leftovers: [] });
  }, 240_000);

  it('a new data dir copies the database file the cache kept, and serves the same titles', async () => {
    const dir = newDir();
    const copied = await start(dir, 'start', { cache });
    expect(copied.imported).toMatchObject({ titles: total, skipped: 0, via: 'cached' });
    expect(copied).toMatchObject({ progress: [], table: 'ready', count: total, names, leftovers: [] });
    expect(existsSync(databaseFile(dir))).toBe(true);
    expect(cacheEntries(cache)).toHaveLength(2);
  }, 240_000);

  it('stages in the data dir when neither /dev/shm nor the temp dir has room (and without a cache)', async () => {
    const dir = newDir();
    const first = await start(dir, 'start-in-data-dir');
    expect(first.imported).toMatchObject({ titles: total, via: 'staged', stagedIn: dir });
    expect(first).toMatchObject({ progress: [0, total], table: 'ready', count: total, names, leftovers: [] });
    expect(readdirSync(join(dir, 'dynamodb'))).toEqual(['shared-local-instance.db']);
  }, 240_000);

  it('--fresh imports nothing; a table whose first import stopped (no stream yet) is imported again, in place', async () => {
    const dir = newDir();
    expect(await start(dir, 'fresh', { table: 'unfinished' })).toEqual({ imported: null, names: [], count: 0, unfinished: 'unfinished' });
    const again = await start(dir, 'start', { table: 'unfinished' });
    expect(again).toMatchObject({ imported: { titles: total, via: 'in-place' }, table: 'ready', count: total, names });
  }, 240_000);
});

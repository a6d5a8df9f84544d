/**
 * `npm start`'s first start (infra/local/first-start.ts) on a small sample of the real data, in
 * a process of its own as `npm start` is (test/support/first-start-run.ts: startLocal as
 * infra/local/start.ts calls it, its own engines, data kept on disk): the catalogue is imported
 * before the API serves, with progress, and the API serves every title as soon as it listens; the
 * table's stream is turned on only after the load; a second start of the same data dir imports
 * nothing and keeps the titles; a data dir whose first import stopped half-way (a table without
 * its stream) is imported again; `--fresh` imports nothing.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sourceCatalogue } from '../../shared/domain/catalogue-import.js';
import { realSample } from '../support/bangumi-sample.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** One startup in a process of its own (test/support/first-start-run.ts), with the environment `npm start` gets. */
async function start(dir: string, mode: 'start' | 'fresh', table?: string): Promise<any> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'test/support/first-start-run.ts', dir, mode, ...(table ? [table] : [])], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, POWERTOOLS_LOG_LEVEL: 'SILENT' },
    timeout: 200_000,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!);
}

const newDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'first-start-'));
  dirs.push(dir);
  return dir;
};

let total: number;
beforeAll(async () => {
  total = sourceCatalogue(await realSample()).titles.length;
});

const CARDFIGHT = 7;

describe('npm start: the first start imports the catalogue', () => {
  it('imports before serving, with progress; a second start imports nothing and keeps the titles', async () => {
    const dir = newDir();
    const first = await start(dir, 'start');
    expect(first.imported).toMatchObject({ titles: total, skipped: 0 });
    expect(first.imported.items).toBeGreaterThan(total * 10);
    expect(first.progress).toEqual([0, total]);
    expect(first.table).toBe('ready');
    expect(first.count).toBe(total);
    expect(first.names).toHaveLength(CARDFIGHT);
    const second = await start(dir, 'start');
    expect(second).toEqual({ imported: null, progress: [], table: 'ready', count: total, names: first.names });
  }, 240_000);

  it('--fresh imports nothing; a table whose first import stopped (no stream yet) is imported again', async () => {
    const dir = newDir();
    expect(await start(dir, 'fresh', 'unfinished')).toEqual({ imported: null, names: [], count: 0, unfinished: 'unfinished' });
    const again = await start(dir, 'start', 'unfinished');
    expect(again).toMatchObject({ imported: { titles: total }, table: 'ready', count: total });
    expect(again.names).toHaveLength(CARDFIGHT);
  }, 240_000);
});

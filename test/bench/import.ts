/**
 * The first start's import (issue 8 §4): `npm start` (infra/local/start.ts, in a process of its
 * own, as a newcomer runs it) on an empty data dir imports the whole bangumi-data catalogue
 * before it says `listening`. Three starts are timed, each from the spawn to the `listening` line:
 *  1. an empty data dir with an empty cache (a machine's first start: the import itself);
 *  2. another empty data dir with the cache the first one filled (the file copied, no import);
 *  3. the first data dir again (nothing to import: the engines and the gateway only).
 * After the first, `GET /api/animes/?limit=1` and `GET /api/seasons/2026/spring/` are read to show
 * the catalogue is served. The data dirs and the cache are temporary and removed afterwards.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SectionBody } from './report.js';
import { int, table } from './stats.js';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The import's own budget (issue 8 §4: "well under a minute on this machine"). */
const IMPORT_BUDGET_S = 60;

interface Start {
  label: string;
  /** Spawn to `listening`. */
  seconds: number;
  /** The import's own line (`imported …: N titles … in X s (M items)`), when there was one. */
  imported: { how: string; titles: number; seconds: number; items: number } | null;
}

/** One `npm start` until it listens; `read` runs against it before it is stopped. */
async function start(label: string, dataDir: string, cache: string, read?: (url: string) => Promise<void>): Promise<Start> {
  const began = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/start.ts'], {
    cwd: REPO_ROOT,
    env: { ...process.env, PORT: '0', DATA_DIR: dataDir, CATALOGUE_CACHE_DIR: cache, POWERTOOLS_LOG_LEVEL: 'SILENT' },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let out = '';
  try {
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => {
        out += chunk;
        const m = /listening on (\S+)/.exec(out);
        if (m) resolve(m[1]!);
      });
      child.once('exit', (code) => reject(new Error(`npm start exited with ${code} before listening:\n${out}`)));
    });
    const seconds = (performance.now() - began) / 1000;
    const m = /^(.*?): (\d+) titles of bangumi-data .* in ([\d.]+) s \((\d+) items\)$/m.exec(out);
    const imported = m ? { how: m[1]!, titles: Number(m[2]), seconds: Number(m[3]), items: Number(m[4]) } : null;
    await read?.(url);
    return { label, seconds, imported };
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
  }
}

export async function importSection(): Promise<SectionBody> {
  const temp = mkdtempSync(join(tmpdir(), 'bench-import-'));
  const cache = join(temp, 'cache');
  const served: string[] = [];
  try {
    const first = await start('1. empty data dir, empty cache (the import)', join(temp, 'a'), cache, async (url) => {
      const all = (await (await fetch(`${url}/api/animes/?limit=1`)).json()) as { count: number };
      const spring = (await (await fetch(`${url}/api/seasons/2026/spring/?limit=1`)).json()) as { count: number };
      served.push(`\`GET /api/animes/\` count ${all.count}`, `\`GET /api/seasons/2026/spring/\` count ${spring.count}`);
    });
    const copied = await start('2. empty data dir, the cache of 1 (a copy)', join(temp, 'b'), cache);
    const again = await start('3. the data dir of 1 again (nothing to import)', join(temp, 'a'), cache);
    const rows = [first, copied, again].map((s) => [
      s.label,
      `${s.seconds.toFixed(1)} s`,
      s.imported ? s.imported.how : '—',
      s.imported ? `${s.imported.seconds.toFixed(1)} s` : '—',
      s.imported ? int(s.imported.titles) : '—',
      s.imported ? int(s.imported.items) : '—',
      s.imported && s.imported.how.startsWith('imported') ? int(s.imported.items / s.imported.seconds) : '—',
    ]);
    const imp = first.imported;
    const perTitle = imp ? (imp.items / imp.titles).toFixed(1) : 'n/a';
    const body = [
      table(['Start', 'Spawn → `listening`', 'What it did', 'Import (its own line)', 'Titles', 'Items', 'Items/s'], rows),
      '',
      `Served after start 1: ${served.join(', ')}. Items per title: ${perTitle} (the record, its relations and slot, and its catalogue index entries — docs/decisions.md P4).`,
      '',
    ].join('\n');
    return {
      method: [
        '`node --import tsx infra/local/start.ts` (what `npm start` runs) with `PORT=0`, `DATA_DIR` and `CATALOGUE_CACHE_DIR` in a new temporary folder; timed from the spawn to the `listening` line; stopped with SIGTERM after each start.',
        'The import stages the catalogue in a DynamoDB Local of its own on memory-backed storage (`/dev/shm` when it has room) and moves its database file into the data dir (docs/decisions.md P1–P3); a new data dir copies the file the cache kept (P2).',
      ],
      body,
      budgets: [
        {
          name: 'First start on an empty data dir: spawn → listening',
          measured: `${first.seconds.toFixed(1)} s${imp ? ` (import ${imp.seconds.toFixed(1)} s, ${int(imp.items)} items)` : ''}`,
          limit: `well under ${IMPORT_BUDGET_S} s (issue 8 §4; not met, docs/decisions.md P4)`,
          ok: first.seconds < IMPORT_BUDGET_S,
        },
        { name: 'Empty data dir with the cache: spawn → listening', measured: `${copied.seconds.toFixed(1)} s`, limit: `${IMPORT_BUDGET_S} s`, ok: copied.seconds < IMPORT_BUDGET_S },
      ],
      summary: [`import: first start ${first.seconds.toFixed(1)} s (${imp?.titles ?? '?'} titles, ${imp?.items ?? '?'} items), from the cache ${copied.seconds.toFixed(1)} s, a restart ${again.seconds.toFixed(1)} s`],
    };
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

/**
 * The benchmark (`npm run bench`) runs outside the test runner: every module it loads — its own and
 * the test support it shares (http.ts, churn.ts, recount.ts, images.ts, …) — must load without it.
 * A support module that imports the runner at its top breaks the bench before it starts.
 */
import { spawnSync } from 'node:child_process';
import { expect, it } from 'vitest';

it('npm run bench loads outside the test runner (its usage printed)', () => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'test/bench/run.ts', '--help'], { encoding: 'utf8', timeout: 60_000 });
  expect(r.stderr).not.toContain('Vitest failed');
  expect(r.status, r.stderr).toBe(0);
  expect(r.stdout).toContain('npm run bench --');
}, 90_000);

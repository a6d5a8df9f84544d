/**
 * `npm test`: typecheck, lint, then every vitest project (unit, integration and e2e against the
 * real local engines, infra). Prints a last line `N passed, N failed` counting each test plus the
 * typecheck and the lint as one check each; exits non-zero on any failure.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let passed = 0;
let failed = 0;

function step(name: string, cmd: string, args: string[]): boolean {
  console.log(`\n== ${name}: ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: process.env });
  const ok = r.status === 0;
  console.log(`== ${name}: ${ok ? 'ok' : 'FAILED'}`);
  return ok;
}

for (const [name, args] of [
  ['typecheck', ['tsc', '--noEmit']],
  ['lint', ['eslint', '.']],
] as const) {
  if (step(name, 'npx', [...args])) passed++;
  else failed++;
}

const dir = mkdtempSync(join(tmpdir(), 'vitest-report-'));
const report = join(dir, 'report.json');
const extra = process.argv.slice(2);
const vitestOk = step('tests', 'npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...extra]);
try {
  const json = JSON.parse(readFileSync(report, 'utf8')) as { numPassedTests: number; numFailedTests: number; numTotalTestSuites: number; success: boolean };
  passed += json.numPassedTests;
  failed += json.numFailedTests;
  if (!vitestOk && json.numFailedTests === 0) failed++; // e.g. a file that failed to load, or a global setup error
} catch {
  failed++;
}
rmSync(dir, { recursive: true, force: true });
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);

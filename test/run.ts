/**
 * `npm test`: typecheck, lint, then every vitest project (unit, integration and e2e against the
 * real local engines, infra), then, after a full run, the coverage of the OpenAPI check (every
 * operation's responses validated by Prism during the e2e tests, test/support/prism.ts) and a
 * report of the table grants no test needed (test/support/key-trace.ts). Prints
 * a last line `N passed, N failed` counting each test plus the typecheck, the lint and the
 * coverage as one check each; exits non-zero on any failure.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OPERATIONS } from '../functions/registry.js';
import { unusedGrants } from './support/key-trace.js';
import { contractCoverage } from './support/prism.js';

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
// Each e2e file writes what Prism validated here (test/support/global-setup.ts, prism.ts).
process.env.CONTRACT_RECORDS = join(dir, 'contract');
// Each integration, e2e and faults file writes the grants its functions used here (test/support/key-trace.ts).
process.env.KEY_GRANT_RECORDS = join(dir, 'grants');
const vitestOk = step('tests', 'npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...extra]);
try {
  const json = JSON.parse(readFileSync(report, 'utf8')) as { numPassedTests: number; numFailedTests: number; numTotalTestSuites: number; success: boolean };
  passed += json.numPassedTests;
  failed += json.numFailedTests;
  if (!vitestOk && json.numFailedTests === 0) failed++; // e.g. a file that failed to load, or a global setup error
} catch {
  failed++;
}
if (extra.length === 0 && process.env.CONTRACT_PROXY !== 'off') {
  if (checkContractCoverage(process.env.CONTRACT_RECORDS)) passed++;
  else failed++;
}
if (extra.length === 0) reportUnusedGrants(process.env.KEY_GRANT_RECORDS);
rmSync(dir, { recursive: true, force: true });
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);

/**
 * The grants (an action on a key pattern, for one function) that no test of the run needed: a
 * report, not a check — some are needed only by paths the tests reach rarely (a staged write's
 * journal, a request refused by a rate limit). Written to test-artifacts/key-grants.txt.
 */
function reportUnusedGrants(records: string): void {
  console.log('\n== grants never used (test/support/key-trace.ts)');
  mkdirSync(records, { recursive: true });
  const used = new Set(readdirSync(records).flatMap((f) => JSON.parse(readFileSync(join(records, f), 'utf8')) as string[]));
  const unused = unusedGrants(used);
  const artifacts = new URL('../test-artifacts/', import.meta.url);
  mkdirSync(artifacts, { recursive: true });
  writeFileSync(new URL('key-grants.txt', artifacts), `# Grants no test of the run needed: function, action, key pattern\n${unused.map((g) => `${g.component}\t${g.action}\t${g.pattern}`).join('\n')}\n`);
  console.log(`grants used: ${used.size}; never used: ${unused.length} (test-artifacts/key-grants.txt)`);
}

/**
 * Every operation validated by Prism, no violation: prints the figures and writes the statuses
 * validated per operation to test-artifacts/contract-coverage.txt.
 */
function checkContractCoverage(records: string): boolean {
  console.log('\n== contract coverage (Prism)');
  let coverage;
  try {
    mkdirSync(records, { recursive: true });
    coverage = contractCoverage(records);
  } catch (err) {
    console.log(`== contract coverage: FAILED (${String(err)})`);
    return false;
  }
  const lines = OPERATIONS.map((r) => `${r.name}\t${r.method} ${r.path}\t${(coverage.statuses[r.name] ?? ['—']).join(' ')}`);
  const artifacts = new URL('../test-artifacts/', import.meta.url);
  mkdirSync(artifacts, { recursive: true });
  writeFileSync(
    new URL('contract-coverage.txt', artifacts),
    `# Statuses validated by Prism per operation (* only by replaying a response the proxy could not carry)\n${lines.join('\n')}\n`,
  );
  console.log(`responses validated: ${coverage.proxied + coverage.replayed} (${coverage.proxied} through the proxy, ${coverage.replayed} replayed)`);
  console.log(`operations covered: ${coverage.covered.length} of ${OPERATIONS.length}; statuses per operation in test-artifacts/contract-coverage.txt`);
  if (coverage.missing.length > 0) console.log(`not covered: ${coverage.missing.join(', ')}`);
  console.log(`response violations: ${coverage.violations.length}`);
  for (const v of coverage.violations.slice(0, 20)) console.log(`  ${v.method} ${v.path} → ${v.status}: ${v.violations.map((x) => x.message).join('; ').slice(0, 300)}`);
  const ok = coverage.missing.length === 0 && coverage.violations.length === 0 && coverage.covered.length === OPERATIONS.length;
  console.log(`== contract coverage: ${ok ? 'ok' : 'FAILED'}`);
  return ok;
}


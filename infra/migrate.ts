/**
 * `npm run migrate [-- --stage S] [--concurrency N] [--segments N]`: brings a store written by an
 * earlier version of the code to the schema version of this one (shared/domain/migrations.ts;
 * README "Deploying"), as `npm start` does before it listens.
 *
 * - Without `--stage`: the running `npm start` (same DATA_DIR), like create-admin — which has
 *   migrated its store before listening already, so this finds nothing to do.
 * - With `--stage S`: the table of the deployed stage S (the stack's TableName output), with the
 *   caller's AWS credentials and region. Run it after deploying the version that needs it; the
 *   stage serves meanwhile (README says what reads show until it ends).
 * - `--concurrency N`: titles worked on at once (default 8); `--segments N`: parallel segments of
 *   the table's Scans (default 4).
 * Stopped (Ctrl-C, a lost connection), it keeps its checkpoint: run it again to go on.
 *
 * Then, as `npm start` does, it rebuilds from the records the index of each title kind that has
 * records but no snapshot, or whose snapshot's objects are gone (a bucket emptied by hand: the
 * lists answer 503 until then; docs/decisions.md O14): one Scan of the table.
 */
import { hostname } from 'node:os';
import { commandLine, commandTarget } from './admin-command.js';
import { fail } from './local/attach.js';
import { progressBar } from './local/first-start.js';

const TOOL = 'migrate';
const USAGE = 'usage: npm run migrate [-- --stage STAGE] [--concurrency N] [--segments N]';

const args = commandLine(TOOL, USAGE, { counts: { concurrency: 8, segments: 4 } });
const concurrency = args.count('concurrency');
const segments = args.count('segments');
const where = await commandTarget(TOOL, args.string('stage'));

// Loaded once the environment names the table: the modules read it when they first write.
const { migrateStore } = await import('../shared/domain/migrations.js');
const { MigrationRunning } = await import('../shared/db/migrations.js');
const { indexesToRebuild, rebuildIndexes } = await import('../shared/domain/index-rebuild.js');
let bar: ReturnType<typeof progressBar> | null = null;
let phase = '';
try {
  const report = await migrateStore({
    concurrency,
    segments,
    // The same operator running it again from this machine goes on at once.
    holder: `${hostname()}:${process.env.TABLE_NAME}`,
    onStart: (from, to, steps) => process.stderr.write(`migrating ${where} from schema version ${from} to ${to}:\n${steps.map((s) => `  ${s.from} → ${s.to}: ${s.title}`).join('\n')}\n`),
    onProgress: (_step, p) => {
      const now = `${p.phase} ${p.pass ?? ''}`;
      if (now !== phase) {
        bar?.end();
        phase = now;
        bar = p.total === null ? null : progressBar(p.total, process.stderr, p.phase);
        if (!bar) process.stderr.write(`${p.phase}${p.pass ? `, pass ${p.pass}` : ''}\n`);
      }
      bar?.update(Math.min(p.done, p.total ?? p.done));
    },
  });
  (bar as ReturnType<typeof progressBar> | null)?.end();
  if (report.steps.length === 0) process.stderr.write(report.from === null ? `${where}: an empty store, now at schema version ${report.to}\n` : `${where} is at schema version ${report.to}: nothing to do\n`);
  const missing = await indexesToRebuild();
  if (missing.length > 0) process.stderr.write(`rebuilding the index of ${missing.map((k) => k.toLowerCase()).join(', ')} from the records…\n`);
  const rebuilt = (await rebuildIndexes(missing, segments)).filter((c) => c.version !== null).map((c) => ({ kind: c.kind, version: c.version, records: c.records }));
  process.stdout.write(`${JSON.stringify({ ...report, indexes_rebuilt: rebuilt })}\n`);
} catch (err) {
  (bar as ReturnType<typeof progressBar> | null)?.end();
  if (err instanceof MigrationRunning) fail(TOOL, err.message);
  fail(TOOL, `${(err as Error).message}\n(what it did is kept; run it again to go on)`);
}

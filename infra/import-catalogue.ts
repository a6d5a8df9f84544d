/**
 * `npm run import-catalogue [-- --stage S] [--seasons] [--concurrency N]`: imports the
 * bangumi-data catalogue (README "A real catalogue on first start") through the API's own write
 * path (shared/domain/catalogue-import.ts importTitles), as the season refresh job does: new
 * items become titles, titles that came from the source are updated field by field while they
 * hold what the import last wrote (a contributor's edit is kept), deleted ones stay deleted.
 * Running it again changes only what the source changed.
 *
 * - Without `--stage`: into the running `npm start` (same DATA_DIR), like create-admin.
 * - With `--stage S`: into the table of the deployed stage S (the stack's TableName output),
 *   with the caller's AWS credentials and region — the first import of a deployment.
 * - `--seasons`: only the current and upcoming seasons (what the daily job imports).
 */
import { commandLine, commandTarget } from './admin-command.js';
import { fail } from './local/attach.js';
import { progressBar } from './local/first-start.js';

const TOOL = 'import-catalogue';
const USAGE = 'usage: npm run import-catalogue [-- --stage STAGE] [--seasons] [--concurrency N]';

const args = commandLine(TOOL, USAGE, { flags: ['seasons'], counts: { concurrency: 8 } });
const concurrency = args.count('concurrency');
const where = await commandTarget(TOOL, args.string('stage'));

// Loaded once the environment names the table: the modules read it when they first write.
const { loadBangumiData } = await import('../shared/domain/bangumi-data.js');
const { importTitles, inSeasons, sourceCatalogue } = await import('../shared/domain/catalogue-import.js');
const now = new Date();
const catalogue = sourceCatalogue(await loadBangumiData());
const titles = args.flag('seasons') ? inSeasons(catalogue.titles, now) : catalogue.titles;
process.stderr.write(`importing ${titles.length} titles of bangumi-data (CC BY 4.0) into ${where}\n`);
const bar = progressBar(titles.length);
const started = Date.now();
const summary = await importTitles(titles, { now, concurrency, onProgress: (done) => bar.update(done) });
bar.end();
process.stdout.write(`${JSON.stringify({ ...summary, titles: titles.length, skipped: catalogue.skipped.length, seconds: (Date.now() - started) / 1000 })}\n`);
if (summary.failed > 0) fail(TOOL, `${summary.failed} titles not imported (left as they were; run it again to retry them)`);

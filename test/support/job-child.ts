/**
 * One run of a scheduled job in a process of its own, as a Lambda invocation runs it, for the
 * fault tests (test/faults/jobs-killed.test.ts):
 *
 *   node --import tsx test/support/job-child.ts <job> <ISO time> [<kill after n writes>] [<data file>]
 *
 * Reaches the table of TABLE_NAME on the engines of the environment it inherits. Counts the
 * table writes its calls make (TransactWriteItems, BatchWriteItem, PutItem, UpdateItem,
 * DeleteItem: one per call) and prints `{"writes": n, "summary": …}` on its last line when the
 * run ends. With a kill count the process sends itself SIGKILL as soon as its n-th write has
 * been answered — in the middle of its writes, with others possibly in flight, as a Lambda
 * function that is killed (timeout, out of memory, its host lost) dies. `season-refresh` with a
 * data file runs the job's import over that data set (bangumi-data's shape) instead of the
 * bundled one.
 */
import { readFileSync } from 'node:fs';
import { db } from '../../shared/db/sdk.js';
import { runJob } from './jobs.js';

const [name, at, killAfter, dataFile] = process.argv.slice(2);
if (!name || !at) throw new Error('usage: job-child.ts <job> <ISO time> [<kill after n writes>] [<data file>]');
const kill = killAfter && killAfter !== '-' ? Number(killAfter) : Infinity;

let writes = 0;
db().middlewareStack.add(
  (next, context) => async (args) => {
    if (!/^(TransactWrite|BatchWrite|Put|Update|Delete)(Items?)?Command$/.test(String(context.commandName))) return next(args);
    const out = await next(args);
    if (++writes >= kill) process.kill(process.pid, 'SIGKILL');
    return out;
  },
  { step: 'initialize', name: 'count-job-writes' },
);

const when = new Date(at);
const summary =
  dataFile && name === 'season-refresh'
    ? await (await import('../../functions/jobs/season-refresh.js')).runSeasonRefresh(when, JSON.parse(readFileSync(dataFile, 'utf8')))
    : await runJob(name, when);
process.stdout.write(`${JSON.stringify({ writes, summary })}\n`);
process.exit(0);

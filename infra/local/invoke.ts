/**
 * `npm run invoke -- <function> <event.json>`: runs one function's `handler` in this process
 * with an event from a file (see events/), against the engines of the running `npm start` (same
 * DATA_DIR), and prints what the handler returned as JSON. The function's own log lines come
 * first (set POWERTOOLS_LOG_LEVEL to change how many).
 *
 * <function> is a route name (`genres.list`), `authorizer`, `catch-all`, a job (`job.outbox`), a
 * stream consumer (`stream.mailer`), or the path of a module that exports `handler`
 * (`functions/genres/list.ts`). Local only, like dev-token.
 */
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { JOBS } from '../../functions/jobs/registry.js';
import { AUTHORIZER_ENTRY, CATCH_ALL_ENTRY, ROUTES } from '../../functions/registry.js';
import { STREAM_CONSUMERS } from '../../functions/streams/registry.js';
import { routeEntry } from '../../shared/http/route.js';
import { attachToLocal, fail } from './attach.js';
import { lambdaContext } from './functions.js';

const TOOL = 'invoke';
const USAGE = `usage: npm run invoke -- <function> <event.json>
  <function>: a route name (e.g. genres.list), authorizer, catch-all, job.<name> (e.g. job.outbox),
              stream.<name> (e.g. stream.mailer), or a module path (e.g. functions/genres/list.ts)
  <event.json>: an event file, e.g. events/api/genres-list.json, events/jobs/outbox.json`;

const SPECIAL: Record<string, string> = {
  authorizer: AUTHORIZER_ENTRY,
  'catch-all': CATCH_ALL_ENTRY,
  ...Object.fromEntries(JOBS.map((j) => [`job.${j.name}`, j.entry])),
  ...Object.fromEntries(STREAM_CONSUMERS.map((c) => [`stream.${c.name}`, c.entry])),
};

const repoRoot = resolve(new URL('../..', import.meta.url).pathname);

/** The module file and the function name (for the Lambda context) of the first argument. */
function resolveFunction(arg: string): { file: string; name: string } {
  if (Object.hasOwn(SPECIAL, arg)) return { file: resolve(repoRoot, SPECIAL[arg]!), name: arg };
  const route = ROUTES.find((r) => r.name === arg);
  if (route) return { file: resolve(repoRoot, routeEntry(route)), name: route.name };
  if (/[/\\]|\.[cm]?[jt]s$/.test(arg)) {
    const file = isAbsolute(arg) ? arg : resolve(arg);
    if (!existsSync(file)) fail(TOOL, `no such file: ${arg}`);
    const inRepo = relative(repoRoot, file);
    const declared = ROUTES.find((r) => resolve(repoRoot, routeEntry(r)) === file);
    return { file, name: declared?.name ?? inRepo.replace(/\.[cm]?[jt]s$/, '').replace(/[/\\]/g, '-') };
  }
  const group = arg.split('.')[0];
  const near = ROUTES.filter((r) => r.name.startsWith(`${group}.`)).map((r) => r.name);
  fail(TOOL, `unknown function "${arg}"${near.length > 0 ? ` (${group}: ${near.join(', ')})` : ''}\n${USAGE}`);
}

const args = process.argv.slice(2);
if (args.length !== 2 || args.includes('--help') || args.includes('-h')) fail(TOOL, USAGE);
const [fnArg, eventArg] = args as [string, string];

const target = resolveFunction(fnArg);
let event: unknown;
try {
  event = JSON.parse(readFileSync(resolve(eventArg), 'utf8'));
} catch (err) {
  fail(TOOL, `cannot read the event ${eventArg}: ${(err as Error).message}`);
}

// The functions' environment (table, engine endpoints, secret ids) of the running service.
attachToLocal(TOOL);

const mod = (await import(pathToFileURL(target.file).href)) as { handler?: unknown };
if (typeof mod.handler !== 'function') fail(TOOL, `${relative(repoRoot, target.file)} exports no handler function`);
const handler = mod.handler as (event: unknown, context: unknown) => Promise<unknown>;

try {
  const result = await handler(event, lambdaContext(target.name));
  console.log(JSON.stringify(result, null, 2));
} catch (err) {
  console.error(`${TOOL}: the handler failed:`, err);
  process.exitCode = 1;
}

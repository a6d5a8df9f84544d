/**
 * `npm run bench -- --only=fuzz`: the fuzz test of test/support/fuzz.ts at full size — every one of
 * the 151 operations a fast-check property, 133 broken requests each (20,083 in all; 8 each with
 * --quick), against the bench's local runtime (no stream poller, no jobs: only the requests write,
 * so the table's stream shows what each rejected request changed). `--seed` sets the seed.
 */
import { join } from 'node:path';
import { LOCAL_TABLE } from '../../infra/local/runtime.js';
import { fuzz } from '../support/fuzz.js';
import { send } from '../support/http.js';
import { World } from '../support/operations.js';
import { tailStream } from '../support/stream-tail.js';
import type { BenchEnv } from './local.js';
import type { BenchOptions } from './options.js';
import type { SectionBody } from './report.js';
import { table } from './stats.js';

/** Requests per operation: 151 × 133 = 20,083 (issue 9 §2: at least 20,000). */
const RUNS = 133;
const QUICK_RUNS = 8;

export async function fuzzSection(env: BenchEnv, opts: BenchOptions): Promise<SectionBody> {
  const server = { url: env.url };
  const world = new World(server);
  await world.init(join(env.dataDir, 'secrets'));
  const stream = await tailStream(env.runtime.engines.dynamodb, LOCAL_TABLE);
  try {
    const doc = (await send(server, 'GET', '/api/schema/')).body as Record<string, unknown>;
    const runs = opts.quick ? QUICK_RUNS : RUNS;
    const report = await fuzz({ server, world, doc, stream, seed: opts.seed, runs, log: (line) => console.log(`  ${line}`) });
    const rate = report.requests / report.seconds;
    const statuses = [...report.statuses].sort(([a], [b]) => a - b);
    const excluded = [...report.excluded].map(([op, n]) => `${op}: ${n}`).join('; ') || 'none';
    const body = [
      table(['Status', 'Responses'], statuses.map(([s, n]) => [String(s), String(n)])),
      '',
      `${report.requests} requests to ${report.operations} operations in ${report.seconds.toFixed(0)} s (${rate.toFixed(1)} requests/s, one at a time, each followed by a read of the table's stream); seed ${report.seed}.`,
      `Rejected (4xx) requests checked against the stream: ${report.rejected}. Stream records left out because the contract requires them of a rejected request: ${excluded}.`,
      '',
      report.failures.length === 0
        ? 'No failure: no response ≥ 500, every error a problem document of API.md §1.4, no rejected request changed the table.'
        : ['Failures (one per operation: fast-check stops at the first):', '', ...report.failures.map((f) => `- \`${f.operation}\` (seed ${f.seed}, path ${f.path}): ${f.problem.replace(/\|/g, '\\|')}`)].join('\n'),
    ].join('\n');
    return {
      method: [
        `Every operation of the OpenAPI document (\`GET /api/schema/\`) is a fast-check property over requests built from its valid request (test/support/operations.ts) and its path, query and body schemas, broken one to three ways (wrong types, out-of-range numbers, huge strings, deep nesting, invalid UTF-8, lone surrogates, duplicate keys, prototype keys, unknown fields, bad path ids, query values and cursors, content types, Authorization headers), sent by an anonymous caller, a member on their own records or an administrator on another member's; ${runs} requests per operation, seed \`--seed\` (default 1).`,
        'A request fails when its response is ≥ 500, when an error response is not a problem document of §1.4 (content type, type/title/status, detail, instance, request_id, WWW-Authenticate on 401), or when it was rejected (4xx) and the table\'s stream holds a record written while it ran (the contract\'s required writes excepted: test/support/fuzz.ts FUZZ_EXCLUSIONS).',
        'The local runtime runs no stream poller and no jobs, and the specific rate limits are off, so every stream record comes from the request that was running.',
      ],
      body,
      budgets: [
        { name: 'Fuzz: requests per run', measured: String(report.requests), limit: opts.quick ? '—' : '≥ 20,000', ok: opts.quick ? null : report.requests >= 20_000 },
        { name: 'Fuzz: failing operations (5xx, non-problem error, store changed by a rejected request)', measured: String(report.failures.length), limit: '0', ok: report.failures.length === 0 },
      ],
      summary: [`fuzz: ${report.requests} requests, ${report.failures.length} failing operations, ${rate.toFixed(1)} requests/s (seed ${report.seed})`],
    };
  } finally {
    stream.close();
    await world.close();
  }
}

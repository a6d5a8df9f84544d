/**
 * The fuzz test (issue 9 §2; test/support/fuzz.ts): all the operations (the 151 and the 2 extensions of §8), inputs from the OpenAPI
 * document and each operation's valid request, broken in the ways §2 lists, from an anonymous
 * caller, a member on their own records and an administrator on another member's. Pass: no
 * response ≥ 500, every error a problem document of §1.4, the table unchanged by every rejected
 * request (its stream carries nothing written meanwhile; no stream consumer or job runs here).
 *
 * A small budget here (FUZZ_RUNS requests per operation, default 6); `npm run bench -- --only=fuzz`
 * sends ≥ 20,000. The seed is printed; FUZZ_SEED replays a run, FUZZ_OPS ('METHOD path', comma
 * separated) restricts it to some operations.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { fuzz, fuzzOperations } from '../support/fuzz.js';
import { send } from '../support/http.js';
import { World } from '../support/operations.js';
import { SPEC_OPERATIONS } from '../support/spec.js';
import { useServer } from '../support/server.js';
import { tailStream, type StreamTail } from '../support/stream-tail.js';

const server = useServer({ background: false, contract: false });
const SEED = Number(process.env.FUZZ_SEED ?? 20261126);
const RUNS = Number(process.env.FUZZ_RUNS ?? 6);
const ONLY = process.env.FUZZ_OPS?.split(',').map((s) => s.trim());

const world = new World(server);
let stream: StreamTail;
let doc: Record<string, any>;

beforeAll(async () => {
  await world.init(join(inject('dataDir'), 'secrets'));
  stream = await tailStream(process.env.AWS_ENDPOINT_URL_DYNAMODB!, process.env.TABLE_NAME!);
  doc = (await send(server, 'GET', '/api/schema/')).body;
}, 120_000);

afterAll(async () => {
  stream?.close();
  await world.close();
});

describe('fuzz: no 5xx, problem documents, rejected requests change nothing', () => {
  it('the document has the operations, and the store check sees what a request writes', async () => {
    expect(fuzzOperations(doc)).toHaveLength(SPEC_OPERATIONS.length);
    await stream.take();
    const res = await send(server, 'POST', '/api/genres/', { body: { name: world.name('Genre') }, headers: world.admin.auth });
    expect(res.status).toBe(201);
    expect((await stream.take()).map((c) => c.event)).toContain('INSERT');
    const refused = await send(server, 'POST', '/api/genres/', { body: { name: res.body.name }, headers: world.admin.auth });
    expect(refused.status).toBe(409);
    expect(await stream.take()).toEqual([]);
  });

  it(`${RUNS} broken requests per operation (seed ${SEED})`, { timeout: 900_000 }, async () => {
    const report = await fuzz({ server, world, doc, stream, seed: SEED, runs: RUNS, only: ONLY });
    const statuses = [...report.statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s}: ${n}`).join(', ');
    console.log(
      [
        `Fuzz: seed ${report.seed} (FUZZ_SEED to replay), ${report.operations} operations, ${report.requests} requests in ${report.seconds.toFixed(1)} s (${(report.requests / report.seconds).toFixed(1)}/s).`,
        `Statuses: ${statuses}. Rejected requests checked against the stream: ${report.rejected}; records left out as the contract requires: ${[...report.excluded].map(([k, n]) => `${k} ${n}`).join(', ') || 'none'}.`,
        `Failures: ${report.failures.length}`,
        ...report.failures.map((f) => `- ${f.operation} (FUZZ_SEED=${f.seed - report.seed + SEED}, path ${f.path}): ${f.problem}`),
      ].join('\n'),
    );
    expect(report.failures.map((f) => `${f.operation}: ${f.problem}`)).toEqual([]);
    expect(report.requests).toBeGreaterThanOrEqual(report.operations * RUNS);
  });
});

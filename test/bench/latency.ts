/**
 * §9 "Warm handler overhead": a detail GET through the full middleware chain against a bare
 * GetItem of the same item on the same engine with the same client. Three measurements,
 * interleaved so that drift and background load hit them alike:
 *   (a) GET /api/genres/{id}/ over HTTP through the local gateway,
 *   (b) the genres.get function module invoked directly with a payload 2.0 event,
 *   (c) a bare GetCommand with exactly the input the function sends (captured by the recorder).
 */
import { GetCommand, type GetCommandInput } from '@aws-sdk/lib-dynamodb';
import { db } from '../../shared/db/sdk.js';
import type { ApiEvent, ApiResult } from '../../shared/http/handler.js';
import { routeEntry } from '../../shared/http/route.js';
import { insertGenre } from './fixtures.js';
import { lambdaContext, loadHandler } from '../../infra/local/functions.js';
import { invokeDirect, prepareEvent } from './invoke.js';
import type { BenchEnv } from './local.js';
import type { BenchOptions } from './options.js';
import type { SectionBody } from './report.js';
import { median, ms, percentile, ratio, table, timed } from './stats.js';

export const DETAIL_BUDGET = 1.5;

/** Stores a genre and returns its path and the GetItem input its detail function sends. */
export async function detailTarget(env: BenchEnv, label: string): Promise<{ id: string; path: string; getInput: GetCommandInput }> {
  const id = await insertGenre(`Bench ${label} ${process.pid}`, 'A genre read by the benchmarks.');
  const path = `/api/genres/${id}/`;
  const r = await invokeDirect(prepareEvent({ method: 'GET', path }, env.host), env.sdk);
  if (r.result.statusCode !== 200) throw new Error(`GET ${path}: ${r.result.statusCode} ${r.result.body ?? ''}`);
  const gets = r.functionCalls.filter((c) => c.operation === 'GetItem');
  if (gets.length !== 1 || r.functionCalls.length !== 1) {
    throw new Error(`GET ${path} made ${r.functionCalls.map((c) => c.operation).join(', ') || 'no calls'}; expected one GetItem`);
  }
  return { id, path, getInput: gets[0]!.input as GetCommandInput };
}

export async function latencySection(env: BenchEnv, opts: BenchOptions): Promise<SectionBody> {
  const warmup = opts.quick ? 20 : 50;
  const iterations = opts.quick ? 100 : 500;
  const { path, getInput } = await detailTarget(env, 'latency');
  const prepared = prepareEvent({ method: 'GET', path }, env.host);
  const handler = await loadHandler<ApiEvent, ApiResult>(routeEntry(prepared.route));

  const variants = [
    {
      key: 'a',
      label: '(a) HTTP GET through the local gateway',
      run: async () => {
        const { ms: t, value: res } = await timed(() => env.http.request('GET', path));
        if (res.status !== 200) throw new Error(`(a) GET ${path}: ${res.status}`);
        return t;
      },
    },
    {
      key: 'b',
      label: '(b) genres.get handler invoked directly (full middleware chain, no HTTP)',
      run: async () => {
        // A new event per call, as Lambda delivers; built outside the timed part.
        const { event } = prepareEvent({ method: 'GET', path }, env.host);
        const context = lambdaContext(prepared.route.name);
        const { ms: t, value: res } = await timed(() => handler(event, context));
        if (res.statusCode !== 200) throw new Error(`(b) ${path}: ${res.statusCode}`);
        return t;
      },
    },
    {
      key: 'c',
      label: '(c) bare GetCommand, same input, same client',
      run: async () => {
        const { ms: t, value: out } = await timed(() => db().send(new GetCommand(getInput)));
        if (!out.Item) throw new Error('(c) the item is missing');
        return t;
      },
    },
  ] as const;

  const samples: Record<string, number[]> = { a: [], b: [], c: [] };
  for (let i = 0; i < warmup + iterations; i++) {
    // Rotate the order each round so no variant always follows another.
    for (let j = 0; j < variants.length; j++) {
      const v = variants[(i + j) % variants.length]!;
      const t = await v.run();
      if (i >= warmup) samples[v.key]!.push(t);
    }
  }
  const med = (k: string) => median(samples[k]!);
  const ba = med('b') / med('c');
  const aa = med('a') / med('c');
  const rows = variants.map((v) => [v.label, ms(med(v.key), 3), ms(percentile(samples[v.key]!, 90), 3), ms(percentile(samples[v.key]!, 99), 3), ratio(med(v.key) / med('c'))]);
  const body = [
    table(['Measurement', 'Median', 'p90', 'p99', 'Median / (c)'], rows),
    '',
    `Overhead of the function (middleware chain, validation, logging, representation) over the bare GetItem: ${ms(med('b') - med('c'), 3)} per request (median difference).`,
    `The local gateway and HTTP (client and server on loopback, event building) add ${ms(med('a') - med('b'), 3)} on top.`,
    '',
  ].join('\n');
  return {
    method: [
      `One genre; ${warmup} warm-up rounds, then ${iterations} measured rounds; each round runs (a), (b) and (c) once, in rotating order.`,
      '(a) `GET /api/genres/{id}/` over HTTP (keep-alive node:http client in this process) through the local gateway; (b) the `functions/genres/get.ts` handler called with a new payload 2.0 event per call; (c) a bare `GetCommand` with the input the function sends (captured from the function itself), on the same document client.',
      `Budget (DESIGN §9): median (b) / median (c) ≤ ${DETAIL_BUDGET}.`,
    ],
    body,
    budgets: [
      { name: 'Warm detail GET: handler (b) / bare GetItem (c)', measured: `${ratio(ba)} (${ms(med('b'), 3)} vs ${ms(med('c'), 3)})`, limit: `≤ ${DETAIL_BUDGET}×`, ok: ba <= DETAIL_BUDGET },
      { name: 'Warm detail GET: HTTP via gateway (a) / bare GetItem (c)', measured: `${ratio(aa)} (${ms(med('a'), 3)})`, limit: '—', ok: null },
    ],
    summary: [`latency: median (a) ${ms(med('a'))}, (b) ${ms(med('b'))}, (c) ${ms(med('c'))}; (b)/(c) ${ratio(ba)} (budget ≤ ${DETAIL_BUDGET}×), (a)/(c) ${ratio(aa)}`],
  };
}

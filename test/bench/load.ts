/**
 * The `load` and `cost` sections (issue 9 §4 "Load", §5 "What it costs to run"), over the
 * community store of the community section (community.ts `ensureStore`: MyAnimeList's title counts
 * and community at `--scale mal`, kept in DATA_DIR and reused; `small` in memory for a quick run).
 *
 * load: autocannon (a process of its own, autocannon-mix.mjs) sends the read mix and the write
 * mix of workloads.ts through the local gateway, each request once, 10 connections; the same
 * number of requests to a bare node:http server doing one GetItem of an anime record per request
 * on the same engine. Reported: requests/s, p50/p99 (overall and per route), every unexpected
 * status (the target is 0), and the throughput ratio to the bare server.
 *
 * cost: every kind of request of both mixes invoked directly (invoke.ts: the events API Gateway
 * sends, the authorizer first on signed-in routes), one at a time, measuring per invocation the
 * CPU time and wall time of this process, the DynamoDB calls (and their rounds: calls made
 * together count once), the read and write units DynamoDB Local reports, the response and log
 * bytes. From those and the prices of prices.ts: the cost per million requests of each mix, each
 * function's memory (the cheapest that keeps its modelled p99 within budget), and the month at
 * 100 million requests. The model's assumptions are printed with it (docs/cost.md explains them).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { constants as perfConstants, PerformanceObserver } from 'node:perf_hooks';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { GetCommandInput } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayRequestAuthorizerEventV2 } from 'aws-lambda';
import { AUTHORIZER_ENTRY } from '../../functions/registry.js';
import { FUNCTION_MEMORY, FUNCTION_MEMORY_FILE, type FunctionMemory } from '../../infra/function-memory.js';
import { lambdaContext, loadHandler } from '../../infra/local/functions.js';
import type { ApiEvent, ApiResult, AuthorizerContext } from '../../shared/http/handler.js';
import { routeEntry } from '../../shared/http/route.js';
import { tableName } from '../../shared/db/client.js';
import { ensureStore, jobsHarness, type Store } from './community.js';
import { prepareEvent } from './invoke.js';
import { loggedBytes, type BenchEnv } from './local.js';
import type { BenchOptions } from './options.js';
import { LAMBDA_FULL_VCPU_MB, LAMBDA_MEMORY_STEPS, PRICES } from './prices.js';
import type { BudgetCheck, SectionBody } from './report.js';
import { rounds, type SdkCall } from './sdk-calls.js';
import { bareServer } from './throughput.js';
import { int, median, percentile, ratio, table } from './stats.js';
import { freshUsers, readMix, writeMix, type LoadRequest } from './workloads.js';
import { titleRecordKey } from './load-community.js';

const run = promisify(execFile);
const MIX_RUNNER = fileURLToPath(new URL('./autocannon-mix.mjs', import.meta.url));
const CONNECTIONS = 10;

/** The store of the community section, under its table (TABLE_NAME is set while a section runs). */
async function withStore<T>(env: BenchEnv, opts: BenchOptions, fn: (store: Store) => Promise<T>): Promise<T> {
  const tableName = `bench-community-${opts.scale}-s${opts.seed}`;
  const previous = process.env.TABLE_NAME;
  process.env.TABLE_NAME = tableName;
  try {
    const store = await ensureStore(env, opts, tableName, opts.keepCommunity);
    // A store loaded now has no job results yet: the top lists and recommendations the mixes read are made first.
    if (!store.reused) await jobsHarness(env);
    return await fn(store);
  } finally {
    process.env.TABLE_NAME = previous;
  }
}

// ---- load

interface MixResult {
  requests: number;
  seconds: number;
  rps: number;
  latency: { p50: number; p90: number; p99: number; max: number };
  errors: number;
  timeouts: number;
  statuses: Record<string, number>;
  unexpectedCount: number;
  unexpected: { route: string; method: string; path: string; status: number; body: string }[];
  routes: Record<string, { n: number; p50: number; p99: number }>;
}

async function autocannonMix(url: string, requests: readonly Omit<LoadRequest, 'fn'>[]): Promise<MixResult> {
  const dir = mkdtempSync(join(tmpdir(), 'load-mix-'));
  try {
    const file = join(dir, 'requests.json');
    writeFileSync(file, JSON.stringify(requests));
    const { stdout } = await run(process.execPath, [MIX_RUNNER, url, file, String(CONNECTIONS)], {
      maxBuffer: 64 * 1024 * 1024,
      env: { PATH: process.env.PATH ?? '', NODE_OPTIONS: '' },
    });
    return JSON.parse(stdout) as MixResult;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const failuresOf = (r: MixResult) => r.unexpectedCount + r.errors + r.timeouts;

export async function loadSection(env: BenchEnv, opts: BenchOptions): Promise<SectionBody> {
  return withStore(env, opts, async (store) => {
    const readsPerRound = opts.quick ? 400 : 4000;
    const writesPerRound = opts.quick ? 200 : 1500;
    const rounds = opts.quick ? 1 : 3;
    const runId = Date.now().toString(36);
    // The bare server reads an anime record (a popular one, as the read mix's details do).
    const animeId = store.titleId('anime', store.comm.popular('anime')[0]!);
    await env.http.expect(200, 'GET', `/api/animes/${animeId}/`);
    const get: GetCommandInput = { TableName: tableName(), Key: titleRecordKey('anime', animeId) };
    const bare = await bareServer(get);
    const pause = env.sdk.pause();
    const results: { what: string; result: MixResult }[] = [];
    try {
      // Warm-up (not counted): every function of both mixes loaded and its clients connected.
      const fresh = await freshUsers(`${runId}w`, 50);
      await autocannonMix(env.url, await readMix(store, opts.quick ? 200 : 1000, 1));
      await autocannonMix(env.url, await writeMix(store, opts.quick ? 100 : 300, 2, fresh));
      await autocannonMix(bare.url, Array.from({ length: 500 }, () => ({ route: 'bare', method: 'GET' as const, path: '/', expect: 200 })));
      for (let r = 0; r < rounds; r++) {
        const users = await freshUsers(`${runId}r${r}`, opts.quick ? 100 : 600);
        // Requests are drawn before the clock starts (tokens signed, bodies built).
        const reads = await readMix(store, readsPerRound, 100 + r);
        const writes = await writeMix(store, writesPerRound, 200 + r, users);
        const bareList = Array.from({ length: readsPerRound }, () => ({ route: 'bare GetItem', method: 'GET' as const, path: '/', expect: 200 }));
        const order = r % 2 === 0 ? (['reads', 'bare', 'writes'] as const) : (['bare', 'reads', 'writes'] as const);
        for (const what of order) {
          const list = what === 'reads' ? reads : what === 'writes' ? writes : bareList;
          results.push({ what, result: await autocannonMix(what === 'bare' ? bare.url : env.url, list) });
        }
      }
    } finally {
      pause();
      await new Promise<void>((resolve) => {
        bare.server.closeAllConnections();
        bare.server.close(() => resolve());
      });
    }
    return renderLoad(opts, store, results);
  });
}

function renderLoad(opts: BenchOptions, store: Store, results: { what: string; result: MixResult }[]): SectionBody {
  const of = (what: string) => results.filter((r) => r.what === what).map((r) => r.result);
  const agg = (what: string) => {
    const rs = of(what);
    return {
      rps: median(rs.map((r) => r.rps)),
      p50: median(rs.map((r) => r.latency.p50)),
      p99: median(rs.map((r) => r.latency.p99)),
      max: Math.max(...rs.map((r) => r.latency.max)),
      requests: rs.reduce((n, r) => n + r.requests, 0),
      failures: rs.reduce((n, r) => n + failuresOf(r), 0),
      perRound: rs.map((r) => int(r.rps)).join(' / '),
    };
  };
  const reads = agg('reads');
  const writes = agg('writes');
  const bare = agg('bare');
  const routeRows = (what: string) => {
    const merged = new Map<string, { n: number; p50s: number[]; p99s: number[] }>();
    for (const r of of(what)) {
      for (const [route, s] of Object.entries(r.routes)) {
        const m = merged.get(route) ?? { n: 0, p50s: [], p99s: [] };
        m.n += s.n;
        m.p50s.push(s.p50);
        m.p99s.push(s.p99);
        merged.set(route, m);
      }
    }
    return [...merged].sort((a, b) => b[1].n - a[1].n).map(([route, m]) => [route, int(m.n), `${median(m.p50s).toFixed(0)} ms`, `${median(m.p99s).toFixed(0)} ms`]);
  };
  const unexpected = results.flatMap((r) => r.result.unexpected.map((u) => `${r.what}: ${u.method} ${u.path} → ${u.status} ${u.body}`)).slice(0, 10);
  const budgets: BudgetCheck[] = [
    { name: 'Load: errors (unexpected statuses, socket errors, timeouts)', measured: `reads ${reads.failures} of ${int(reads.requests)}, writes ${writes.failures} of ${int(writes.requests)}`, limit: '0', ok: reads.failures === 0 && writes.failures === 0 },
    { name: 'Load: read mix throughput / bare node:http GetItem', measured: `${ratio(reads.rps / bare.rps)} (${int(reads.rps)} vs ${int(bare.rps)} req/s)`, limit: '—', ok: null },
    { name: 'Load: read mix p50 / p99', measured: `${reads.p50} / ${reads.p99} ms`, limit: '—', ok: null },
    { name: 'Load: write mix p50 / p99', measured: `${writes.p50} / ${writes.p99} ms (${int(writes.rps)} req/s)`, limit: '—', ok: null },
  ];
  const body = [
    `Store: scale \`${opts.scale}\` (${int(store.cat.sizes.anime)} animes, ${int(store.cat.sizes.manga)} mangas, ${int(store.comm.sizes.users)} users, ${int(store.report.items)} list items, ${int(store.report.reviews)} reviews), ${store.kept ? `kept in \`${opts.dataDir}\`` : 'in memory'}.`,
    '',
    table(
      ['Workload', 'Requests', 'Requests/s (median of rounds)', 'Per round', 'p50', 'p99', 'max', 'Errors', 'Throughput / bare'],
      [
        ['read mix (local gateway)', int(reads.requests), int(reads.rps), reads.perRound, `${reads.p50} ms`, `${reads.p99} ms`, `${reads.max} ms`, reads.failures, ratio(reads.rps / bare.rps)],
        ['write mix (local gateway)', int(writes.requests), int(writes.rps), writes.perRound, `${writes.p50} ms`, `${writes.p99} ms`, `${writes.max} ms`, writes.failures, ratio(writes.rps / bare.rps)],
        ['bare node:http, one GetItem', int(bare.requests), int(bare.rps), bare.perRound, `${bare.p50} ms`, `${bare.p99} ms`, `${bare.max} ms`, bare.failures, '1.00×'],
      ],
    ),
    '',
    '#### Read mix, per route (latency from the load process: handing the request to autocannon → its response)',
    '',
    table(['Route', 'Requests', 'p50', 'p99'], routeRows('reads')),
    '',
    '#### Write mix, per route',
    '',
    table(['Route', 'Requests', 'p50', 'p99'], routeRows('writes')),
    '',
    ...(unexpected.length > 0 ? ['Unexpected responses (first 10):', '', ...unexpected.map((u) => `- ${u}`), ''] : []),
  ].join('\n');
  return {
    method: [
      `autocannon in a process of its own (autocannon-mix.mjs), ${CONNECTIONS} connections, keep-alive; each request of a prepared list sent once (\`amount\`); a warm-up of both mixes first (not counted).`,
      'Read mix (workloads.ts): details 45 % (animes 30, mangas 10, characters 3, persons 2), filtered lists 15 %, search 10 %, seasons 5 %, the schedule 5 %, top lists 8 %, reviews and stats 6 %, the caller\'s own list 5 % (signed in), recommendations 2 %, home 1 %; titles drawn by popularity.',
      'Write mix: list-item edits by their owners 45 %, list items added 25 %, helpful votes 20 %, reviews written 10 % (by accounts made for the round).',
      'Bare: node:http in the bench process doing the GetItem the anime detail function sends, returning the record as JSON. Rounds alternate which of reads and bare goes first; medians over rounds.',
    ],
    body,
    budgets,
    summary: [`load: reads ${int(reads.rps)} req/s (p50 ${reads.p50} ms, p99 ${reads.p99} ms, ${ratio(reads.rps / bare.rps)} of bare ${int(bare.rps)}), writes ${int(writes.rps)} req/s (p50 ${writes.p50} ms, p99 ${writes.p99} ms); errors ${reads.failures + writes.failures}`],
  };
}

// ---- cost

/**
 * DynamoDB's latency per call on AWS, as the model assumes it (p50 and p99, ms, in-region, warm
 * connection): AWS documents "single-digit millisecond" reads; these are typical figures, not
 * measurements of this project (DynamoDB Local's own latency says nothing about DynamoDB's).
 */
const AWS_LATENCY: Record<string, [p50: number, p99: number]> = {
  GetItem: [3, 10],
  BatchGetItem: [5, 15],
  Query: [5, 15],
  PutItem: [5, 15],
  UpdateItem: [5, 15],
  DeleteItem: [5, 15],
  BatchWriteItem: [8, 25],
  TransactWriteItems: [12, 40],
};
/** Per function, p99 of the modelled duration the memory is chosen for (ms). */
const BUDGET_MS = { read: 100, write: 200 };
/** Memory a function needs besides its CPU: the Node.js runtime, its bundle and a working heap (MB); the cold-start section's RSS after a first request is about 70–90 MB. */
const MIN_MEMORY_MB = 256;
/** An execution environment serves this long before Lambda recycles it (observed 5–60 minutes; not published). */
const ENV_LIFETIME_MINUTES = 30;
/** Jikan's order of traffic (the issue): requests a month, and the share of writes assumed for it. */
const MONTHLY_REQUESTS = 100_000_000;
const WRITE_SHARE = 0.05;
/** Billed init of a cold start per function (the runtime's start, the module load, the first request's SDK import and connection), ms: an assumption above the `bundles` section's cold-start measure. */
const DEFAULT_INIT_MS = 150;

interface Invocation {
  cpuMs: number;
  wallMs: number;
  calls: SdkCall[];
  rounds: string[][];
  rru: number;
  wru: number;
  responseBytes: number;
  logBytes: number;
}

interface Profile {
  route: string;
  fn: string;
  kind: 'read' | 'write';
  samples: number;
  /** Samples left out: a major collection of the bench process ran during them. */
  dropped: number;
  fnInv: Invocation[];
  authInv: Invocation[];
}

function invocationOf(cpu: NodeJS.CpuUsage, wallMs: number, calls: SdkCall[], responseBytes: number, logBytes: number): Invocation {
  const dyn = calls.filter((c) => c.service === 'dynamodb');
  return {
    cpuMs: (cpu.user + cpu.system) / 1000,
    wallMs,
    calls: dyn,
    rounds: rounds(dyn).map((r) => r.map((c) => c.operation)),
    rru: dyn.reduce((n, c) => n + (c.capacity ?? 0), 0),
    wru: dyn.reduce((n, c) => n + (c.writeCapacity ?? 0), 0),
    responseBytes,
    logBytes,
  };
}

/**
 * Major collections of the bench process (which holds the generated store: hundreds of MB), as
 * [start, end] in performance.now() time. A sample during which one ran is left out: its CPU time
 * would include a pause of a heap no function has (forcing a collection before each sample instead
 * made every function slower: V8 then drops the compiled code it ages).
 */
const majorCollections: [number, number][] = [];
let gcObserver: PerformanceObserver | null = null;
function watchCollections(): void {
  gcObserver ??= new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if ((e as { detail?: { kind?: number } | null }).detail?.kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR) majorCollections.push([e.startTime, e.startTime + e.duration]);
  });
  gcObserver.observe({ entryTypes: ['gc'] });
}
/** Whether a major collection overlapped [t0, t1] (the observer's entries arrive after a timer turn). */
async function collectedDuring(t0: number, t1: number): Promise<boolean> {
  await new Promise((resolve) => setTimeout(resolve, 0));
  return majorCollections.some(([a, b]) => a < t1 && b > t0);
}

/** Invokes the request's authorizer (signed-in routes) and function as API Gateway would, measuring each. */
async function invokeMeasured(env: BenchEnv, req: LoadRequest): Promise<{ fn: Invocation; auth: Invocation | null; status: number; collected: boolean }> {
  const token = req.headers?.authorization?.replace(/^Bearer /, '');
  const prepared = prepareEvent({ method: req.method, path: req.path, body: req.body, ...(token ? { token } : {}) }, env.host);
  let auth: Invocation | null = null;
  env.sdk.take();
  const start = performance.now();
  if (prepared.authorizerEvent) {
    const authorize = await loadHandler<APIGatewayRequestAuthorizerEventV2, { isAuthorized: boolean; context: AuthorizerContext }>(AUTHORIZER_ENTRY);
    const logs0 = loggedBytes();
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const out = await authorize(prepared.authorizerEvent, lambdaContext('authorizer'));
    auth = invocationOf(process.cpuUsage(cpu0), performance.now() - t0, env.sdk.take(), 0, loggedBytes() - logs0);
    if (!out.isAuthorized) throw new Error(`the authorizer denied ${req.route}`);
    prepared.event.requestContext.authorizer = { lambda: out.context };
  }
  const handler = await loadHandler<ApiEvent, ApiResult>(routeEntry(prepared.route));
  const logs0 = loggedBytes();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const result = await handler(prepared.event, lambdaContext(prepared.route.name));
  const fn = invocationOf(process.cpuUsage(cpu0), performance.now() - t0, env.sdk.take(), Buffer.byteLength(result.body ?? ''), loggedBytes() - logs0);
  return { fn, auth, status: result.statusCode, collected: await collectedDuring(start, performance.now()) };
}

/** Modelled duration on Lambda at `memory` MB: the CPU time stretched by the memory's share of a vCPU, plus DynamoDB's round trips. */
function modelledMs(inv: Invocation, memory: number, q: 0 | 1): number {
  const cpu = inv.cpuMs * Math.max(1, LAMBDA_FULL_VCPU_MB / memory);
  const io = inv.rounds.reduce((n, round) => n + Math.max(...round.map((op) => (AWS_LATENCY[op] ?? [10, 30])[q])), 0);
  return cpu + io;
}

interface FunctionCost {
  fn: string;
  kind: 'read' | 'write';
  memory: number;
  p50: number;
  p99: number;
  /** Per invocation, USD. */
  lambda: number;
}

function chooseMemory(fn: string, kind: 'read' | 'write', invs: Invocation[]): FunctionCost {
  const budget = BUDGET_MS[kind];
  const price = (m: number) => median(invs.map((i) => modelledMs(i, m, 0))) / 1000 * (m / 1024) * PRICES.lambdaArmPerGbSecond;
  const steps = LAMBDA_MEMORY_STEPS.filter((m) => m >= MIN_MEMORY_MB);
  const within = steps.filter((m) => percentile(invs.map((i) => modelledMs(i, m, 1)), 99) <= budget);
  const memory = (within.length > 0 ? within : [steps[steps.length - 1]!]).reduce((a, b) => (price(b) < price(a) ? b : a));
  return { fn, kind, memory, p50: median(invs.map((i) => modelledMs(i, memory, 0))), p99: percentile(invs.map((i) => modelledMs(i, memory, 1)), 99), lambda: price(memory) };
}

/**
 * Writes the chosen memory per function to infra/function-memory.json (infra/function-memory.ts),
 * with the setting chosen most often for each kind as the default of the functions the workloads
 * do not exercise (the larger one on a tie). Returns the file's path.
 */
function saveMemory(opts: BenchOptions, costs: FunctionCost[]): string {
  const mode = (kind: 'read' | 'write') => {
    const counts = new Map<number, number>();
    for (const c of costs.filter((x) => x.kind === kind)) counts.set(c.memory, (counts.get(c.memory) ?? 0) + 1);
    const best = [...counts].sort((a, b) => b[1] - a[1] || b[0] - a[0])[0];
    return best?.[0] ?? FUNCTION_MEMORY.default[kind];
  };
  const file: FunctionMemory = {
    chosenBy: `npm run bench -- --only=cost --save-memory (scale ${opts.scale}, seed ${opts.seed}, ${new Date().toISOString().slice(0, 10)}; budgets p99 ${BUDGET_MS.read} ms reads, ${BUDGET_MS.write} ms writes; docs/cost.md)`,
    default: { read: mode('read'), write: mode('write') },
    functions: Object.fromEntries(costs.map((c) => [c.fn, c.memory] as const).sort(([a], [b]) => a.localeCompare(b))),
  };
  const path = fileURLToPath(FUNCTION_MEMORY_FILE);
  writeFileSync(path, `${JSON.stringify(file, null, 2)}\n`);
  return path;
}

export async function costSection(env: BenchEnv, opts: BenchOptions): Promise<SectionBody> {
  return withStore(env, opts, async (store) => {
    const samplesPerRoute = opts.quick ? 5 : 30;
    const runId = `c${Date.now().toString(36)}`;
    env.sdk.measureCapacity = true;
    watchCollections();
    try {
      const users = await freshUsers(runId, opts.quick ? 100 : 400);
      const reads = await readMix(store, opts.quick ? 600 : 4000, 300);
      const writes = await writeMix(store, opts.quick ? 300 : 2000, 301, users);
      const profiles = new Map<string, Profile>();
      const share = new Map<string, number>();
      for (const [kind, list] of [['read', reads], ['write', writes]] as const) {
        for (const req of list) share.set(`${kind}\u0000${req.route}`, (share.get(`${kind}\u0000${req.route}`) ?? 0) + 1 / list.length);
        for (const req of list) {
          const key = `${kind}\u0000${req.route}`;
          let p = profiles.get(key);
          if (!p) profiles.set(key, (p = { route: req.route, fn: req.fn, kind, samples: 0, dropped: 0, fnInv: [], authInv: [] }));
          // The first request of a route warms its function (module loaded, clients connected): not counted.
          if (p.samples === 0 && p.fnInv.length === 0) {
            const warm = await invokeMeasured(env, req);
            if (warm.status !== req.expect) throw new Error(`${req.method} ${req.path}: ${warm.status}`);
            p.samples = -1;
            continue;
          }
          if (p.fnInv.length >= samplesPerRoute) continue;
          const r = await invokeMeasured(env, req);
          if (r.status !== req.expect) throw new Error(`${req.method} ${req.path}: ${r.status}`);
          if (r.collected) {
            p.dropped++;
            continue;
          }
          p.fnInv.push(r.fn);
          if (r.auth) p.authInv.push(r.auth);
        }
      }
      return renderCost(opts, [...profiles.values()].filter((p) => p.fnInv.length > 0), share);
    } finally {
      env.sdk.measureCapacity = false;
      gcObserver?.disconnect();
    }
  });
}

function renderCost(opts: BenchOptions, profiles: Profile[], share: Map<string, number>): SectionBody {
  const byFn = new Map<string, { kind: 'read' | 'write'; invs: Invocation[] }>();
  for (const p of profiles) {
    const f = byFn.get(p.fn) ?? { kind: p.kind, invs: [] };
    f.invs.push(...p.fnInv);
    byFn.set(p.fn, f);
  }
  const authInvs = profiles.flatMap((p) => p.authInv);
  const fnCosts = new Map([...byFn].map(([fn, f]) => [fn, chooseMemory(fn, f.kind, f.invs)]));
  const authCost = authInvs.length > 0 ? chooseMemory('authorizer', 'read', authInvs) : null;
  const saved = opts.saveMemory ? saveMemory(opts, [...fnCosts.values(), ...(authCost ? [authCost] : [])]) : null;
  const mean = (xs: number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);
  /** Cost per request of one route, split by service (USD). */
  const routeCost = (p: Profile) => {
    const fc = fnCosts.get(p.fn)!;
    const inv = p.fnInv;
    const authShare = p.authInv.length / p.fnInv.length;
    const invocations = 1 + authShare;
    const rru = mean(inv.map((i) => i.rru)) + authShare * mean(p.authInv.map((i) => i.rru));
    const wru = mean(inv.map((i) => i.wru));
    const bytesOut = mean(inv.map((i) => i.responseBytes)) + 600; // + headers
    const logBytes = mean(inv.map((i) => i.logBytes)) + authShare * mean(p.authInv.map((i) => i.logBytes)) + 2 * 250 * invocations; // + Lambda's START/END/REPORT lines
    return {
      api: PRICES.httpApiPerMillion / 1e6,
      lambdaRequests: (invocations * PRICES.lambdaPerMillionRequests) / 1e6,
      lambdaDuration: fc.lambda + authShare * (authCost?.lambda ?? 0),
      dynamo: (rru * PRICES.dynamoPerMillionRru + wru * PRICES.dynamoPerMillionWru) / 1e6,
      logs: (logBytes / 1e9) * PRICES.logsIngestPerGb,
      transfer: (bytesOut / 1e9) * PRICES.transferOutPerGb,
      rru,
      wru,
      invocations,
    };
  };
  type Split = ReturnType<typeof routeCost>;
  const SERVICES = ['api', 'lambdaRequests', 'lambdaDuration', 'dynamo', 'logs', 'transfer'] as const;
  const total = (c: Split) => SERVICES.reduce((n, k) => n + c[k], 0);
  const mixCost = (kind: 'read' | 'write') => {
    const acc: Record<(typeof SERVICES)[number], number> = { api: 0, lambdaRequests: 0, lambdaDuration: 0, dynamo: 0, logs: 0, transfer: 0 };
    const rows: { route: string; share: number; perRequest: number; split: Split }[] = [];
    for (const p of profiles.filter((x) => x.kind === kind)) {
      const s = share.get(`${kind}\u0000${p.route}`) ?? 0;
      const c = routeCost(p);
      for (const k of SERVICES) acc[k] += s * c[k];
      rows.push({ route: p.route, share: s, perRequest: total(c), split: c });
    }
    return { acc, rows: rows.sort((a, b) => b.share * b.perRequest - a.share * a.perRequest) };
  };
  const readMixCost = mixCost('read');
  const writeMixCost = mixCost('write');
  const perMillion = (acc: Record<string, number>) => SERVICES.reduce((n, k) => n + acc[k]!, 0) * 1e6;
  // Cold starts: environments needed ≈ concurrency = rate × duration, each recycled every ENV_LIFETIME_MINUTES.
  const monthlyRate = MONTHLY_REQUESTS / (30 * 24 * 3600);
  const coldShare = (fnShare: number, p50ms: number) => {
    const rate = monthlyRate * fnShare;
    if (rate === 0) return 0;
    const environments = Math.max(1, rate * (p50ms / 1000));
    return Math.min(1, environments / (ENV_LIFETIME_MINUTES * 60) / rate);
  };
  const fnShares = new Map<string, number>();
  for (const p of profiles) {
    const s = (share.get(`${p.kind}\u0000${p.route}`) ?? 0) * (p.kind === 'write' ? WRITE_SHARE : 1 - WRITE_SHARE);
    fnShares.set(p.fn, (fnShares.get(p.fn) ?? 0) + s);
  }
  let coldCost = 0;
  let coldInvocations = 0;
  for (const [fn, s] of fnShares) {
    const fc = fnCosts.get(fn)!;
    const cs = coldShare(s, fc.p50);
    coldInvocations += cs * s;
    coldCost += cs * s * MONTHLY_REQUESTS * (DEFAULT_INIT_MS / 1000) * (fc.memory / 1024) * PRICES.lambdaArmPerGbSecond;
  }
  const monthly = {
    requests: MONTHLY_REQUESTS * ((1 - WRITE_SHARE) * perMillion(readMixCost.acc) + WRITE_SHARE * perMillion(writeMixCost.acc)) / 1e6,
    cold: coldCost,
    fixed: 6 * PRICES.secretMonth,
  };
  const usd = (v: number, d = 2) => `$${v.toFixed(d)}`;
  const splitRow = (name: string, acc: Record<string, number>) => [name, ...SERVICES.map((k) => usd(acc[k]! * 1e6)), `**${usd(perMillion(acc))}**`];
  const fnRows = [...fnCosts.values(), ...(authCost ? [authCost] : [])]
    .sort((a, b) => a.fn.localeCompare(b.fn))
    .map((f) => {
      const invs = f.fn === 'authorizer' ? authInvs : byFn.get(f.fn)!.invs;
      return [f.fn, f.kind, invs.length, `${median(invs.map((i) => i.cpuMs)).toFixed(1)} / ${percentile(invs.map((i) => i.cpuMs), 99).toFixed(1)} ms`, median(invs.map((i) => i.rounds.length)), `${f.memory} MB`, `${f.p50.toFixed(0)} / ${f.p99.toFixed(0)} ms`, `${usd(f.lambda * 1e6)}`];
    });
  const topRows = (rows: { route: string; share: number; perRequest: number; split: Split }[]) =>
    rows.slice(0, 12).map((r) => [r.route, `${(r.share * 100).toFixed(1)} %`, usd(r.perRequest * 1e6), `${((r.share * r.perRequest) / rows.reduce((n, x) => n + x.share * x.perRequest, 0) * 100).toFixed(1)} %`, r.split.rru.toFixed(1), r.split.wru.toFixed(1), r.split.invocations.toFixed(0)]);
  const monthlyTotal = monthly.requests + monthly.cold + monthly.fixed;
  const body = [
    `Prices: AWS ${PRICES.region} list prices of ${PRICES.date} (test/bench/prices.ts). Store: scale \`${opts.scale}\`.`,
    '',
    '#### Per million requests, by service',
    '',
    table(['Workload', 'API Gateway', 'Lambda requests', 'Lambda duration', 'DynamoDB', 'CloudWatch Logs', 'Data out', 'Total'], [splitRow('read mix', readMixCost.acc), splitRow('write mix', writeMixCost.acc)]),
    '',
    `#### A month at ${int(MONTHLY_REQUESTS)} requests (${((1 - WRITE_SHARE) * 100).toFixed(0)} % read mix, ${(WRITE_SHARE * 100).toFixed(0)} % write mix)`,
    '',
    table(
      ['Part', 'USD / month'],
      [
        ['requests (the mixes above)', usd(monthly.requests)],
        [`cold starts (${(coldInvocations * 100).toFixed(3)} % of invocations; init ${DEFAULT_INIT_MS} ms at the function's memory)`, usd(monthly.cold)],
        ['secrets (6 × secret-month; their reads are cached per environment)', usd(monthly.fixed)],
        ['**total, without storage**', `**${usd(monthlyTotal)}**`],
      ],
    ),
    '',
    `Storage is apart: DynamoDB ${usd(PRICES.dynamoStorageGbMonth)} and PITR ${usd(PRICES.dynamoPitrGbMonth)} per GB-month (the MyAnimeList-scale store is ~13–17 GB of items: about ${usd(15 * (PRICES.dynamoStorageGbMonth + PRICES.dynamoPitrGbMonth))} a month); pictures in S3 ${usd(PRICES.s3StorageGbMonth, 3)} per GB-month; e-mails ${usd(PRICES.sesPer1000)} per 1,000.`,
    '',
    '#### What dominates: routes by share of the mix\'s cost',
    '',
    'Read mix:',
    '',
    table(['Route', 'Share of requests', 'Per million of this route', 'Share of the mix\'s cost', 'RRU / request', 'WRU / request', 'Invocations'], topRows(readMixCost.rows)),
    '',
    'Write mix:',
    '',
    table(['Route', 'Share of requests', 'Per million of this route', 'Share of the mix\'s cost', 'RRU / request', 'WRU / request', 'Invocations'], topRows(writeMixCost.rows)),
    '',
    ...(saved ? [`Written to ${saved} (\`--save-memory\`): what \`cdk deploy\` gives each API function.`, ''] : []),
    `#### Functions: measured CPU, DynamoDB rounds, chosen memory (budget: modelled p99 ≤ ${BUDGET_MS.read} ms for reads, ${BUDGET_MS.write} ms for writes; at least ${MIN_MEMORY_MB} MB)`,
    '',
    table(['Function', 'Kind', 'Samples', 'CPU p50 / p99 (this machine)', 'DynamoDB rounds (median)', 'Memory', 'Modelled duration p50 / p99', 'Lambda duration per million'], fnRows),
  ].join('\n');
  return {
    method: [
      'Every kind of request of both mixes (workloads.ts) invoked directly with the events API Gateway sends (invoke.ts), the authorizer first on signed-in routes (it runs on every such request: no result caching, infra/api-config.ts), one at a time after a warm-up request; CPU time (user + system of this process), DynamoDB calls and their rounds, consumed read and write units as DynamoDB Local reports them, response and log bytes per invocation.',
      `Lambda duration at memory M = CPU time × max(1, ${LAMBDA_FULL_VCPU_MB} / M) (this machine's core taken as Lambda's arm64 vCPU) + one DynamoDB latency per round (${Object.entries(AWS_LATENCY).map(([op, [a, b]]) => `${op} ${a}/${b}`).join(', ')} ms p50/p99: assumptions, not measurements). Each function gets the cheapest memory whose modelled p99 is within budget.`,
      'API Gateway per request; Lambda per invocation (authorizer included) and per GB-second; DynamoDB per request unit; CloudWatch Logs per byte logged (the function\'s own line plus ~500 bytes of Lambda\'s START/END/REPORT lines per invocation); data out per response byte (+600 bytes of headers).',
      `Samples: ${profiles.reduce((n, p) => n + p.fnInv.length, 0)} function and ${authInvs.length} authorizer invocations; ${profiles.reduce((n, p) => n + p.dropped, 0)} left out because a major collection of the bench process's own heap (the generated store) ran during them.`,
      `Cold starts: per function, environments ≈ its request rate × its duration (at least 1), each recycled every ${ENV_LIFETIME_MINUTES} minutes; the init (${DEFAULT_INIT_MS} ms) is billed at the function's memory.`,
    ],
    body,
    budgets: [
      { name: 'Cost per million requests: read mix / write mix', measured: `${usd(perMillion(readMixCost.acc))} / ${usd(perMillion(writeMixCost.acc))}`, limit: '—', ok: null },
      { name: `Cost of a month at ${int(MONTHLY_REQUESTS)} requests`, measured: usd(monthlyTotal), limit: '—', ok: null },
    ],
    summary: [`cost: read mix ${usd(perMillion(readMixCost.acc))} / million, write mix ${usd(perMillion(writeMixCost.acc))} / million; ${int(MONTHLY_REQUESTS)} requests a month ≈ ${usd(monthlyTotal)}`],
  };
}

/**
 * §9 "Throughput": autocannon (in its own process) against the local gateway
 * (`GET /api/genres/{id}/`) and against a bare node:http server in this same process that does
 * the same GetItem (the input the function sends) on the same client and returns the item as
 * JSON. The ratio shows what the gateway emulation and the middleware chain cost under load.
 */
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer, type Server } from 'node:http';
import { promisify } from 'node:util';
import { GetCommand, type GetCommandInput } from '@aws-sdk/lib-dynamodb';
import { db } from '../../shared/db/sdk.js';
import { detailTarget } from './latency.js';
import type { BenchEnv } from './local.js';
import type { BenchOptions } from './options.js';
import type { SectionBody } from './report.js';
import { int, median, ms, ratio, table } from './stats.js';

const run = promisify(execFile);
const AUTOCANNON = createRequire(import.meta.url).resolve('autocannon');
const CONNECTIONS = 10;

interface Load {
  rps: number;
  /** CPU time of this process (both servers live here) per request, ms. */
  cpu: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  errors: number;
}

/** One autocannon run in a child process (JSON output). */
async function autocannon(url: string, seconds: number): Promise<Load> {
  const { stdout } = await run(process.execPath, [AUTOCANNON, '-c', String(CONNECTIONS), '-d', String(seconds), '-n', '-j', url], {
    maxBuffer: 16 * 1024 * 1024,
    env: { PATH: process.env.PATH ?? '', NODE_OPTIONS: '' },
  });
  const r = JSON.parse(stdout) as {
    requests: { average: number; total: number };
    latency: { p50: number; p99: number };
    non2xx: number;
    errors: number;
    timeouts: number;
  };
  return { rps: r.requests.average, cpu: Number.NaN, p50: r.latency.p50, p99: r.latency.p99, requests: r.requests.total, non2xx: r.non2xx, errors: r.errors + r.timeouts };
}

/** The same GetItem and a JSON body, nothing else. */
export function bareServer(input: GetCommandInput): Promise<{ server: Server; url: string }> {
  const server = createServer((_req, res) => {
    db()
      .send(new GetCommand(input))
      .then(
        (out) => {
          if (!out.Item) {
            res.writeHead(404).end();
            return;
          }
          const body = JSON.stringify(out.Item.rec);
          res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
          res.end(body);
        },
        () => res.writeHead(500).end(),
      );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (!address || typeof address === 'string') return reject(new Error('no address'));
      resolve({ server, url: `http://127.0.0.1:${address.port}/` });
    });
  });
}

export async function throughputSection(env: BenchEnv, opts: BenchOptions): Promise<SectionBody> {
  const seconds = opts.quick ? 3 : 10;
  const warmSeconds = opts.quick ? 2 : 5;
  const rounds = opts.quick ? 2 : 3;
  const { path, getInput } = await detailTarget(env, 'throughput');
  const bare = await bareServer(getInput);
  const resume = env.sdk.pause();
  try {
    const targets = [
      { key: 'gateway', label: `local gateway → genres.get (\`GET ${path.replace(/[^/]{22}\/$/, '{id}/')}\`)`, url: `${env.url}${path}` },
      { key: 'bare', label: 'bare node:http + the same GetItem', url: bare.url },
    ] as const;
    for (const t of targets) {
      const warm = await autocannon(t.url, warmSeconds);
      if (warm.non2xx > 0 || warm.errors > 0) throw new Error(`${t.url}: ${warm.non2xx} non-2xx responses and ${warm.errors} errors during the warm-up`);
    }
    const loads: Record<string, Load[]> = { gateway: [], bare: [] };
    for (let r = 0; r < rounds; r++) {
      // Alternate which target goes first (A B, B A, A B, …).
      for (const t of r % 2 === 0 ? targets : [...targets].reverse()) {
        const cpuBefore = process.cpuUsage();
        const load = await autocannon(t.url, seconds);
        const used = process.cpuUsage(cpuBefore);
        load.cpu = (used.user + used.system) / 1000 / Math.max(1, load.requests);
        if (load.non2xx > 0 || load.errors > 0) throw new Error(`${t.url}: ${load.non2xx} non-2xx responses and ${load.errors} errors`);
        loads[t.key]!.push(load);
      }
    }
    const agg = (k: string) => {
      const l = loads[k]!;
      return { rps: median(l.map((x) => x.rps)), cpu: median(l.map((x) => x.cpu)), p50: median(l.map((x) => x.p50)), p99: median(l.map((x) => x.p99)), requests: l.reduce((n, x) => n + x.requests, 0) };
    };
    const g = agg('gateway');
    const b = agg('bare');
    const rows = targets.map((t) => {
      const a = agg(t.key);
      return [t.label, int(a.rps), loads[t.key]!.map((l) => int(l.rps)).join(' / '), ms(a.p50, 0), ms(a.p99, 0), int(a.requests), ms(a.cpu, 2), ratio(a.rps / b.rps)];
    });
    const body = [
      table(['Target', 'Requests/s (median)', 'Per round', 'p50', 'p99', 'Requests measured', 'Node CPU per request', 'Throughput / bare'], rows),
      '',
      `The gateway path serves ${ratio(g.rps / b.rps)} the requests per second of the bare server (p50 ${ms(g.p50, 0)} vs ${ms(b.p50, 0)}) and costs ${ms(g.cpu - b.cpu, 2)} more CPU per request in this process (gateway emulation, event building, the middleware chain, logging).`,
      'Node CPU per request: user + system CPU time of this process during a run divided by the requests served (both servers and the SDK client live in this process; autocannon and DynamoDB Local do not).',
      `CPU-seconds this process used per second of load: gateway ${(g.rps * g.cpu / 1000).toFixed(2)}, bare ${(b.rps * b.cpu / 1000).toFixed(2)} (1.00 = one core busy: the single event loop is then the bottleneck and the throughput ratio follows the CPU cost per request, ${ratio(b.cpu / g.cpu)} here).`,
      'Both servers run in this Node.js process (one event loop); DynamoDB Local and autocannon run in their own processes on the same CPUs, so the engine bounds both figures.',
      '',
    ].join('\n');
    return {
      method: [
        `autocannon (separate process), ${CONNECTIONS} connections, keep-alive; ${warmSeconds} s warm-up per target (not counted), then ${rounds} rounds of ${seconds} s per target, the first target alternating between rounds; medians over rounds (autocannon's p50/p99 have 1 ms resolution).`,
        'Gateway: the full local path (HTTP server emulating API Gateway, payload 2.0 event, the genres.get function with its middleware chain). Bare: node:http doing the same GetItem (same input, same document client) and writing the record as JSON.',
        'DESIGN §9 sets no limit for throughput: the ratio is reported.',
      ],
      body,
      budgets: [{ name: 'Throughput: gateway / bare node:http (requests/s)', measured: `${ratio(g.rps / b.rps)} (${int(g.rps)} vs ${int(b.rps)} req/s)`, limit: '—', ok: null }],
      summary: [`throughput: gateway ${int(g.rps)} req/s (p50 ${ms(g.p50, 0)}, p99 ${ms(g.p99, 0)}), bare ${int(b.rps)} req/s (p50 ${ms(b.p50, 0)}, p99 ${ms(b.p99, 0)}) → ${ratio(g.rps / b.rps)}`],
    };
  } finally {
    resume();
    await new Promise<void>((resolve) => {
      bare.server.closeAllConnections();
      bare.server.close(() => resolve());
    });
  }
}

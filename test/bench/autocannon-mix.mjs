/* global performance */
// A load of varied requests with autocannon, in a process of its own (the load section, load.ts):
//   node autocannon-mix.mjs <url> <requests.json> <connections>
// requests.json is an array of {route, method, path, headers, body, expect}; each is sent once, in
// order, spread over the connections (autocannon's `amount`). Prints one JSON object: autocannon's
// totals and latency percentiles, the responses per status, the latency of each route as this
// process saw it (from handing the request to autocannon to its response), and the first
// unexpected responses.
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

const [url, file, connections] = process.argv.slice(2);
const list = JSON.parse(readFileSync(file, 'utf8'));
let next = 0;
const perRoute = new Map();
const unexpected = [];
let unexpectedCount = 0;

const instance = autocannon(
  {
    url,
    connections: Number(connections),
    amount: list.length,
    timeout: 60,
    requests: [
      {
        setupRequest(req, context) {
          const r = list[next++ % list.length];
          context.current = r;
          context.sentAt = performance.now();
          const headers = { ...(req.headers ?? {}), ...(r.headers ?? {}) };
          if (r.body !== undefined) headers['content-type'] = 'application/json';
          return { ...req, method: r.method, path: r.path, headers, body: r.body === undefined ? undefined : JSON.stringify(r.body) };
        },
        onResponse(status, body, context) {
          const r = context.current;
          const ms = performance.now() - context.sentAt;
          let times = perRoute.get(r.route);
          if (!times) perRoute.set(r.route, (times = []));
          times.push(ms);
          if (status !== r.expect) {
            unexpectedCount++;
            if (unexpected.length < 20) unexpected.push({ route: r.route, method: r.method, path: r.path, status, body: String(body).slice(0, 300) });
          }
        },
      },
    ],
  },
  (err, result) => {
    if (err) {
      console.error(err);
      process.exit(1);
    }
    const pct = (xs, p) => {
      const s = [...xs].sort((a, b) => a - b);
      return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
    };
    const routes = Object.fromEntries([...perRoute].map(([route, xs]) => [route, { n: xs.length, p50: pct(xs, 50), p99: pct(xs, 99) }]));
    const statuses = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, v]) => [code, Number(v.count)]));
    process.stdout.write(
      JSON.stringify({
        requests: result.requests.total,
        seconds: result.duration,
        rps: result.requests.total / result.duration,
        latency: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max },
        errors: result.errors,
        timeouts: result.timeouts,
        statuses,
        unexpectedCount,
        unexpected,
        routes,
      }),
    );
  },
);
process.once('SIGINT', () => instance.stop());

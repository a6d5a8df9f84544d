/**
 * The OpenAPI document checked by a validator nobody here wrote: Stoplight Prism in proxy mode
 * (`prism proxy`), in front of the local gateways while the e2e tests run. Every response of a
 * documented operation that a test gets through `call`/`send` is validated against the document
 * (`GET /api/schema/`); a response violation fails the test that got it.
 *
 * One Prism serves the whole e2e run (test/support/global-setup.ts). Its upstream is a small
 * relay in the same process, which passes each request on, byte for byte, to the gateway of the
 * test file that sent it (the `x-e2e-gateway` header names its port): each file has its own.
 *
 * Prism re-encodes what it forwards: JSON bodies are parsed and serialised again, other bodies
 * read as UTF-8 text, query strings rebuilt from their decoded values (repeated names grouped),
 * paths normalised, redirects followed. A request whose bytes would not reach the gateway as the
 * test sent them (a multipart upload, a malformed or non-canonical JSON body, a query string with
 * repeated names or bad percent-encoding, …) is sent to its gateway directly instead, and the
 * response it got is then replayed through Prism for the same operation: the relay answers the
 * replay with that recorded response (`x-e2e-replay` names it), so Prism validates it all the
 * same. Requests outside the documented operations (unknown paths, 405, redirects, preflights)
 * go to the gateway directly and are not validated: the document does not describe them.
 *
 * What was validated is counted per operation and status in memory and written per test file to
 * the run's record directory; `npm test` (test/run.ts) checks the records of a full run with
 * contractCoverage(): every one of the operations validated, no response violation.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { join, posix } from 'node:path';
import { OPERATIONS, ROUTES } from '../../functions/registry.js';
import { Router } from '../../shared/http/router.js';
import type { RouteDecl } from '../../shared/http/route.js';
import { openApiDocument } from '../../shared/openapi.js';

/** Where the gateway of a proxied request listens (the relay's routing header). */
export const GATEWAY_HEADER = 'x-e2e-gateway';
/** Names a recorded response the relay answers with, instead of forwarding. */
export const REPLAY_HEADER = 'x-e2e-replay';
const VIOLATIONS_HEADER = 'sl-violations';

export interface ContractProxy {
  /** Prism's address. */
  url: string;
  /** The relay's address (recorded responses are left there for replays). */
  relay: string;
  stop(): Promise<void>;
}

interface Recorded {
  status: number;
  headers: [string, string][];
  body: string;
}

/** The relay: a request with GATEWAY_HEADER goes to that gateway as it is; REPLAY_HEADER answers with a recorded response. */
function startRelay(): Promise<Server> {
  const recorded = new Map<string, Recorded>();
  const relay = createServer((req: IncomingMessage, res: ServerResponse) => {
    const fail = (err: unknown) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`relay: ${String(err)}`);
    };
    if (req.method === 'PUT' && req.url?.startsWith('/__recorded/')) {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        recorded.set(req.url!.slice('/__recorded/'.length), JSON.parse(Buffer.concat(chunks).toString('utf8')) as Recorded);
        res.writeHead(204).end();
      });
      return;
    }
    const replay = req.headers[REPLAY_HEADER];
    if (typeof replay === 'string') {
      const r = recorded.get(replay);
      recorded.delete(replay);
      req.resume();
      if (!r) return fail(`no recorded response ${replay}`);
      res.writeHead(r.status, r.headers.flat());
      res.end(Buffer.from(r.body, 'base64'));
      return;
    }
    const port = Number(req.headers[GATEWAY_HEADER]);
    if (!Number.isInteger(port) || port <= 0) return fail(`no ${GATEWAY_HEADER}`);
    const headers: Record<string, string | string[] | undefined> = { ...req.headers, host: `localhost:${port}` };
    delete headers[GATEWAY_HEADER];
    const upstream = httpRequest({ host: 'localhost', port, method: req.method, path: req.url, headers }, (up) => {
      res.writeHead(up.statusCode!, up.rawHeaders);
      up.pipe(res);
    });
    upstream.on('error', fail);
    req.pipe(upstream);
  });
  return new Promise((resolve, reject) => {
    relay.once('error', reject);
    relay.listen(0, '127.0.0.1', () => resolve(relay));
  });
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Starts Prism (with the document written into `dir`) in front of a new relay. */
export async function startContractProxy(dir: string): Promise<ContractProxy> {
  const documentFile = join(dir, 'openapi.json');
  writeFileSync(documentFile, JSON.stringify(openApiDocument(ROUTES, 'http://localhost')));
  const relay = await startRelay();
  const relayUrl = `http://127.0.0.1:${(relay.address() as AddressInfo).port}`;
  const port = await freePort();
  const prismBin = createRequire(import.meta.url).resolve('@stoplight/prism-cli/dist/index.js');
  const log: Buffer[] = [];
  const prism: ChildProcess = spawn(
    process.execPath,
    [prismBin, 'proxy', documentFile, relayUrl, '--host', '127.0.0.1', '--port', String(port), '--cors=false', '--validate-request=false', '--errors=false', '-v', 'error'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  prism.stdout!.on('data', (c: Buffer) => log.push(c));
  prism.stderr!.on('data', (c: Buffer) => log.push(c));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (prism.exitCode !== null) throw new Error(`Prism exited (${prism.exitCode}): ${Buffer.concat(log).toString()}`);
    // Any answer means it listens (an unknown path is forwarded to the relay, which refuses it).
    if (await fetch(`${url}/`).then(() => true, () => false)) break;
    if (Date.now() > deadline) {
      prism.kill();
      throw new Error(`Prism did not listen within 60 s: ${Buffer.concat(log).toString()}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  // Its output was only needed to explain a failed start (violations reach the tests by header).
  for (const stream of [prism.stdout!, prism.stderr!]) stream.removeAllListeners('data').resume();
  return {
    url,
    relay: relayUrl,
    stop: async () => {
      if (prism.exitCode === null) {
        const exited = new Promise((resolve) => prism.once('exit', resolve));
        prism.kill();
        await exited;
      }
      await new Promise((resolve) => relay.close(resolve));
    },
  };
}

// ---- The test side: which way a request goes, and what Prism said ----

const router = new Router(ROUTES);

/** A request as `call`/`send` make it. */
export interface OutgoingRequest {
  method: string;
  /** Path and query string. */
  path: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

/** The query's name/value pairs as the API decodes them (`+` is a space); null when one is badly encoded. */
function decodedPairs(raw: string): [string, string][] | null {
  const pairs: [string, string][] = [];
  for (const part of raw.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    try {
      const decode = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
      pairs.push(eq < 0 ? [decode(part), ''] : [decode(part.slice(0, eq)), decode(part.slice(eq + 1))]);
    } catch {
      return null;
    }
  }
  return pairs;
}

/** The query string Prism forwards for this one: decoded, grouped by name, encoded again. */
function prismQuery(raw: string): string {
  const grouped = new Map<string, string[]>();
  for (const [k, v] of new URLSearchParams(raw)) grouped.set(k, [...(grouped.get(k) ?? []), v]);
  const out = new URLSearchParams();
  for (const [k, vs] of grouped) for (const v of vs) out.append(k, v);
  return out.toString();
}

/**
 * Whether Prism passes a JSON body on as it is: it parses the body and serialises it again, and
 * forwards no body for a falsy value (`null`, `0`, `""`, `false`); a key named `__proto__` does
 * not survive its handling of the parsed value.
 */
const isForwardedJson = (text: string) => {
  let protoKey = false;
  try {
    const value: unknown = JSON.parse(text, (key, v: unknown) => {
      if (key === '__proto__') protoKey = true;
      return v;
    });
    return typeof value === 'object' && value !== null && !protoKey && JSON.stringify(value) === text;
  } catch {
    return false;
  }
};

/**
 * The documented operation a request is for, and whether Prism would forward it unchanged:
 * the same path, the same decoded query, the same body bytes.
 */
export function contractRoute(req: OutgoingRequest): { route: RouteDecl | null; faithful: boolean } {
  const q = req.path.indexOf('?');
  const pathname = q < 0 ? req.path : req.path.slice(0, q);
  const rawQuery = q < 0 ? '' : req.path.slice(q + 1);
  const match = router.match(req.method, pathname, rawQuery);
  if (match.kind !== 'route') return { route: null, faithful: false };
  const route = match.route;
  // A body that is not JSON (the calendar, the docs page) may come gzipped, which Prism would decode
  // before passing it on: such responses are validated by replay, as the client decoded them.
  if (route.response.media !== undefined) return { route, faithful: false };
  const pairs = decodedPairs(rawQuery);
  // Prism collects the values in an object by name: a `__proto__` parameter is lost there.
  const queryKept = pairs !== null && !pairs.some(([k]) => k === '__proto__') && JSON.stringify(decodedPairs(prismQuery(rawQuery))) === JSON.stringify(pairs);
  const pathKept = posix.normalize(pathname) === pathname;
  const type = Object.entries(req.headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1]?.toLowerCase().replace(/\s+/g, '');
  const bodyKept =
    req.body === undefined ||
    (typeof req.body === 'string' && req.method !== 'GET' && req.method !== 'HEAD' && (type === 'application/json' || type === 'application/json;charset=utf-8') && isForwardedJson(req.body));
  const headersKept = !Object.keys(req.headers).some((k) => ['host', 'content-length', 'transfer-encoding', GATEWAY_HEADER, REPLAY_HEADER].includes(k.toLowerCase()));
  return { route, faithful: queryKept && pathKept && bodyKept && headersKept };
}

export interface Violation {
  location: string[];
  severity: string;
  code?: string | number;
  message: string;
}

/** What a test file sent through Prism, per operation and status, and the violations Prism found. */
export interface FileRecord {
  file: string;
  /** `operation status via` → count; via `proxy` (live) or `replay`. */
  validated: Record<string, number>;
  violations: { operation: string; method: string; path: string; status: number; violations: Violation[] }[];
}

const fileRecord: Omit<FileRecord, 'file'> = { validated: {}, violations: [] };

function responseViolations(res: Response): Violation[] {
  const header = res.headers.get(VIOLATIONS_HEADER);
  if (!header) return [];
  let all: Violation[];
  try {
    all = JSON.parse(header) as Violation[];
  } catch {
    // Prism cuts the header at 8 KB ("Too many violations! …").
    return [{ location: ['response'], severity: 'Error', message: header.slice(0, 2000) }];
  }
  return all.filter((v) => v.location[0] === 'response');
}

/** The response without Prism's header (tests see what the gateway sent). */
function withoutViolations(res: Response, body: Uint8Array): Response {
  const headers = new Headers(res.headers);
  headers.delete(VIOLATIONS_HEADER);
  const empty = res.status === 204 || res.status === 304;
  return new Response(empty ? null : body, { status: res.status, statusText: res.statusText, headers });
}

function note(route: RouteDecl, req: OutgoingRequest, status: number, via: 'proxy' | 'replay', violations: Violation[]): void {
  const key = `${route.name} ${status} ${via}`;
  fileRecord.validated[key] = (fileRecord.validated[key] ?? 0) + 1;
  if (violations.length === 0) return;
  fileRecord.violations.push({ operation: route.name, method: req.method, path: req.path, status, violations });
  throw new Error(
    `${req.method} ${req.path} → ${status}: the response violates the OpenAPI document (Prism, ${via}):\n` +
      violations.map((v) => `  ${v.location.join('.')}: ${v.message}`).join('\n'),
  );
}

/**
 * Sends a request to the gateway at `gateway`, through Prism when `proxy` is set: live when
 * Prism would pass it on unchanged, else directly with the response replayed through Prism.
 * Throws when Prism finds the response in violation of the document.
 */
export async function sendChecked(gateway: string, proxy: { url: string; relay: string } | null, req: OutgoingRequest): Promise<Response> {
  const init = { method: req.method, headers: req.headers, body: req.body, redirect: 'manual' as const };
  if (!proxy) return fetch(`${gateway}${req.path}`, init);
  const { route, faithful } = contractRoute(req);
  if (!route) return fetch(`${gateway}${req.path}`, init);
  if (faithful) {
    const res = await fetch(`${proxy.url}${req.path}`, { ...init, headers: { ...req.headers, [GATEWAY_HEADER]: new URL(gateway).port } });
    const body = new Uint8Array(await res.arrayBuffer());
    note(route, req, res.status, 'proxy', responseViolations(res));
    return withoutViolations(res, body);
  }
  const res = await fetch(`${gateway}${req.path}`, init);
  const body = new Uint8Array(await res.arrayBuffer());
  const id = randomUUID();
  // fetch has decoded the body: the replay carries it as it is, without the coding it came in.
  const headers = [...res.headers].filter(([k]) => !['content-encoding', 'content-length'].includes(k.toLowerCase()));
  const recorded: Recorded = { status: res.status, headers, body: Buffer.from(body).toString('base64') };
  await fetch(`${proxy.relay}/__recorded/${id}`, { method: 'PUT', body: JSON.stringify(recorded) });
  const q = req.path.indexOf('?');
  const replayed = await fetch(`${proxy.url}${q < 0 ? req.path : req.path.slice(0, q)}`, { method: req.method, headers: { [REPLAY_HEADER]: id } });
  await replayed.arrayBuffer();
  note(route, req, res.status, 'replay', responseViolations(replayed));
  return new Response(res.status === 204 || res.status === 304 ? null : body, { status: res.status, statusText: res.statusText, headers: res.headers });
}

/** Writes the file's record (after the file; a no-op when nothing was validated). */
export function writeFileRecord(dir: string, file: string): void {
  if (Object.keys(fileRecord.validated).length === 0) return;
  mkdirSync(dir, { recursive: true });
  const record: FileRecord = { file, ...fileRecord };
  writeFileSync(join(dir, `${posix.basename(file)}-${randomUUID()}.json`), JSON.stringify(record));
}

// ---- The check of a whole run ----

export interface Coverage {
  /** Requests validated live through the proxy, and by replay. */
  proxied: number;
  replayed: number;
  /** Operations (of the 151 and the extensions) with at least one validated response. */
  covered: string[];
  missing: string[];
  /** Per operation: the statuses validated, each marked `*` when only by replay. */
  statuses: Record<string, string[]>;
  violations: FileRecord['violations'];
}

export function contractCoverage(dir: string): Coverage {
  const records = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as FileRecord);
  let proxied = 0;
  let replayed = 0;
  const byOp = new Map<string, Map<number, Set<string>>>();
  for (const r of records) {
    for (const [key, n] of Object.entries(r.validated)) {
      const [op, status, via] = key.split(' ') as [string, string, string];
      if (via === 'proxy') proxied += n;
      else replayed += n;
      const statuses = byOp.get(op) ?? new Map<number, Set<string>>();
      statuses.set(Number(status), (statuses.get(Number(status)) ?? new Set()).add(via));
      byOp.set(op, statuses);
    }
  }
  const names = OPERATIONS.map((r) => r.name);
  const statuses = Object.fromEntries(
    [...byOp].map(([op, s]) => [op, [...s].sort(([a], [b]) => a - b).map(([status, via]) => (via.has('proxy') ? String(status) : `${status}*`))]),
  );
  return {
    proxied,
    replayed,
    covered: names.filter((n) => byOp.has(n)),
    missing: names.filter((n) => !byOp.has(n)),
    statuses,
    violations: records.flatMap((r) => r.violations),
  };
}

/**
 * Requests to a local gateway, without the test runner: the e2e helpers (server.ts, contract.ts)
 * and the benchmark's fuzz section (which runs outside vitest) send through these.
 */

/** A request as `call`/`send` make it. */
export interface OutgoingRequest {
  method: string;
  /** Path and query string. */
  path: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

/** A running gateway: its base URL (`{base}`), and how requests reach it (default: straight there). */
export interface Server {
  url: string;
  /** E.g. through the contract proxy of the e2e tests (prism.ts), which checks every response. */
  transport?: (req: OutgoingRequest) => Promise<Response>;
}

const direct = (server: Server, req: OutgoingRequest) => fetch(`${server.url}${req.path}`, { method: req.method, headers: req.headers, body: req.body, redirect: 'manual' });
const transmit = (server: Server, req: OutgoingRequest) => (server.transport ?? ((r) => direct(server, r)))(req);

export interface Res<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface Sent<T = any> extends Res<T> {
  method: string;
  /** The request path, with its query string. */
  path: string;
}

export interface SendOptions {
  body?: unknown;
  headers?: Record<string, string>;
  /** Bytes sent as they are (no Content-Type is added). */
  raw?: Uint8Array;
}

function parsed(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

/** A request with a JSON body (objects are serialised; strings are sent as they are). */
export async function call<T = any>(server: Server, method: string, path: string, opts: { body?: unknown; headers?: Record<string, string> } = {}): Promise<Res<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  let body: string | undefined;
  if (opts.body !== undefined) {
    body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await transmit(server, { method, path, headers, ...(body === undefined ? {} : { body }) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: parsed(text) as T, text };
}

/** The server-relative form of an absolute URL the API emitted (which must start with `{base}`). */
export function relative(server: Server, url: string): string {
  if (!url.startsWith(`${server.url}/`)) throw new Error(`${url} does not start with ${server.url}/`);
  return url.slice(server.url.length);
}

/** A request to the local gateway; `path` may also be an absolute URL of the server. */
export async function send<T = any>(server: Server, method: string, path: string, opts: SendOptions = {}): Promise<Sent<T>> {
  const rel = path.startsWith('http') ? relative(server, path) : path;
  if (opts.raw === undefined) {
    const res = await call<T>(server, method, rel, { body: opts.body, headers: opts.headers });
    return { ...res, method, path: rel };
  }
  const res = await transmit(server, { method, path: rel, headers: opts.headers ?? {}, body: opts.raw });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: parsed(text) as T, text, method, path: rel };
}

/**
 * Fault tests' clients: every request has a bounded time (a request that does not answer within
 * it counts as hung), and every answer is tallied as a success (2xx), the contract's answer to an
 * outage (503 service-unavailable problem with `Retry-After`, API.md §1.4), the answer to a
 * creation whose Idempotency-Key another attempt still holds (409 idempotency-in-progress with
 * `Retry-After`, §8.7), or anything else — which a fault test expects never to see. A creation
 * is sent as a careful client sends it (retriedCreation): with an Idempotency-Key, and again with
 * the same key and body after a 503 or a 409 in progress, until it gets another answer.
 */
import { PROBLEM_TYPE, type Sent } from './contract.js';
import type { TestServer } from './server.js';

/** Longer than any function's work under load here, far shorter than the suite's timeouts. */
export const CLIENT_TIMEOUT_MS = 60_000;

export interface Tally {
  sent: number;
  ok: number;
  unavailable: number;
  /** 409 idempotency-in-progress answers (a retried creation whose key an earlier attempt holds). */
  inProgress: number;
  /** 2xx answers given again (`Idempotent-Replayed: true`): a retried creation whose first attempt committed. */
  replayed: number;
  /** Answers that are none of these (status and body, at most 20 kept). */
  other: string[];
  otherCount: number;
  hung: number;
}

export const newTally = (): Tally => ({ sent: 0, ok: 0, unavailable: 0, inProgress: 0, replayed: 0, other: [], otherCount: 0, hung: 0 });

export const describeTally = (t: Tally) =>
  `${t.sent} requests: ${t.ok} 2xx (${t.replayed} replayed), ${t.unavailable} 503, ${t.inProgress} 409 in progress, ${t.otherCount} other, ${t.hung} hung`;

/** Whether `res` is the contract's 503: a problem document with `Retry-After` (≥ 1 s) equal to its `retry_after`. */
export function isUnavailableAnswer(res: Sent): boolean {
  const after = Number(res.headers.get('retry-after'));
  return (
    res.status === 503 &&
    res.headers.get('content-type') === PROBLEM_TYPE &&
    res.body?.type === 'urn:problem:service-unavailable' &&
    Number.isInteger(after) &&
    after >= 1 &&
    res.body?.retry_after === after
  );
}

/** Whether `res` is §8.7's 409 for a key still held: a problem document with `Retry-After` equal to its `retry_after`. */
export function isInProgressAnswer(res: Sent): boolean {
  const after = Number(res.headers.get('retry-after'));
  return res.status === 409 && res.headers.get('content-type') === PROBLEM_TYPE && res.body?.type === 'urn:problem:idempotency-in-progress' && after >= 1 && res.body?.retry_after === after;
}

export type Outcome = { kind: 'ok'; res: Sent } | { kind: 'unavailable'; res: Sent } | { kind: 'in-progress'; res: Sent } | { kind: 'other'; res: Sent } | { kind: 'hung' };

/** A request with a bounded time, tallied. */
export async function faultRequest(
  server: TestServer,
  tally: Tally,
  method: string,
  path: string,
  opts: { body?: unknown; headers?: Record<string, string>; raw?: Uint8Array } = {},
): Promise<Outcome> {
  tally.sent++;
  const headers: Record<string, string> = { ...opts.headers };
  let body: string | Uint8Array | undefined = opts.raw;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  let res: Sent;
  try {
    const r = await fetch(`${server.url}${path}`, { method, headers, body, redirect: 'manual', signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS) });
    const text = await r.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    res = { status: r.status, headers: r.headers, body: parsed, text, method, path };
  } catch (err) {
    if ((err as Error).name !== 'TimeoutError') throw err;
    tally.hung++;
    return { kind: 'hung' };
  }
  if (res.status >= 200 && res.status < 300) {
    tally.ok++;
    if (res.headers.get('idempotent-replayed') === 'true') tally.replayed++;
    return { kind: 'ok', res };
  }
  if (isUnavailableAnswer(res)) {
    tally.unavailable++;
    return { kind: 'unavailable', res };
  }
  if (isInProgressAnswer(res)) {
    tally.inProgress++;
    return { kind: 'in-progress', res };
  }
  tally.otherCount++;
  if (tally.other.length < 20) tally.other.push(`${method} ${path} → ${res.status} ${res.text.slice(0, 300)}`);
  return { kind: 'other', res };
}

/** How long a creation is retried: beyond an engine's restart and a dead attempt's lease (15 s, shared/http/idempotency.ts). */
export const CREATION_RETRY_MS = 120_000;

/**
 * A creation with an Idempotency-Key, sent again with the same key and body after a 503 (a short
 * pause, as the workers pause) or a 409 in progress (after its Retry-After), until it gets
 * another answer or CREATION_RETRY_MS has passed. Each attempt is tallied in the tally of its
 * moment (`tally()`: a phase's). Returns the last outcome and how many attempts it took.
 */
export async function retriedCreation(
  server: TestServer,
  tally: () => Tally,
  path: string,
  opts: { body: unknown; headers?: Record<string, string>; key: string },
): Promise<Outcome & { attempts: number }> {
  const deadline = Date.now() + CREATION_RETRY_MS;
  for (let attempts = 1; ; attempts++) {
    const out = await faultRequest(server, tally(), 'POST', path, { body: opts.body, headers: { ...opts.headers, 'idempotency-key': opts.key } });
    if ((out.kind !== 'unavailable' && out.kind !== 'in-progress') || Date.now() > deadline) return { ...out, attempts };
    const wait = out.kind === 'in-progress' ? Number(out.res.headers.get('retry-after')) * 1000 : 200 + Math.random() * 200;
    await new Promise((r) => setTimeout(r, wait));
  }
}

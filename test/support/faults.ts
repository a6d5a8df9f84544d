/**
 * Fault tests' clients: every request has a bounded time (a request that does not answer within
 * it counts as hung), and every answer is tallied as a success (2xx), the contract's answer to an
 * outage (503 service-unavailable problem with `Retry-After`, API.md §1.4), or anything else —
 * which a fault test expects never to see.
 */
import { PROBLEM_TYPE, type Sent } from './contract.js';
import type { TestServer } from './server.js';

/** Longer than any function's work under load here, far shorter than the suite's timeouts. */
export const CLIENT_TIMEOUT_MS = 60_000;

export interface Tally {
  sent: number;
  ok: number;
  unavailable: number;
  /** Answers that are neither (status and body, at most 20 kept). */
  other: string[];
  otherCount: number;
  hung: number;
}

export const newTally = (): Tally => ({ sent: 0, ok: 0, unavailable: 0, other: [], otherCount: 0, hung: 0 });

export const describeTally = (t: Tally) => `${t.sent} requests: ${t.ok} 2xx, ${t.unavailable} 503, ${t.otherCount} other, ${t.hung} hung`;

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

export type Outcome = { kind: 'ok'; res: Sent } | { kind: 'unavailable'; res: Sent } | { kind: 'other'; res: Sent } | { kind: 'hung' };

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
    return { kind: 'ok', res };
  }
  if (isUnavailableAnswer(res)) {
    tally.unavailable++;
    return { kind: 'unavailable', res };
  }
  tally.otherCount++;
  if (tally.other.length < 20) tally.other.push(`${method} ${path} → ${res.status} ${res.text.slice(0, 300)}`);
  return { kind: 'other', res };
}

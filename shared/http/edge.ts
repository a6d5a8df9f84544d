/**
 * Requests through the edge (`-c edge=true`, infra/aws/edge.ts). With the edge, CloudFront adds
 * a secret header (ORIGIN_HEADER: the value of the secret that ORIGIN_SECRET_ENV names) to every
 * request it forwards to the HTTP API, and only such a request
 * - is served: any other reached the `execute-api` endpoint directly, around the web ACL, and
 *   gets 403 before anything else is read (docs/decisions.md, decision 58);
 * - has its viewer's address trusted: the client of the per-address rate limits is the address
 *   CloudFront reports in `CloudFront-Viewer-Address`, since API Gateway's `sourceIp` is then
 *   the address of a CloudFront server, shared by every viewer of an edge location.
 * Without the edge (ORIGIN_SECRET_ENV unset: local runs and stages without the edge) every request
 * is served, the client is API Gateway's `sourceIp`, and neither header is ever looked at.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import { logger } from '../log.js';
import { secretFromEnv } from '../secrets.js';
import type { ApiEvent } from './observe.js';
import { forbidden } from '../problem.js';

/** The header CloudFront adds to every origin request, with the secret as its value. */
export const ORIGIN_HEADER = 'x-origin-verify';

/** The header in which CloudFront reports the viewer's address and port. */
export const VIEWER_ADDRESS_HEADER = 'cloudfront-viewer-address';

/** The function variable naming the origin secret; set only on the stacks with the edge. */
export const ORIGIN_SECRET_ENV = 'ORIGIN_SECRET_ID';

/** Whether this function serves behind the edge. */
export const behindEdge = (): boolean => Boolean(process.env[ORIGIN_SECRET_ENV]);

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/**
 * Whether the request proves it came through the distribution: always true without the edge;
 * with it, the origin header equals the secret (compared in constant time, as digests of equal
 * length). A request without the header is refused without reading the secret.
 */
export async function throughEdge(headers: Readonly<Record<string, string>>): Promise<boolean> {
  if (!behindEdge()) return true;
  const sent = headers[ORIGIN_HEADER];
  if (sent === undefined) return false;
  return timingSafeEqual(digest(sent), digest(await secretFromEnv(ORIGIN_SECRET_ENV)));
}

/**
 * The viewer's IP address in a `CloudFront-Viewer-Address` value: `198.51.100.10:46532`, or an
 * IPv6 address followed by `:port` (`2001:db8::1:46532`; `[2001:db8::1]:46532` is accepted too).
 * Null for anything else, including several comma-separated values (CloudFront sends one).
 */
export function viewerAddress(value: string | undefined): string | null {
  const v = value?.trim();
  if (!v || v.includes(',')) return null;
  const bracketed = /^\[([^\]]+)\]:(\d{1,5})$/.exec(v);
  const split = bracketed ? [bracketed[1]!, bracketed[2]!] : [v.slice(0, v.lastIndexOf(':')), v.slice(v.lastIndexOf(':') + 1)];
  const [address, port] = split as [string, string];
  if (!/^\d{1,5}$/.test(port) || isIP(address) === 0) return null;
  if (bracketed && isIP(address) !== 6) return null;
  return address;
}

/**
 * The client address of a request, checked first of all by every API function (observe.ts):
 * API Gateway's `sourceIp` without the edge; with it, the viewer's address of a request that
 * came through the distribution, and 403 for any other. A proven request without a usable viewer
 * address (an origin request policy that no longer forwards it) is counted by `sourceIp` and
 * logged: too strict a count, never one a client can choose.
 */
export async function clientAddress(event: ApiEvent, headers: Readonly<Record<string, string>>): Promise<string | undefined> {
  const sourceIp = event.requestContext.http.sourceIp;
  if (!behindEdge()) return sourceIp;
  if (!(await throughEdge(headers))) {
    const base = process.env.PUBLIC_BASE_URL;
    throw forbidden(base ? `This API is served at ${base}; this address is not.` : 'This address does not serve the API.');
  }
  const viewer = viewerAddress(headers[VIEWER_ADDRESS_HEADER]);
  if (viewer === null) logger.warn('no viewer address from the edge: counting the request by sourceIp', { request_id: event.requestContext.requestId });
  return viewer ?? sourceIp;
}

/**
 * Safe retries of creations (API.md §8.7; docs/decisions.md EX9): every `POST` that creates a
 * record (response 201) takes an `Idempotency-Key`. Where the steps sit in a request:
 *
 * 1. The header's value is checked with the request's form (handler.ts interpret, with the
 *    body's syntax and the query: §1.4 #7): 1–255 visible ASCII characters, else `400
 *    malformed-request`.
 * 2. Once every check of the chain has passed (so only a request that reaches the operation is
 *    claimed: 413, 429, 401, 403 by role, 415, 400 and a malformed path value come first), the
 *    key is claimed for the caller — the user, or the client address (rate-limits.ts clientKey)
 *    when anonymous — with the request's fingerprint (method, path and query, body): a stored
 *    outcome is answered again with `Idempotent-Replayed: true`, another request's fingerprint is
 *    `422`, a request still holding the key `409` with `Retry-After: 1`.
 * 3. The operation runs; the creation joins `req.idempotent(reply)` to the transaction that
 *    creates the record, so the record and its stored answer are committed together.
 * 4. After it: a refusal worth keeping (4xx but 409 and 429) is stored; anything else (5xx,
 *    409, 429) gives the key back so that a retry is tried again.
 *
 * What is stored is the operation's reply (status, its headers such as Location, body) or
 * problem, before represent and observe: a replay goes through the same finishing (ETag,
 * Cache-Control, CORS, X-Request-Id of the replaying request).
 */
import { IdempotencyLost, claimKey, completionPlan, fingerprint, idempotencyScope, release, storeOutcome, type Claim, type IdempotencyScope } from '../db/idempotency.js';
import type { WritePlan } from '../db/records.js';
import { logger } from '../log.js';
import { HttpError, PROBLEMS, type FieldErrors, type ProblemType } from '../problem.js';
import type { ApiRequest, Operation, Reply } from './handler.js';
import { requestState, toHttpError, type ApiEvent } from './observe.js';
import { clientKey } from './rate-limits.js';
import { bodyBytes } from './request.js';
import { ROUTE_TIMEOUT_SECONDS, takesIdempotencyKey, type RouteDecl } from './route.js';

export { takesIdempotencyKey };

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'idempotent-replayed';

/**
 * How long a claim is held before another request may take it over: longer than any request
 * lives (the route functions' timeout, route.ts, and a margin for clock skew between
 * containers). A request that outlives it anyway (a local run's longer deadline) still
 * completes unless another took the key meanwhile; then its transaction fails and it answers
 * 409, having written nothing.
 */
export const LEASE_MS = (ROUTE_TIMEOUT_SECONDS + 5) * 1000;

const VISIBLE_ASCII = /^[\x21-\x7e]{1,255}$/;

/** Step 1: the header's value, when sent, is 1–255 visible ASCII characters (else 400). */
export function checkIdempotencyKey(value: string | undefined): void {
  if (value === undefined || VISIBLE_ASCII.test(value)) return;
  throw new HttpError('malformed-request', 'The Idempotency-Key header must be 1 to 255 visible ASCII characters (0x21–0x7E).');
}

/** The plan of a request that sent no key, or of a route that takes none: nothing. */
const NOTHING: WritePlan = { items: [], meanings: [] };

const inProgress = () =>
  new HttpError('idempotency-in-progress', 'A request with this Idempotency-Key is still being processed; retry later.', { retry_after: 1 });
const reused = () => new HttpError('idempotency-key-reuse', 'This Idempotency-Key was sent with another request (path or body); use a new key.');

/** What is stored of an answer: the operation's reply, or the problem it threw. */
type Stored = { reply: { status: number; headers?: Record<string, string>; body?: unknown } } | { problem: { type: ProblemType; detail: string; errors?: FieldErrors; existing_id?: string } };

const storedReply = (reply: Reply): Stored => {
  if (reply.content) throw new Error('a creation answers JSON: its reply is stored as such');
  return { reply: { status: reply.status, ...(reply.headers ? { headers: reply.headers } : {}), ...(reply.body === undefined ? {} : { body: reply.body }) } };
};

const storedProblem = (err: HttpError): Stored => ({
  problem: {
    type: err.type,
    detail: err.message,
    ...(err.extras.errors ? { errors: err.extras.errors } : {}),
    ...(err.extras.existing_id === undefined ? {} : { existing_id: err.extras.existing_id }),
  },
});

/** A stored outcome answered again: the reply, or the problem thrown again, marked as replayed. */
function replay(payload: unknown): Reply {
  const stored = payload as Stored;
  if ('reply' in stored) return { ...stored.reply, headers: { ...stored.reply.headers, [REPLAYED_HEADER]: 'true' } };
  const { type, detail, ...extras } = stored.problem;
  if (!Object.hasOwn(PROBLEMS, type)) throw new Error(`stored problem type ${type} is unknown`);
  throw new HttpError(type, detail, { ...extras, headers: { [REPLAYED_HEADER]: 'true' } });
}

/** A refusal stored for retries (API.md §8.7): a 4xx but 409 and 429. */
const kept = (err: HttpError) => err.status >= 400 && err.status < 500 && err.status !== 409 && err.status !== 429;

/**
 * The bytes a request is fingerprinted by: its body, a multipart body with its boundary
 * replaced (a client sending the same form again draws a new boundary; the boundary appears in
 * the body only as the delimiter, RFC 2046 §5.1.1).
 */
function fingerprintedBody(route: RouteDecl, event: ApiEvent, contentType: string | undefined): Buffer {
  const bytes = bodyBytes(event.body, event.isBase64Encoded === true);
  if (route.bodyType !== 'multipart') return bytes;
  const boundary = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType ?? '');
  const delimiter = boundary ? Buffer.from(`--${boundary[1] ?? boundary[2]}`, 'latin1') : null;
  if (!delimiter) return bytes;
  const parts: Buffer[] = [];
  let from = 0;
  for (let at = bytes.indexOf(delimiter); at >= 0; at = bytes.indexOf(delimiter, from)) {
    parts.push(bytes.subarray(from, at), Buffer.from('--\0', 'latin1'));
    from = at + delimiter.length;
  }
  parts.push(bytes.subarray(from));
  return Buffer.concat(parts);
}

/** The fingerprint of a request (§8.7 "the same key, path and body"): its method, path and query string, and body. */
export function requestFingerprint(scope: IdempotencyScope, route: RouteDecl, event: ApiEvent, contentType: string | undefined): string {
  const target = event.rawQueryString ? `${event.rawPath}?${event.rawQueryString}` : event.rawPath;
  return fingerprint(scope, event.requestContext.http.method, target, fingerprintedBody(route, event, contentType));
}

/**
 * The operation of a creating route with steps 2–4 around it (other routes: the operation, with
 * a `req.idempotent` that joins nothing). The request's own answer is returned or thrown as the
 * operation gave it; IdempotencyLost becomes 409.
 */
export function idempotently<R extends RouteDecl>(route: R, operation: Operation<R>): (req: ApiRequest<R>, event: ApiEvent) => Promise<Reply> {
  if (!takesIdempotencyKey(route)) {
    return (req) => {
      req.idempotent = () => NOTHING;
      return operation(req);
    };
  }
  return async (req, event) => {
    const value = req.headers[IDEMPOTENCY_HEADER];
    if (value === undefined) {
      req.idempotent = () => NOTHING;
      return operation(req);
    }
    const caller = req.caller ? `user:${req.caller.user_id}` : `ip:${clientKey(requestState(event).clientIp)}`;
    const scope = idempotencyScope(caller, value);
    const fp = requestFingerprint(scope, route, event, req.headers['content-type']);
    const claimed = await claimKey(scope, fp, Date.now(), LEASE_MS);
    if (claimed === 'reused') throw reused();
    if (claimed === 'busy') throw inProgress();
    if ('done' in claimed) return replay(claimed.done.payload);
    const claim = claimed.claimed;

    let joined: Reply | undefined;
    req.idempotent = (reply) => {
      joined = reply;
      return completionPlan(claim, { status: reply.status, payload: storedReply(reply) });
    };
    let reply: Reply;
    try {
      reply = await operation(req);
    } catch (err) {
      throw await afterRefusal(claim, err, req);
    }
    if (joined !== reply) {
      // A creation that committed without its stored answer (a bug, which the e2e test of every
      // creating route catches): stored now, outside the creation's transaction.
      logger.error('a creation answered without joining its stored answer to its transaction', { route: route.name, request_id: req.requestId });
      await storeOutcome(claim, { status: reply.status, payload: storedReply(reply) }).catch((err: unknown) => {
        logger.warn('idempotent answer not stored', { request_id: req.requestId, error: err as Error });
      });
    }
    return reply;
  };
}

/** Step 4 for an operation that threw: the refusal stored, or the key given back. Returns what to throw. */
async function afterRefusal(claim: Claim, err: unknown, req: ApiRequest): Promise<unknown> {
  if (err instanceof IdempotencyLost) return inProgress();
  const problem = toHttpError(err);
  try {
    if (kept(problem)) await storeOutcome(claim, { status: problem.status, payload: storedProblem(problem) });
    else await release(claim);
  } catch (failure) {
    // The database is down, or the key was taken: the lease runs out, and a retry is tried again.
    if (!(failure instanceof IdempotencyLost)) logger.warn('idempotency key not settled', { request_id: req.requestId, error: failure as Error });
  }
  return err;
}

/**
 * The problem documents of API.md §1.4, checked without the test runner (contract.ts's
 * `expectProblem` asserts with these; the fuzz test and its benchmark section collect them).
 */
import type { Sent } from './http.js';

/** Titles and statuses of the problem types of §1.4. */
export const PROBLEM_TYPES = {
  'malformed-request': [400, 'Malformed request'],
  'invalid-query': [400, 'Invalid query parameter'],
  'validation-error': [400, 'Validation failed'],
  'authentication-required': [401, 'Authentication required'],
  'invalid-token': [401, 'Invalid token'],
  'invalid-credentials': [401, 'Invalid credentials'],
  'account-inactive': [401, 'Account inactive'],
  forbidden: [403, 'Forbidden'],
  'stale-token': [403, 'Stale token'],
  'not-found': [404, 'Not found'],
  'method-not-allowed': [405, 'Method not allowed'],
  conflict: [409, 'Conflict'],
  'idempotency-in-progress': [409, 'Request in progress'],
  gone: [410, 'Gone'],
  'precondition-failed': [412, 'Precondition failed'],
  'payload-too-large': [413, 'Payload too large'],
  'unsupported-media-type': [415, 'Unsupported media type'],
  'idempotency-key-reuse': [422, 'Idempotency key reused'],
  'rate-limited': [429, 'Too many requests'],
  'service-unavailable': [503, 'Service unavailable'],
  'internal-error': [500, 'Internal error'],
} as const;
export type ProblemKind = keyof typeof PROBLEM_TYPES;

export const PROBLEM_TYPE = 'application/problem+json; charset=utf-8';

/** The problem type a response names (`urn:problem:<kind>`), if it is one of §1.4. */
export function problemKind(res: Pick<Sent, 'body'>): ProblemKind | null {
  const type = (res.body as { type?: unknown } | undefined)?.type;
  if (typeof type !== 'string' || !type.startsWith('urn:problem:')) return null;
  const kind = type.slice('urn:problem:'.length);
  return Object.hasOwn(PROBLEM_TYPES, kind) ? (kind as ProblemKind) : null;
}

/**
 * What makes `res` not a problem document of §1.4 for its own status (empty: it is one):
 * content type, Cache-Control, type/title/status of one problem type, detail, instance (the
 * request path), request_id (= X-Request-Id), WWW-Authenticate on 401, the `errors` member.
 */
export function problemDefects(res: Sent): string[] {
  const defects: string[] = [];
  const check = (ok: boolean, what: string) => {
    if (!ok) defects.push(what);
  };
  check(res.headers.get('content-type') === PROBLEM_TYPE, `content-type ${res.headers.get('content-type')}`);
  check(res.headers.get('cache-control') === 'no-store', `cache-control ${res.headers.get('cache-control')}`);
  const body = res.body as Record<string, unknown> | undefined;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return [...defects, 'the body is not a JSON object'];
  const kind = problemKind(res);
  if (kind === null) defects.push(`type ${JSON.stringify(body.type)}`);
  else {
    const [status, title] = PROBLEM_TYPES[kind];
    check(status === res.status, `type ${kind} on a ${res.status}`);
    check(body.title === title, `title ${JSON.stringify(body.title)}`);
  }
  check(body.status === res.status, `status member ${JSON.stringify(body.status)}`);
  check(typeof body.detail === 'string', 'detail is not a string');
  check(body.instance === res.path.split('?')[0], `instance ${JSON.stringify(body.instance)}`);
  check(typeof body.request_id === 'string' && body.request_id.length > 0, 'request_id');
  check(res.headers.get('x-request-id') === body.request_id, 'X-Request-Id differs from request_id');
  if (res.status === 401) {
    const expected = kind === 'invalid-token' ? 'Bearer realm="api", error="invalid_token"' : 'Bearer realm="api"';
    check(res.headers.get('www-authenticate') === expected, `www-authenticate ${res.headers.get('www-authenticate')}`);
  }
  if (kind === 'validation-error' || kind === 'invalid-query') {
    check(typeof body.errors === 'object' && body.errors !== null && Object.keys(body.errors).length > 0, 'no errors member');
  }
  if (body.errors !== undefined) {
    if (typeof body.errors !== 'object' || body.errors === null || Array.isArray(body.errors)) defects.push('errors is not an object');
    else {
      for (const [key, messages] of Object.entries(body.errors)) {
        check(Array.isArray(messages) && messages.length > 0 && messages.every((m) => typeof m === 'string'), `errors.${key}`);
      }
    }
  }
  return defects;
}

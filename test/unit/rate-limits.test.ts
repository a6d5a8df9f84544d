/**
 * The specific rate limits of API.md §7.2 in the middleware (shared/http/rate-limiter.ts), with
 * DynamoDB mocked by an in-memory counter store that follows the conditional updates of
 * shared/db/rate-counters.ts: where 429 falls in the precedence of §1.4, which e-mail address is
 * counted, which limit the RateLimit-* headers report, and that refused requests are not counted.
 * Declared test routes stand in for the account and token routes.
 */
import { ConditionalCheckFailedException, ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod/mini';
import { rateCounterKey, TTL_MARGIN } from '../../shared/db/rate-counters.js';
import { createHandler, type ApiEvent, type AuthorizerContext, type Operation } from '../../shared/http/handler.js';
import { requestLimits } from '../../shared/http/rate-limiter.js';
import { HttpError } from '../../shared/problem.js';
import {
  clientKey,
  parseSetting,
  POLICIES,
  reported,
  submittedEmail,
  windowAt,
  type PolicyName,
} from '../../shared/http/rate-limits.js';
import { defineRoute, type RouteDecl } from '../../shared/http/route.js';
import { invokeApi, signInRoute } from '../support/lambda.js';

const ddb = mockClient(DynamoDBDocumentClient);

// ---- an in-memory counter store with the semantics of the conditional UpdateItem -------------

const store = new Map<string, { n: number; expires_at?: number }>();
let failOn: RegExp | null = null;
const idOf = (key: { pk?: unknown; sk?: unknown }) => `${String(key.pk)}|${String(key.sk)}`;

function fakeUpdate(input: UpdateCommandInput) {
  const id = idOf(input.Key!);
  if (failOn?.test(id)) throw new ProvisionedThroughputExceededException({ message: 'throttled', $metadata: { httpStatusCode: 400 } });
  const values = input.ExpressionAttributeValues!;
  const item = store.get(id);
  const refuse = () => new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: { httpStatusCode: 400 } });
  if (':one' in values) {
    expect(input.UpdateExpression).toBe('ADD n :one SET expires_at = :expires');
    expect(input.ConditionExpression).toBe('attribute_not_exists(n) OR n < :limit');
    if (item && item.n >= (values[':limit'] as number)) throw refuse();
    const next = { n: (item?.n ?? 0) + 1, expires_at: values[':expires'] as number };
    store.set(id, next);
    return { Attributes: next };
  }
  expect(values[':minus']).toBe(-1);
  if (!item) throw refuse();
  item.n -= 1;
  return {};
}

const windowOf = (seconds: number) => windowAt(seconds, Date.now());
const keyOf = (policy: PolicyName, dimension: string, key: string, window: number) =>
  rateCounterKey(policy, dimension, key, windowOf(window).start);
const countOf = (policy: PolicyName, dimension: string, key: string, window: number) =>
  store.get(idOf(keyOf(policy, dimension, key, window)))?.n;
const seed = (policy: PolicyName, dimension: string, key: string, window: number, n: number) =>
  store.set(idOf(keyOf(policy, dimension, key, window)), { n, expires_at: windowOf(window).end + TTL_MARGIN });
const updates = () => ddb.commandCalls(UpdateCommand).map((c) => c.args[0].input);
const counts = () => updates().filter((u) => ':one' in (u.ExpressionAttributeValues ?? {}));
const undos = () => updates().filter((u) => ':minus' in (u.ExpressionAttributeValues ?? {}));

// ---- declared test routes ---------------------------------------------------------------------

const signIn = signInRoute('sign-in');
const signInOperation: Operation<typeof signIn> = async (req) => {
  const body = req.body();
  if (body.password !== 'right') throw new HttpError('invalid-credentials', 'Wrong e-mail or password.');
  return { status: 200, body: { access: 'a', refresh: 'r' } };
};

/** A signed-in route with a policy per IP (none exists in the contract): shows 429 before 401. */
const memberPerIp = defineRoute({
  name: 'test.member-per-ip',
  method: 'POST',
  path: '/api/users/set_password/',
  access: 'member',
  summary: 'Test',
  body: z.strictObject({}),
  response: { status: 204 },
  rateLimit: { policy: 'token' },
  keys: {},
});

const upload = defineRoute({
  name: 'persons.create-picture',
  method: 'POST',
  path: '/api/persons/{id}/create-picture/',
  access: 'contributor',
  summary: 'Upload',
  response: { status: 201 },
  rateLimit: [{ policy: 'upload' }, { policy: 'catalogue-write' }],
  keys: {},
});

/** A catalogue write (API.md §7.2 `catalogue write`): a genre's creation. */
const createGenre = defineRoute({
  name: 'genres.create',
  method: 'POST',
  path: '/api/genres/',
  access: 'contributor',
  summary: 'Create a genre',
  response: { status: 201 },
  rateLimit: { policy: 'catalogue-write' },
  keys: {},
});
const CONTRIBUTOR: AuthorizerContext = { status: 'user', user_id: 'Cq7YbQk3Lm9Pz2Rt5Vw8Xb', username: 'contributor_one', role: 'contributor' };

const deleteUser = defineRoute({
  name: 'users.delete',
  method: 'DELETE',
  path: '/api/users/{id}/',
  access: 'member',
  summary: 'Delete a user',
  response: { status: 204 },
  rateLimit: { policy: 'account', when: ({ caller, params }) => caller !== null && caller.user_id === params.id },
  keys: {},
});

const noContent = async () => ({ status: 204 });
const handlers = {
  signIn: createHandler(signIn, signInOperation, { rateLimits: requestLimits }),
  memberPerIp: createHandler(memberPerIp, noContent, { rateLimits: requestLimits }),
  upload: createHandler(upload, async () => ({ status: 201, body: {} }), { rateLimits: requestLimits }),
  deleteUser: createHandler(deleteUser, noContent, { rateLimits: requestLimits }),
  createGenre: createHandler(createGenre, async () => ({ status: 201, body: {} }), { rateLimits: requestLimits }),
};

const MEMBER: AuthorizerContext = { status: 'user', user_id: 'Ue7YbQk3Lm9Pz2Rt5Vw8Xa', username: 'member_one', role: 'member' };
const OTHER_ID = 'Xq2V9hK0aT3mB7nC1dE4fG';
const IP = '203.0.113.7';

let n = 0;
function event(
  route: RouteDecl,
  o: { body?: string; contentType?: string | null; ip?: string; authorizer?: AuthorizerContext; params?: Record<string, string>; headers?: Record<string, string> } = {},
): ApiEvent {
  const rawPath = route.path.replace(/\{([a-z_]+)\}/g, (_, name: string) => o.params?.[name] ?? 'x');
  const contentType = o.body !== undefined && o.contentType !== null ? { 'content-type': o.contentType ?? 'application/json' } : {};
  return {
    version: '2.0',
    routeKey: `${route.method} ${route.path}`,
    rawPath,
    rawQueryString: '',
    headers: { host: 'api.example.org', ...contentType, ...o.headers },
    ...(o.params ? { pathParameters: o.params } : {}),
    ...(o.body !== undefined ? { body: o.body } : {}),
    isBase64Encoded: false,
    requestContext: {
      requestId: `req-${++n}`,
      domainName: 'api.example.org',
      http: { method: route.method, path: rawPath, sourceIp: o.ip ?? IP, protocol: 'HTTP/1.1', userAgent: 'test' },
      ...(o.authorizer ? { authorizer: { lambda: o.authorizer } } : {}),
    },
  };
}

const credentials = (email: string, password = 'right') => JSON.stringify({ email, password });

function expectProblem(res: { status: number; body: any }, status: number, type: string) {
  expect(res.status).toBe(status);
  expect(res.body).toMatchObject({ type: `urn:problem:${type}`, status });
}

function expectLimitHeaders(res: { headers: Record<string, string> }, limit: number, remaining: number, reset: number) {
  expect(res.headers['ratelimit-limit']).toBe(String(limit));
  expect(res.headers['ratelimit-remaining']).toBe(String(remaining));
  expect(res.headers['ratelimit-reset']).toBe(String(reset));
}

function expectNoLimitHeaders(res: { headers: Record<string, string> }) {
  expect(Object.keys(res.headers).filter((h) => h.startsWith('ratelimit-'))).toEqual([]);
}

/** 10:00:30 UTC: 30 s left in the minute window, 3,570 s in the hour window. */
const NOW = new Date('2025-03-01T10:00:30.000Z');

beforeEach(() => {
  ddb.reset();
  ddb.on(UpdateCommand).callsFake(fakeUpdate);
  store.clear();
  failOn = null;
  delete process.env.RATE_LIMITS; // on: the published values
  vi.useFakeTimers({ toFake: ['Date'], now: NOW });
});
afterEach(() => {
  vi.useRealTimers();
  process.env.RATE_LIMITS = 'off'; // as the unit-test environment has it
});
afterAll(() => ddb.restore());

describe('the policy table and its setting', () => {
  it('API.md §7.2: the specific policies and their limits', () => {
    const flat = Object.fromEntries(Object.entries(POLICIES).map(([name, limits]) => [name, limits.map((l) => `${l.limit}/${l.window}s per ${l.dimension}`)]));
    expect(flat).toEqual({
      'sign-in': ['10/60s per ip', '20/3600s per email'],
      token: ['30/60s per ip'],
      social: ['30/60s per ip'],
      registration: ['5/3600s per ip'],
      'mail-request': ['5/3600s per ip', '3/3600s per email'],
      confirm: ['20/3600s per ip'],
      account: ['10/3600s per user'],
      upload: ['60/3600s per user'],
      'catalogue-write': ['60/60s per user', '1000/86400s per user'],
    });
  });

  it('a policy counts either per user or per IP / e-mail, never both (its `when` is evaluated at one point)', () => {
    for (const [name, limits] of Object.entries(POLICIES)) {
      const perUser = limits.map((l) => l.dimension === 'user');
      expect(new Set(perUser).size, name).toBe(1);
    }
  });

  it('RATE_LIMITS: on / empty → defaults, off → none, JSON → overrides; anything else is refused', () => {
    expect(parseSetting('')).toBe(POLICIES);
    expect(parseSetting('on')).toBe(POLICIES);
    expect(parseSetting('off')).toBeNull();
    const custom = parseSetting('{"sign-in.ip": {"limit": 3}, "registration.ip": {"limit": 50, "window": 86400}}')!;
    expect(custom['sign-in']).toEqual([
      { dimension: 'ip', limit: 3, window: 60 },
      { dimension: 'email', limit: 20, window: 3600 },
    ]);
    expect(custom.registration).toEqual([{ dimension: 'ip', limit: 50, window: 86400 }]);
    expect(POLICIES['sign-in'][0].limit).toBe(10);
    // Two limits of one dimension are named apart (`<policy>.<dimension>.<name>`).
    const writes = parseSetting('{"catalogue-write.user.day": {"limit": 5000}}')!;
    expect(writes['catalogue-write']).toEqual([
      { dimension: 'user', limit: 60, window: 60, name: 'minute' },
      { dimension: 'user', limit: 5000, window: 86400, name: 'day' },
    ]);
    for (const bad of [
      'yes',
      '[]',
      '{"sign-in.user": {"limit": 1}}',
      '{"nope.ip": {"limit": 1}}',
      '{"token.ip": {"limit": 0}}',
      '{"token.ip": {"limit": 1.5}}',
      '{"token.ip": {"max": 1}}',
      '{"token.ip": 5}',
      '{"catalogue-write.user": {"limit": 1}}',
      '{"catalogue-write.user.week": {"limit": 1}}',
      '{"token": {"limit": 1}}',
    ]) {
      expect(() => parseSetting(bad), bad).toThrow(/RATE_LIMITS/);
    }
  });

  it('an unusable setting fails the limited routes (500) rather than leaving them unlimited', async () => {
    process.env.RATE_LIMITS = '{"sign-in.ip": {"limit": -1}}';
    const res = await invokeApi(handlers.signIn, event(signIn, { body: credentials('a@example.org') }));
    expectProblem(res, 500, 'internal-error');
  });
});

describe('keys: client address and submitted e-mail', () => {
  it('IPv4 as sent; IPv6 by its /64 network; IPv4-mapped IPv6 as IPv4', () => {
    expect(clientKey('203.0.113.7')).toBe('203.0.113.7');
    expect(clientKey('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:DB8:1:2::9')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:0db8:0001:0002:ffff::1')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientKey('::1')).toBe('0:0:0:0::/64');
    expect(clientKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(clientKey('::ffff:192.0.2.1')).toBe('192.0.2.1');
  });

  it('the e-mail: a string `email` of a JSON object, NFC, trimmed, lower case', () => {
    expect(submittedEmail({ email: '  Alice@Example.ORG ' })).toBe('alice@example.org');
    expect(submittedEmail({ email: 'Ame\u0301lie@example.org' })).toBe('am\u00e9lie@example.org');
    expect(submittedEmail({ email: '   ' })).toBeNull();
    expect(submittedEmail({ email: 42 })).toBeNull();
    expect(submittedEmail({})).toBeNull();
    expect(submittedEmail(null)).toBeNull();
  });

  it('counts the e-mail limit under the normalised address, hashed: no address in any key', async () => {
    await invokeApi(handlers.signIn, event(signIn, { body: credentials('  Alice@Example.ORG ') }));
    expect(countOf('sign-in', 'email', 'alice@example.org', 3600)).toBe(1);
    expect(countOf('sign-in', 'ip', IP, 60)).toBe(1);
    for (const u of counts()) {
      expect(String(u.Key!.pk)).toMatch(/^RATE#sign-in#(ip|email)#[A-Za-z0-9_-]{43}$/);
      expect(JSON.stringify(u.Key)).not.toContain('alice');
      expect(JSON.stringify(u.Key)).not.toContain(IP);
    }
  });

  it('no e-mail limit when the body is not a JSON object, has no string `email`, or is not sent as JSON', async () => {
    const bodies: [string, string | null][] = [
      ['{"email": ', 'application/json'],
      ['["a@example.org"]', 'application/json'],
      ['{"email": ["a@example.org"]}', 'application/json'],
      ['{"password": "x"}', 'application/json'],
      [credentials('a@example.org'), 'text/plain'],
      [credentials('a@example.org'), null],
    ];
    for (const [body, contentType] of bodies) {
      ddb.resetHistory();
      await invokeApi(handlers.signIn, event(signIn, { body, contentType }));
      expect(counts().map((u) => String(u.Key!.pk).split('#')[2]), body).toEqual(['ip']);
    }
  });
});

describe('precedence (API.md §1.4): 413 → 429 → 401 → 403 → 415 → 400', () => {
  it('413 before 429: an oversized body is refused without counting', async () => {
    seed('sign-in', 'ip', IP, 60, 10);
    const res = await invokeApi(handlers.signIn, event(signIn, { body: JSON.stringify({ email: 'a@example.org', pad: 'x'.repeat(1_048_576) }) }));
    expectProblem(res, 413, 'payload-too-large');
    expect(updates()).toEqual([]);
    expectNoLimitHeaders(res);
  });

  it('429 before 415 and before 400 malformed-request', async () => {
    seed('sign-in', 'ip', IP, 60, 10);
    expectProblem(await invokeApi(handlers.signIn, event(signIn, { body: credentials('a@example.org'), contentType: 'text/plain' })), 429, 'rate-limited');
    expectProblem(await invokeApi(handlers.signIn, event(signIn, { body: '{"email": ' })), 429, 'rate-limited');
    expectProblem(await invokeApi(handlers.signIn, event(signIn, { body: '{}' })), 429, 'rate-limited');
  });

  it('limits per IP: 429 before 401 (an invalid token is not even looked at)', async () => {
    seed('token', 'ip', IP, 60, 30);
    const res = await invokeApi(handlers.memberPerIp, event(memberPerIp, { body: '{}', authorizer: { status: 'invalid' } }));
    expectProblem(res, 429, 'rate-limited');
    // Not exhausted: the request is counted and gets its 401, with the headers.
    const other = await invokeApi(handlers.memberPerIp, event(memberPerIp, { body: '{}', ip: '198.51.100.1', authorizer: { status: 'invalid' } }));
    expectProblem(other, 401, 'invalid-token');
    expectLimitHeaders(other, 30, 29, 30);
  });

  it('limits per user: an anonymous request has no user to count and gets its 401', async () => {
    const res = await invokeApi(handlers.upload, event(upload, { params: { id: OTHER_ID }, authorizer: { status: 'anonymous' } }));
    expectProblem(res, 401, 'authentication-required');
    expect(updates()).toEqual([]);
    expectNoLimitHeaders(res);
  });

  it('limits per user: 429 before the role check (403)', async () => {
    seed('upload', 'user', MEMBER.user_id!, 3600, 60);
    expectProblem(await invokeApi(handlers.upload, event(upload, { params: { id: OTHER_ID }, authorizer: MEMBER })), 429, 'rate-limited');
    store.clear();
    const res = await invokeApi(handlers.upload, event(upload, { params: { id: OTHER_ID }, authorizer: MEMBER }));
    expectProblem(res, 403, 'forbidden');
    expectLimitHeaders(res, 60, 59, 3570);
    expect(countOf('upload', 'user', MEMBER.user_id!, 3600)).toBe(1);
  });

  it('a request that passes is counted whatever its outcome (400, 401), with the headers', async () => {
    const bad = await invokeApi(handlers.signIn, event(signIn, { body: '{"email": "a@example.org"}' }));
    expectProblem(bad, 400, 'validation-error');
    expectLimitHeaders(bad, 10, 9, 30);
    const wrong = await invokeApi(handlers.signIn, event(signIn, { body: credentials('a@example.org', 'wrong') }));
    expectProblem(wrong, 401, 'invalid-credentials');
    expectLimitHeaders(wrong, 10, 8, 30);
    expect(countOf('sign-in', 'email', 'a@example.org', 3600)).toBe(2);
  });
});

describe('counting, 429 and the headers', () => {
  it('10 sign-ins per minute per IP; the 11th: 429 with Retry-After, retry_after and the headers', async () => {
    for (let i = 1; i <= 10; i++) {
      const res = await invokeApi(handlers.signIn, event(signIn, { body: credentials(`u${i}@example.org`) }));
      expect(res.status).toBe(200);
      expectLimitHeaders(res, 10, 10 - i, 30);
    }
    const res = await invokeApi(handlers.signIn, event(signIn, { body: credentials('u11@example.org') }));
    expectProblem(res, 429, 'rate-limited');
    expect(res.body.title).toBe('Too many requests');
    expect(res.headers['retry-after']).toBe('30');
    expect(res.body.retry_after).toBe(30);
    expectLimitHeaders(res, 10, 0, 30);
    expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(res.headers['x-request-id']).toBe(res.body.request_id);
  });

  it('the headers report the limit with the fewest remaining requests', async () => {
    seed('sign-in', 'email', 'a@example.org', 3600, 18);
    const res = await invokeApi(handlers.signIn, event(signIn, { body: credentials('a@example.org') }));
    expect(res.status).toBe(200);
    expectLimitHeaders(res, 20, 1, 3570); // IP: 9 left; e-mail: 1 left
    const fresh = await invokeApi(handlers.signIn, event(signIn, { body: credentials('b@example.org') }));
    expectLimitHeaders(fresh, 10, 8, 30); // IP: 8 left; e-mail: 19 left
  });

  it('ties: the later reset; reported() picks the fewest remaining', () => {
    expect(reported([])).toBeNull();
    expect(reported([{ limit: 10, remaining: 2, reset: 30 }, { limit: 20, remaining: 2, reset: 3000 }])).toEqual({ limit: 20, remaining: 2, reset: 3000 });
    expect(reported([{ limit: 10, remaining: 1, reset: 30 }, { limit: 20, remaining: 2, reset: 3000 }])).toEqual({ limit: 10, remaining: 1, reset: 30 });
  });

  it('a refused request is not counted: the e-mail limit refuses, the IP count is taken back', async () => {
    seed('sign-in', 'email', 'a@example.org', 3600, 20);
    const res = await invokeApi(handlers.signIn, event(signIn, { body: credentials('a@example.org') }));
    expectProblem(res, 429, 'rate-limited');
    expectLimitHeaders(res, 20, 0, 3570);
    expect(res.headers['retry-after']).toBe('3570');
    expect(countOf('sign-in', 'ip', IP, 60)).toBe(0);
    expect(countOf('sign-in', 'email', 'a@example.org', 3600)).toBe(20);
    expect(undos().map((u) => u.Key)).toEqual([keyOf('sign-in', 'ip', IP, 60)]);
    expect(undos()[0]!.ConditionExpression).toBe('attribute_exists(n)');
  });

  it('both limits exhausted: Retry-After is the later reset (the request needs both)', async () => {
    seed('sign-in', 'ip', IP, 60, 10);
    seed('sign-in', 'email', 'a@example.org', 3600, 20);
    const res = await invokeApi(handlers.signIn, event(signIn, { body: credentials('a@example.org') }));
    expect(res.headers['retry-after']).toBe('3570');
    expect(undos()).toEqual([]);
  });

  it('Retry-After and RateLimit-Reset are whole seconds, at least 1', async () => {
    vi.setSystemTime(new Date('2025-03-01T10:00:59.800Z'));
    seed('sign-in', 'ip', IP, 60, 10);
    const res = await invokeApi(handlers.signIn, event(signIn, { body: credentials('a@example.org') }));
    expect(res.headers['retry-after']).toBe('1');
    expect(res.body.retry_after).toBe(1);
    expect(windowAt(60, Date.parse('2025-03-01T10:01:00.000Z')).reset).toBe(60);
    expect(windowAt(60, Date.parse('2025-03-01T10:00:59.999Z'))).toEqual({ start: 1740823200, end: 1740823260, reset: 1 });
  });

  it('a new window starts a new count; counters carry their TTL (window end + margin)', async () => {
    seed('sign-in', 'ip', IP, 60, 10);
    expect((await invokeApi(handlers.signIn, event(signIn, { body: credentials('a@example.org') }))).status).toBe(429);
    vi.setSystemTime(new Date('2025-03-01T10:01:00.000Z'));
    const res = await invokeApi(handlers.signIn, event(signIn, { body: credentials('a@example.org') }));
    expect(res.status).toBe(200);
    const ipUpdate = counts().filter((u) => String(u.Key!.pk).includes('#ip#')).at(-1)!;
    expect(ipUpdate.Key!.sk).toBe('1740823260');
    expect(ipUpdate.ExpressionAttributeValues![':expires']).toBe(1740823260 + 60 + TTL_MARGIN);
  });

  it('throttled counters: 503 with Retry-After (never unlimited), and the other count is taken back', async () => {
    failOn = /#ip#/;
    const res = await invokeApi(handlers.signIn, event(signIn, { body: credentials('a@example.org') }));
    expectProblem(res, 503, 'service-unavailable');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(countOf('sign-in', 'email', 'a@example.org', 3600)).toBe(0);
  });

  it('the headers are exposed to browsers (CORS)', async () => {
    const res = await invokeApi(handlers.signIn, event(signIn, { body: credentials('a@example.org'), headers: { origin: 'https://app.example.org' } }));
    expect(res.headers['access-control-expose-headers']).toContain('RateLimit-Remaining');
  });
});

describe('several policies on one route, several limits of one dimension: catalogue write', () => {
  const CONTRIBUTOR_ID = CONTRIBUTOR.user_id!;
  const write = () => invokeApi(handlers.createGenre, event(createGenre, { body: '{}', authorizer: CONTRIBUTOR }));

  it('60 per minute: the 61st is 429 until the minute ends, and its day count is taken back', async () => {
    for (let i = 1; i <= 60; i++) expectLimitHeaders(await write(), 60, 60 - i, 30);
    const res = await write();
    expectProblem(res, 429, 'rate-limited');
    expect(res.headers['retry-after']).toBe('30');
    expect(countOf('catalogue-write', 'user.minute', CONTRIBUTOR_ID, 60)).toBe(60);
    expect(countOf('catalogue-write', 'user.day', CONTRIBUTOR_ID, 86_400)).toBe(60);
    // Another user is counted on their own.
    const other = await invokeApi(handlers.createGenre, event(createGenre, { body: '{}', authorizer: { ...CONTRIBUTOR, user_id: OTHER_ID } }));
    expectLimitHeaders(other, 60, 59, 30);
  });

  it('1,000 per day: Retry-After is the end of the UTC day', async () => {
    seed('catalogue-write', 'user.day', CONTRIBUTOR_ID, 86_400, 999);
    expectLimitHeaders(await write(), 1000, 0, 50_370);
    const res = await write();
    expectProblem(res, 429, 'rate-limited');
    expect(res.headers['retry-after']).toBe('50370');
    expect(countOf('catalogue-write', 'user.minute', CONTRIBUTOR_ID, 60)).toBe(1);
  });

  it('the two limits count apart even when their windows start at the same second (midnight UTC)', async () => {
    vi.setSystemTime(new Date('2025-03-01T00:00:30.000Z'));
    expect(windowAt(60, Date.now()).start).toBe(windowAt(86_400, Date.now()).start);
    seed('catalogue-write', 'user.day', CONTRIBUTOR_ID, 86_400, 500);
    expectLimitHeaders(await write(), 60, 59, 30);
    expect(countOf('catalogue-write', 'user.minute', CONTRIBUTOR_ID, 60)).toBe(1);
    expect(countOf('catalogue-write', 'user.day', CONTRIBUTOR_ID, 86_400)).toBe(501);
  });

  it('an upload counts against both its policies; a refusal by one takes back the other\'s counts', async () => {
    const res = await invokeApi(handlers.upload, event(upload, { params: { id: OTHER_ID }, authorizer: CONTRIBUTOR }));
    // Upload 59 left (the hour) and catalogue write 59 left (the minute): the tie reports the later reset.
    expectLimitHeaders(res, 60, 59, 3570);
    expect(countOf('upload', 'user', CONTRIBUTOR_ID, 3600)).toBe(1);
    expect(countOf('catalogue-write', 'user.minute', CONTRIBUTOR_ID, 60)).toBe(1);
    seed('catalogue-write', 'user.minute', CONTRIBUTOR_ID, 60, 60);
    const refused = await invokeApi(handlers.upload, event(upload, { params: { id: OTHER_ID }, authorizer: CONTRIBUTOR }));
    expectProblem(refused, 429, 'rate-limited');
    expect(refused.headers['retry-after']).toBe('30');
    expect(countOf('upload', 'user', CONTRIBUTOR_ID, 3600)).toBe(1);
    expect(countOf('catalogue-write', 'user.day', CONTRIBUTOR_ID, 86_400)).toBe(1);
    // And the other way round: the upload's hour exhausted, the catalogue write counts are taken back.
    seed('upload', 'user', CONTRIBUTOR_ID, 3600, 60);
    seed('catalogue-write', 'user.minute', CONTRIBUTOR_ID, 60, 5);
    expectProblem(await invokeApi(handlers.upload, event(upload, { params: { id: OTHER_ID }, authorizer: CONTRIBUTOR })), 429, 'rate-limited');
    expect(countOf('catalogue-write', 'user.minute', CONTRIBUTOR_ID, 60)).toBe(5);
  });
});

describe('when a policy applies', () => {
  it('`when`: the DELETE of one’s own account is counted, an administrator’s DELETE of another is not', async () => {
    const own = await invokeApi(handlers.deleteUser, event(deleteUser, { params: { id: MEMBER.user_id! }, authorizer: MEMBER }));
    expect(own.status).toBe(204);
    expectLimitHeaders(own, 10, 9, 3570);
    const admin: AuthorizerContext = { status: 'user', user_id: 'Ad7YbQk3Lm9Pz2Rt5Vw8Xa', username: 'admin', role: 'administrator' };
    ddb.resetHistory();
    const other = await invokeApi(handlers.deleteUser, event(deleteUser, { params: { id: MEMBER.user_id! }, authorizer: admin }));
    expect(other.status).toBe(204);
    expect(updates()).toEqual([]);
    expectNoLimitHeaders(other);
  });

  it('`when` sees the caller and the path parameters as sent', async () => {
    const seen: unknown[] = [];
    const route = defineRoute({ ...deleteUser, rateLimit: { policy: 'account', when: (r) => (seen.push(r), false) } });
    await invokeApi(createHandler(route, noContent, { rateLimits: requestLimits }), event(route, { params: { id: 'not-a-valid-id!' }, authorizer: MEMBER }));
    expect(seen).toEqual([{ caller: { user_id: MEMBER.user_id, username: MEMBER.username, role: 'member' }, params: { id: 'not-a-valid-id!' } }]);
  });

  it('RATE_LIMITS=off: nothing counted, no headers; read on every request', async () => {
    process.env.RATE_LIMITS = 'off';
    seed('sign-in', 'ip', IP, 60, 10);
    const res = await invokeApi(handlers.signIn, event(signIn, { body: credentials('a@example.org') }));
    expect(res.status).toBe(200);
    expectNoLimitHeaders(res);
    expect(updates()).toEqual([]);
    process.env.RATE_LIMITS = 'on';
    expect((await invokeApi(handlers.signIn, event(signIn, { body: credentials('a@example.org') }))).status).toBe(429);
  });

  it('RATE_LIMITS overrides apply to the next request', async () => {
    process.env.RATE_LIMITS = '{"sign-in.ip": {"limit": 2}}';
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await invokeApi(handlers.signIn, event(signIn, { body: credentials(`u${i}@example.org`) }))).status);
    expect(statuses).toEqual([200, 200, 429]);
  });

  it("a rate-limited route's function that does not hand in the rate limiter fails when it is loaded", () => {
    expect(() => createHandler(signIn, signInOperation)).toThrow("tokens.create: a rate-limited route's function hands the rate limiter to createHandler");
  });

  it('routes without a policy never count', async () => {
    const plain = defineRoute({ ...signIn, name: 'test.plain', rateLimit: undefined });
    const res = await invokeApi(createHandler(plain, signInOperation as unknown as Operation<typeof plain>), event(plain, { body: credentials('a@example.org') }));
    expect(res.status).toBe(200);
    expect(updates()).toEqual([]);
    expectNoLimitHeaders(res);
  });
});

/**
 * The specific rate limits of API.md §7.2 on the real engine: a declared sign-in route (the
 * token routes come later) run through createHandler with payload-2.0 events, counting in
 * DynamoDB Local. The clock is fixed (only `Date`) so that no run straddles a window boundary.
 * The test setup switches the limits off for every file; this one switches them on.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { tableName } from '../../shared/db/client.js';
import { db } from '../../shared/db/sdk.js';
import { rateCounterKey, TTL_MARGIN } from '../../shared/db/rate-counters.js';
import { createHandler, type ApiEvent } from '../../shared/http/handler.js';
import { requestLimits } from '../../shared/http/rate-limiter.js';
import { HttpError } from '../../shared/problem.js';
import { windowAt } from '../../shared/http/rate-limits.js';
import { defineRoute } from '../../shared/http/route.js';
import { invokeApi, signInRoute } from '../support/lambda.js';

const signIn = signInRoute('sign-in');
const handler = createHandler(signIn, async (req) => {
  if (req.body().password !== 'right') throw new HttpError('invalid-credentials', 'Wrong e-mail or password.');
  return { status: 200, body: { access: 'a', refresh: 'r' } };
}, { rateLimits: requestLimits });

let n = 0;
/** A unique client address per test, so tests never share counters. */
const freshIp = () => `198.51.100.${++n}`;

function event(ip: string, email: string, password = 'right'): ApiEvent {
  return {
    version: '2.0',
    routeKey: 'POST /api/tokens/jwt/create/',
    rawPath: '/api/tokens/jwt/create/',
    rawQueryString: '',
    headers: { host: 'localhost', 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
    isBase64Encoded: false,
    requestContext: {
      requestId: `rl-${ip}-${Math.random()}`,
      domainName: 'localhost',
      http: { method: 'POST', path: '/api/tokens/jwt/create/', sourceIp: ip, protocol: 'HTTP/1.1', userAgent: 'test' },
    },
  };
}

const signInFrom = (ip: string, email: string, password?: string) => invokeApi(handler, event(ip, email, password));

async function counter(dimension: 'ip' | 'email', key: string, window: number) {
  const w = windowAt(window, Date.now());
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: rateCounterKey('sign-in', dimension, key, w.start), ConsistentRead: true }));
  return out.Item;
}

/** A fixed instant 5 s into the current minute: 55 s left in the minute window. */
let now: number;
beforeEach(() => {
  now = Math.floor(Date.now() / 60_000) * 60_000 + 5_000;
  vi.useFakeTimers({ toFake: ['Date'], now });
  process.env.RATE_LIMITS = 'on';
});
afterEach(() => {
  vi.useRealTimers();
  process.env.RATE_LIMITS = 'off';
});

describe('sign-in: 10 per minute per IP, 20 per hour per e-mail address', () => {
  it('10 pass, the 11th is 429 with Retry-After and the RateLimit-* headers', async () => {
    const ip = freshIp();
    for (let i = 1; i <= 10; i++) {
      const res = await signInFrom(ip, `member${n}.${i}@example.org`, i % 2 === 0 ? 'right' : 'wrong');
      expect(res.status).toBe(i % 2 === 0 ? 200 : 401);
      expect(res.headers['ratelimit-limit']).toBe('10');
      expect(res.headers['ratelimit-remaining']).toBe(String(10 - i));
      expect(res.headers['ratelimit-reset']).toBe('55');
    }
    const res = await signInFrom(ip, `member${n}.11@example.org`);
    expect(res.status).toBe(429);
    expect(res.body).toMatchObject({ type: 'urn:problem:rate-limited', title: 'Too many requests', status: 429, retry_after: 55 });
    expect(res.headers['retry-after']).toBe('55');
    expect(res.headers).toMatchObject({ 'ratelimit-limit': '10', 'ratelimit-remaining': '0', 'ratelimit-reset': '55' });
  });

  it('another client address is not limited by the first one', async () => {
    const first = freshIp();
    for (let i = 0; i < 10; i++) await signInFrom(first, `other${i}@example.org`);
    expect((await signInFrom(first, 'x@example.org')).status).toBe(429);
    const second = await signInFrom(freshIp(), 'x@example.org');
    expect(second.status).toBe(200);
    expect(second.headers['ratelimit-remaining']).toBe('9');
  });

  it('20 per hour per e-mail address, across client addresses and letter case', async () => {
    const email = `target${n}@example.org`;
    for (let i = 0; i < 20; i++) {
      const res = await signInFrom(freshIp(), i % 2 === 0 ? email : `  ${email.toUpperCase()} `, 'wrong');
      expect(res.status).toBe(401);
      // IP: 9 left; e-mail: 19 - i left. The fewer is reported (ties: the later reset, the hour).
      expect(res.headers['ratelimit-remaining']).toBe(String(Math.min(9, 19 - i)));
    }
    const res = await signInFrom(freshIp(), email);
    expect(res.status).toBe(429);
    expect(res.headers['ratelimit-limit']).toBe('20');
    expect(Number(res.headers['retry-after'])).toBe(3600 - ((now / 1000) % 3600));
  });

  it('refused requests are not counted, per IP or per e-mail address', async () => {
    const ip = freshIp();
    const email = `refused${n}@example.org`;
    for (let i = 0; i < 10; i++) await signInFrom(ip, email);
    for (let i = 0; i < 5; i++) expect((await signInFrom(ip, email)).status).toBe(429);
    expect((await counter('ip', ip, 60))?.n).toBe(10);
    expect((await counter('email', email, 3600))?.n).toBe(10);
    // The e-mail address still has 10 sign-ins this hour, from anywhere.
    for (let i = 0; i < 10; i++) expect((await signInFrom(freshIp(), email)).status).toBe(200);
    expect((await signInFrom(freshIp(), email)).status).toBe(429);
    expect((await counter('email', email, 3600))?.n).toBe(20);
  });

  it('counters: hashed keys, expiry by TTL after the window; a new window counts afresh', async () => {
    const ip = freshIp();
    const email = `ttl${n}@example.org`;
    await signInFrom(ip, email);
    const minute = windowAt(60, now);
    const hour = windowAt(3600, now);
    const ipItem = await counter('ip', ip, 60);
    expect(ipItem).toMatchObject({ n: 1, sk: String(minute.start), expires_at: minute.end + TTL_MARGIN });
    expect(String(ipItem!.pk)).toMatch(/^RATE#sign-in#ip#[A-Za-z0-9_-]{43}$/);
    expect(await counter('email', email, 3600)).toMatchObject({ n: 1, sk: String(hour.start), expires_at: hour.end + TTL_MARGIN });
    const stored = JSON.stringify([ipItem, await counter('email', email, 3600)]);
    expect(stored).not.toContain(email);
    expect(stored).not.toContain(ip);

    for (let i = 0; i < 9; i++) await signInFrom(ip, `ttl${n}.${i}@example.org`);
    expect((await signInFrom(ip, email)).status).toBe(429);
    vi.setSystemTime(minute.end * 1000);
    const next = await signInFrom(ip, email);
    expect(next.status).toBe(200);
    expect(next.headers['ratelimit-remaining']).toBe('9');
  });

  it('RATE_LIMITS=off switches the limits and the headers off', async () => {
    const ip = freshIp();
    for (let i = 0; i < 10; i++) await signInFrom(ip, `off${i}@example.org`);
    expect((await signInFrom(ip, 'off@example.org')).status).toBe(429);
    process.env.RATE_LIMITS = 'off';
    for (let i = 0; i < 3; i++) {
      const res = await signInFrom(ip, 'off@example.org');
      expect(res.status).toBe(200);
      expect(res.headers['ratelimit-limit']).toBeUndefined();
    }
    expect((await counter('ip', ip, 60))?.n).toBe(10);
  });
});

describe('account: 10 per hour per user', () => {
  const deleteUser = defineRoute({
    name: 'users.delete',
    method: 'DELETE',
    path: '/api/users/{id}/',
    access: 'member',
    summary: 'Delete a user',
    response: { status: 204 },
    rateLimit: { policy: 'account', when: ({ caller, params }) => caller?.user_id === params.id },
    keys: {},
  });
  const del = createHandler(deleteUser, async () => ({ status: 204 }), { rateLimits: requestLimits });
  const call = (userId: string, targetId: string, ip: string) =>
    invokeApi(del, {
      version: '2.0',
      routeKey: 'DELETE /api/users/{id}/',
      rawPath: `/api/users/${targetId}/`,
      rawQueryString: '',
      headers: { host: 'localhost' },
      pathParameters: { id: targetId },
      requestContext: {
        requestId: `rl-${Math.random()}`,
        http: { method: 'DELETE', path: `/api/users/${targetId}/`, sourceIp: ip, protocol: 'HTTP/1.1', userAgent: 'test' },
        authorizer: { lambda: { status: 'user', user_id: userId, username: 'someone', role: 'member' } },
      },
    });

  it('the user’s own deletions are counted from any address; the 11th is 429', async () => {
    const user = `Ua${String(++n).padStart(20, '0')}`;
    for (let i = 1; i <= 10; i++) {
      const res = await call(user, user, freshIp());
      expect(res.status).toBe(204);
      expect(res.headers['ratelimit-remaining']).toBe(String(10 - i));
    }
    const res = await call(user, user, freshIp());
    expect(res.status).toBe(429);
    expect(res.headers['ratelimit-limit']).toBe('10');
    // Another user, and the same user acting on another id (no policy applies), are not limited.
    expect((await call(`Ub${String(n).padStart(20, '0')}`, `Ub${String(n).padStart(20, '0')}`, freshIp())).status).toBe(204);
    const other = await call(user, `Uc${String(n).padStart(20, '0')}`, freshIp());
    expect(other.status).toBe(204);
    expect(other.headers['ratelimit-limit']).toBeUndefined();
  });
});

/**
 * The `catalogue write` policy of API.md §7.2 through the gateway: 60 per minute and 1,000 per
 * day per user on every POST, PUT, PATCH and DELETE of the catalogue and taxonomy collections and
 * `create-picture`, counted by the functions in DynamoDB (shared/http/rate-limiter.ts). The test
 * setup switches the limits off for every file; this one switches them on for each test. `Date`
 * stands still at a chosen instant of the test's own minute (only `Date`: the requests run
 * at their real speed), so no run straddles a window boundary; accounts are made before, so
 * their tokens were issued no later than that instant.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { tableName } from '../../shared/db/client.js';
import { rateCounterKey, TTL_MARGIN } from '../../shared/db/rate-counters.js';
import { db } from '../../shared/db/sdk.js';
import { limitName, POLICIES, windowAt } from '../../shared/http/rate-limits.js';
import { makeAccount, type Account } from '../support/accounts.js';
import { create, expectJson, expectProblem, kind, minimal, send, uniqueName, type Sent } from '../support/contract.js';
import { fixture } from '../support/images.js';
import { formData } from '../support/multipart.js';
import { useServer } from '../support/server.js';

const server = useServer();
const genres = kind('genres');
const [PER_MINUTE, PER_DAY] = POLICIES['catalogue-write'];

/** The stored count of `user` for one limit of the policy, in the window of now. */
async function counted(user: Account, limit: typeof PER_MINUTE | typeof PER_DAY): Promise<number | undefined> {
  const key = rateCounterKey('catalogue-write', limitName(limit), user.id, windowAt(limit.window, Date.now()).start);
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
  return out.Item?.n as number | undefined;
}

const createGenre = (user: Account): Promise<Sent> => send(server, 'POST', '/api/genres/', { body: minimal(genres, uniqueName('Limited')), headers: user.auth });

/** Freezes `Date` at now: the rest of the test runs in this minute and this day. */
function freezeDate(): number {
  const now = Date.now();
  vi.useFakeTimers({ toFake: ['Date'], now });
  return now;
}

beforeEach(() => {
  process.env.RATE_LIMITS = 'on';
});
afterEach(() => {
  vi.useRealTimers();
  process.env.RATE_LIMITS = 'off';
});

describe('catalogue write: 60 per minute, 1,000 per day per user', () => {
  it('60 writes pass with RateLimit-* headers; the 61st is 429 with Retry-After and not counted; another user is not affected', async () => {
    const [writer, other] = await Promise.all([makeAccount({ role: 'contributor' }), makeAccount({ role: 'contributor' })]);
    const now = freezeDate();
    const reset = String(windowAt(60, now).reset);
    for (let i = 1; i <= 60; i++) {
      const res = await createGenre(writer);
      expectJson(res, 201);
      expect(res.headers.get('ratelimit-limit'), `write ${i}`).toBe('60');
      expect(res.headers.get('ratelimit-remaining'), `write ${i}`).toBe(String(60 - i));
      expect(res.headers.get('ratelimit-reset'), `write ${i}`).toBe(reset);
    }
    for (let i = 0; i < 2; i++) {
      const refused = await createGenre(writer);
      const body = expectProblem(refused, 429, 'rate-limited');
      expect(refused.headers.get('retry-after')).toBe(reset);
      expect(body.retry_after).toBe(Number(reset));
      expect(refused.headers.get('ratelimit-remaining')).toBe('0');
    }
    // Rejected requests are not counted: the day's count is the 60 that passed.
    expect(await counted(writer, PER_MINUTE)).toBe(60);
    expect(await counted(writer, PER_DAY)).toBe(60);
    // Another user's writes are counted on their own.
    const theirs = await createGenre(other);
    expectJson(theirs, 201);
    expect(theirs.headers.get('ratelimit-remaining')).toBe('59');
  });

  it('every write method counts (PUT, PATCH, DELETE of any catalogue collection, create-picture); the writes of the limited user are refused, reads are not limited', async () => {
    freezeDate();
    const writer = await makeAccount({ role: 'contributor' });
    const record = await create(server, genres, writer.auth, minimal(genres, uniqueName('Target')));
    const person = expectJson(await send(server, 'POST', '/api/persons/', { body: { name: uniqueName('Person') }, headers: writer.auth }), 201);
    const writes: [string, string, unknown][] = [
      ['PUT', `/api/genres/${record.id}/`, minimal(genres, uniqueName('Put'))],
      ['PATCH', `/api/genres/${record.id}/`, { name: uniqueName('Patched') }],
      ['PATCH', `/api/persons/${person.id}/`, { about: 'x' }],
      ['POST', '/api/themes/', { name: uniqueName('Theme') }],
    ];
    for (const [method, path, body] of writes) {
      const res = await send(server, method, path, { body, headers: writer.auth });
      expect(res.status, `${method} ${path}`).toBeLessThan(300);
      expect(res.headers.get('ratelimit-limit'), `${method} ${path}`).toBe('60');
    }
    // An upload counts against both its policies (`upload`, 60 per hour, and this one).
    const { body, contentType } = formData([{ name: 'image', filename: 'photo.png', type: 'image/png', data: fixture('rgba.png') }]);
    const uploaded = await send(server, 'POST', `/api/persons/${person.id}/create-picture/`, { raw: body, headers: { ...writer.auth, 'content-type': contentType } });
    expectJson(uploaded, 201);
    expect(await counted(writer, PER_MINUTE)).toBe(2 + writes.length + 1);
    const upload = POLICIES.upload[0];
    const uploads = await db().send(new GetCommand({ TableName: tableName(), Key: rateCounterKey('upload', limitName(upload), writer.id, windowAt(upload.window, Date.now()).start), ConsistentRead: true }));
    expect(uploads.Item?.n).toBe(1);
    // Exhausted: seed the minute's counter as if 60 writes had passed.
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...rateCounterKey('catalogue-write', limitName(PER_MINUTE), writer.id, windowAt(60, Date.now()).start), n: 60, expires_at: windowAt(60, Date.now()).end + TTL_MARGIN },
      }),
    );
    expectProblem(await send(server, 'DELETE', `/api/genres/${record.id}/`, { headers: writer.auth }), 429, 'rate-limited');
    expectProblem(await send(server, 'PATCH', `/api/persons/${person.id}/`, { body: { about: 'y' }, headers: writer.auth }), 429, 'rate-limited');
    // Reads and the writer's other writes (reviews, lists) are no catalogue writes.
    const read = await send(server, 'GET', `/api/genres/${record.id}/`, { headers: writer.auth });
    expectJson(read, 200);
    expect(read.headers.get('ratelimit-limit')).toBeNull();
    expectJson(await send(server, 'GET', '/api/playlists/animelist/', { headers: writer.auth }), 200);
  });

  it('1,000 per day: the 1,000th write of the day passes, the next is 429 until the day (UTC) ends', async () => {
    const writer = await makeAccount({ role: 'contributor' });
    const now = freezeDate();
    const day = windowAt(PER_DAY.window, now);
    await db().send(new PutCommand({ TableName: tableName(), Item: { ...rateCounterKey('catalogue-write', limitName(PER_DAY), writer.id, day.start), n: 999, expires_at: day.end + TTL_MARGIN } }));
    const last = await createGenre(writer);
    expectJson(last, 201);
    expect(last.headers.get('ratelimit-limit')).toBe('1000');
    expect(last.headers.get('ratelimit-remaining')).toBe('0');
    expect(last.headers.get('ratelimit-reset')).toBe(String(day.reset));
    const refused = await createGenre(writer);
    expectProblem(refused, 429, 'rate-limited');
    expect(refused.headers.get('retry-after')).toBe(String(day.reset));
    // The refused request was taken back from the minute's count too.
    expect(await counted(writer, PER_MINUTE)).toBe(1);
    expect(await counted(writer, PER_DAY)).toBe(1000);
  });
});

/**
 * Failure paths of the middleware chain (shared/http/handler.ts) and of the storage layer under
 * it, with the AWS clients mocked: unavailable or throttled dependencies → 503 with Retry-After,
 * unexpected errors → 500 that leaks nothing, cancelled transactions → 409 / retry / 503, and
 * the authorizer's verdicts → 401 / 503 (API.md §1.4, §2.1).
 */
import {
  ProvisionedThroughputExceededException,
  ThrottlingException,
  TransactionCanceledException,
  type AttributeValue,
  type CancellationReason,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { routes } from '../../functions/genres/routes.js';
import { createOperation, getOperation, listOperation, updateOperation } from '../../shared/http/crud.js';
import { createHandler } from '../../shared/http/handler.js';
import { requestLimits } from '../../shared/http/rate-limiter.js';
import { genres } from '../../shared/domain/taxonomy.js';
import { lambdaContext } from '../../infra/local/functions.js';
import { apiEvent, invokeApi } from '../support/lambda.js';
import { useSecretsEndpoint } from '../support/secrets-endpoint.js';
import { tokenVerification } from '../../shared/auth/verification.js';

const ddb = mockClient(DynamoDBDocumentClient);
const secrets = useSecretsEndpoint();

const list = createHandler(routes.list, listOperation(genres), { tokens: tokenVerification });
const get = createHandler(routes.get, getOperation(genres), { tokens: tokenVerification });
const create = createHandler(routes.create, createOperation(genres), { tokens: tokenVerification, rateLimits: requestLimits });
const patch = createHandler(routes.patch, updateOperation(genres, 'merge'), { tokens: tokenVerification, rateLimits: requestLimits });

const GENRE_ID = 'Xq2V9hK0aT3mB7nC1dE4fG';
const contributor = { status: 'user', user_id: 'Ue7YbQk3Lm9Pz2Rt5Vw8Xa', username: 'dev_contributor', role: 'contributor' } as const;

function storedGenre(rev: number, name = 'Mecha') {
  const rec = { id: GENRE_ID, name, description: '', explicit: false, anime_count: 0, manga_count: 0, created_at: '2025-01-01T00:00:00.000Z', updated_at: '2025-01-01T00:00:00.000Z' };
  return { Item: { pk: `GENRE#${GENRE_ID}`, sk: 'R', kind: 'GENRE', rev, rec, sw: ` ${name.toLowerCase()} ` } };
}

function cancelled(codes: (string | { Code: string; Item: Record<string, AttributeValue> })[]): TransactionCanceledException {
  const reasons: CancellationReason[] = codes.map((c) => (typeof c === 'string' ? { Code: c, Message: c === 'None' ? undefined : c } : c));
  return new TransactionCanceledException({
    message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((r) => r.Code).join(', ')}]`,
    $metadata: { httpStatusCode: 400 },
    CancellationReasons: reasons,
  });
}

/** Items of a genre create transaction: record, name claim, 8 ordering items, counter. */
const CREATE_ITEMS = 11;
const PATCH_ITEMS_RENAME = 1 + 2 + 8 + 2; // record, name claim (delete + put), orderings (name moves: delete + put on both)

function expectProblem(res: { status: number; headers: Record<string, string>; body: any }, status: number, type: string) {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.body).toMatchObject({ type: `urn:problem:${type}`, status });
  expect(res.headers['x-request-id']).toBe(res.body.request_id);
}

function expectUnavailable(res: { status: number; headers: Record<string, string>; body: any }) {
  expectProblem(res, 503, 'service-unavailable');
  expect(res.body.title).toBe('Service unavailable');
  expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  expect(res.body.retry_after).toBe(Number(res.headers['retry-after']));
}

beforeAll(() => {
  secrets.set('cursor-key', 'unit-test-cursor-key');
});
beforeEach(() => {
  ddb.reset();
});
afterAll(() => {
  ddb.restore();
});

describe('an unavailable database → 503 with Retry-After', () => {
  const failures: [string, () => Error][] = [
    ['ProvisionedThroughputExceededException', () => new ProvisionedThroughputExceededException({ message: 'The level of configured provisioned throughput for the table was exceeded.', $metadata: { httpStatusCode: 400 } })],
    ['ThrottlingException', () => new ThrottlingException({ message: 'Rate of requests exceeds the allowed throughput.', $metadata: { httpStatusCode: 400 } })],
    ['a refused connection', () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8000'), { code: 'ECONNREFUSED' })],
    ['a reset connection', () => Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })],
    ['a timeout', () => Object.assign(new Error('Connection timed out after 1000 ms'), { name: 'TimeoutError' })],
    ['a 500 from the service', () => Object.assign(new Error('Internal server error'), { name: 'InternalServerError', $metadata: { httpStatusCode: 500 } })],
  ];

  for (const [what, error] of failures) {
    it(`detail GET: ${what}`, async () => {
      ddb.on(GetCommand).rejects(error());
      expectUnavailable(await invokeApi(get, apiEvent('api/genres-get.json')));
    });

    it(`list GET: ${what}`, async () => {
      ddb.on(QueryCommand).rejects(error());
      ddb.on(GetCommand).resolves({ Item: { n: 3 } });
      expectUnavailable(await invokeApi(list, apiEvent('api/genres-list.json')));
    });

    it(`create: ${what}`, async () => {
      ddb.on(TransactWriteCommand).rejects(error());
      expectUnavailable(await invokeApi(create, apiEvent('api/genres-create.json')));
    });
  }

  it('a database that does not answer (a hung engine): the function answers 503 at its own deadline, it does not hang', async () => {
    ddb.on(GetCommand).callsFake(() => new Promise(() => undefined));
    const started = Date.now();
    const out = await get(apiEvent('api/genres-get.json'), lambdaContext('genres.get', 300));
    expect(Date.now() - started).toBeLessThan(5_000);
    const body = JSON.parse(out.body!);
    expectUnavailable({ status: out.statusCode, headers: out.headers, body });
  });

  it('the cursor key cannot be read (Secrets Manager down) → 503, not 400', async () => {
    try {
      // Another secret id, so the key cached by the other tests is not used.
      process.env.CURSOR_SECRET_ID = 'cursor-key-unreachable';
      secrets.unreachable('cursor-key-unreachable');
      const res = await invokeApi(list, apiEvent('api/genres-list.json', { rawQueryString: 'ordering=-anime_count&limit=5&cursor=abc.def' }));
      expectUnavailable(res);
      expect(ddb.calls()).toHaveLength(0);
    } finally {
      process.env.CURSOR_SECRET_ID = 'cursor-key';
    }
  });
});

describe('an unexpected error → 500 that leaks nothing', () => {
  const secret = 'SECRET-INTERNAL-DETAIL /var/task/shared/db/records.ts:42';

  for (const [what, error] of [
    ['a plain Error', () => new Error(secret)],
    ['a TypeError', () => new TypeError(`Cannot read properties of undefined (reading '${secret}')`)],
    ['a client-side DynamoDB error (ValidationException)', () => Object.assign(new Error(secret), { name: 'ValidationException', $metadata: { httpStatusCode: 400 } })],
    ['a non-Error value', () => ({ weird: secret }) as unknown as Error],
  ] as [string, () => Error][]) {
    it(what, async () => {
      ddb.on(GetCommand).rejects(error());
      const res = await invokeApi(get, apiEvent('api/genres-get.json'));
      expectProblem(res, 500, 'internal-error');
      expect(Object.keys(res.body).sort()).toEqual(['detail', 'instance', 'request_id', 'status', 'title', 'type']);
      expect(res.body.instance).toBe('/api/genres/Xq2V9hK0aT3mB7nC1dE4fG/');
      expect(res.raw).not.toContain('SECRET');
      expect(res.raw).not.toContain('/var/task');
      expect(res.raw).not.toMatch(/\bat \S+ \(|stack|ValidationException|TypeError/);
      expect(res.headers['retry-after']).toBeUndefined();
    });
  }

  it('a stored item of an unexpected shape', async () => {
    ddb.on(GetCommand).resolves({ Item: { pk: 'x', sk: 'R' } });
    const res = await invokeApi(get, apiEvent('api/genres-get.json'));
    expectProblem(res, 500, 'internal-error');
  });
});

describe('cancelled transactions', () => {
  it('the name is taken (ConditionalCheckFailed on the uniqueness item) → 409 with existing_id', async () => {
    const existing = 'Aa1Bb2Cc3Dd4Ee5Ff6Gg7H';
    const codes: Parameters<typeof cancelled>[0] = Array.from({ length: CREATE_ITEMS }, () => 'None');
    codes[1] = { Code: 'ConditionalCheckFailed', Item: { pk: { S: 'GENRE#U#name#mecha' }, sk: { S: 'U' }, id: { S: existing } } };
    ddb.on(TransactWriteCommand).rejects(cancelled(codes));
    const res = await invokeApi(create, apiEvent('api/genres-create.json'));
    expectProblem(res, 409, 'conflict');
    expect(res.body.existing_id).toBe(existing);
    expect(Object.keys(res.body.errors)).toEqual(['name']);
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(1);
    // The transaction asked for the clashing item (that is where existing_id comes from).
    const claim = ddb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems![1]!.Put!;
    expect(claim.ReturnValuesOnConditionCheckFailure).toBe('ALL_OLD');
    expect(claim.ConditionExpression).toBe('attribute_not_exists(pk)');
  });

  it('the uniqueness item without its old image → 409 without existing_id', async () => {
    const codes: Parameters<typeof cancelled>[0] = Array.from({ length: CREATE_ITEMS }, () => 'None');
    codes[1] = 'ConditionalCheckFailed';
    ddb.on(TransactWriteCommand).rejects(cancelled(codes));
    const res = await invokeApi(create, apiEvent('api/genres-create.json'));
    expectProblem(res, 409, 'conflict');
    expect(res.body).not.toHaveProperty('existing_id');
  });

  it('a stale revision (ConditionalCheckFailed on the record) → the update re-reads and retries', async () => {
    ddb.on(GetCommand).resolvesOnce(storedGenre(1)).resolves(storedGenre(2));
    const codes: Parameters<typeof cancelled>[0] = Array.from({ length: PATCH_ITEMS_RENAME }, () => 'None');
    codes[0] = 'ConditionalCheckFailed';
    ddb.on(TransactWriteCommand).rejectsOnce(cancelled(codes)).resolves({});
    const event = apiEvent('api/genres-delete.json', { headers: { 'if-match': undefined, 'content-type': 'application/json' }, body: '{"name":"Robots"}' });
    event.requestContext.http.method = 'PATCH';
    event.routeKey = 'PATCH /api/genres/{id}/';
    const res = await invokeApi(patch, event);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: GENRE_ID, name: 'Robots' });
    expect(ddb.commandCalls(GetCommand)).toHaveLength(2);
    const writes = ddb.commandCalls(TransactWriteCommand);
    expect(writes).toHaveLength(2);
    // Each attempt is conditioned on the revision it read.
    const revs = writes.map((w) => w.args[0].input.TransactItems![0]!.Put!.ExpressionAttributeValues![':rev']);
    expect(revs).toEqual([1, 2]);
    expect(writes[1]!.args[0].input.TransactItems![0]!.Put!.Item!.rev).toBe(3);
  });

  it('a revision that keeps changing → 503 after the retries', async () => {
    let rev = 1;
    ddb.on(GetCommand).callsFake(() => storedGenre(rev++));
    const codes: Parameters<typeof cancelled>[0] = Array.from({ length: PATCH_ITEMS_RENAME }, () => 'None');
    codes[0] = 'ConditionalCheckFailed';
    ddb.on(TransactWriteCommand).rejects(cancelled(codes));
    const event = apiEvent('api/genres-delete.json', { headers: { 'if-match': undefined, 'content-type': 'application/json' }, body: '{"name":"Robots"}' });
    event.requestContext.http.method = 'PATCH';
    const res = await invokeApi(patch, event);
    expectUnavailable(res);
    expect(ddb.commandCalls(TransactWriteCommand).length).toBeGreaterThan(1);
  });

  it('TransactionConflict → retried, then succeeds', async () => {
    const conflict = cancelled(['TransactionConflict', ...Array.from({ length: CREATE_ITEMS - 1 }, () => 'None')]);
    ddb.on(TransactWriteCommand).rejectsOnce(conflict).rejectsOnce(conflict).resolves({});
    const res = await invokeApi(create, apiEvent('api/genres-create.json'));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'Mecha', description: 'Giant robots.', anime_count: 0, manga_count: 0 });
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(3);
  });

  it('TransactionConflict on every attempt → 503 after the retries', async () => {
    const conflict = cancelled(['None', 'TransactionConflict', ...Array.from({ length: CREATE_ITEMS - 2 }, () => 'None')]);
    ddb.on(TransactWriteCommand).rejects(conflict);
    const res = await invokeApi(create, apiEvent('api/genres-create.json'));
    expectUnavailable(res);
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(4);
  });

  it('a conflict together with a failed condition is the condition (409), not a retry', async () => {
    const codes: Parameters<typeof cancelled>[0] = Array.from({ length: CREATE_ITEMS }, () => 'None');
    codes[1] = { Code: 'ConditionalCheckFailed', Item: { pk: { S: 'GENRE#U#name#mecha' }, sk: { S: 'U' }, id: { S: 'Zz9Yy8Xx7Ww6Vv5Uu4Tt3S' } } };
    codes[5] = 'TransactionConflict';
    ddb.on(TransactWriteCommand).rejects(cancelled(codes));
    const res = await invokeApi(create, apiEvent('api/genres-create.json'));
    expectProblem(res, 409, 'conflict');
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(1);
  });
});

describe('the authorizer’s verdict', () => {
  it('{status: unavailable} → 503, and the function touches nothing', async () => {
    const res = await invokeApi(create, apiEvent('api/genres-create.json', { authorizer: { status: 'unavailable' } }));
    expectUnavailable(res);
    expect(ddb.calls()).toHaveLength(0);
  });

  it('{status: error} → 500 internal-error, and the function touches nothing', async () => {
    const res = await invokeApi(create, apiEvent('api/genres-create.json', { authorizer: { status: 'error' } }));
    expectProblem(res, 500, 'internal-error');
    expect(ddb.calls()).toHaveLength(0);
  });

  it('{status: invalid} → 401 invalid-token with WWW-Authenticate error="invalid_token"', async () => {
    const res = await invokeApi(create, apiEvent('api/genres-create.json', { authorizer: { status: 'invalid' } }));
    expectProblem(res, 401, 'invalid-token');
    expect(res.headers['www-authenticate']).toBe('Bearer realm="api", error="invalid_token"');
    expect(ddb.calls()).toHaveLength(0);
  });

  it('{status: anonymous} on a contributor route → 401 authentication-required', async () => {
    const res = await invokeApi(create, apiEvent('api/genres-create.json', { authorizer: { status: 'anonymous' }, headers: { authorization: undefined } }));
    expectProblem(res, 401, 'authentication-required');
    expect(res.headers['www-authenticate']).toBe('Bearer realm="api"');
    expect(ddb.calls()).toHaveLength(0);
  });

  it('no verdict at all on a contributor route (deployed without its authorizer): 401 without a token, 500 with one; nothing touched', async () => {
    const anonymous = await invokeApi(create, apiEvent('api/genres-create.json', { authorizer: null, headers: { authorization: undefined } }));
    expectProblem(anonymous, 401, 'authentication-required');
    const withToken = await invokeApi(create, apiEvent('api/genres-create.json', { authorizer: null, headers: { authorization: 'Bearer x.y.z' } }));
    expectProblem(withToken, 500, 'internal-error');
    expect(ddb.calls()).toHaveLength(0);
  });

  it('a user whose role is too low → 403, before the body is looked at', async () => {
    const res = await invokeApi(create, apiEvent('api/genres-create.json', { authorizer: { ...contributor, role: 'premium' }, body: '{not json' }));
    expectProblem(res, 403, 'forbidden');
  });

  it('a context with an unknown role is not trusted → 401 invalid-token', async () => {
    const res = await invokeApi(create, apiEvent('api/genres-create.json', { authorizer: { ...contributor, role: 'superuser' } }));
    expectProblem(res, 401, 'invalid-token');
  });

  it('credentials are checked before the content type and the body (§1.4 precedence)', async () => {
    const res = await invokeApi(create, apiEvent('api/genres-create.json', { authorizer: { status: 'invalid' }, headers: { 'content-type': 'text/plain' }, body: 'x' }));
    expectProblem(res, 401, 'invalid-token');
  });

  it('{status: user} with the right role reaches the operation', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    const res = await invokeApi(create, apiEvent('api/genres-create.json', { authorizer: contributor }));
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`https://api.example.org/api/genres/${res.body.id}/`);
  });
});

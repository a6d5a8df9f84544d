/**
 * Failure paths of the token and social sign-in operations with the AWS clients and the network
 * mocked (API.md §1.4, §2.2, §4.17, §4.19): an unavailable database or identity provider → 503
 * with Retry-After; reuse of a spent refresh token revokes the family on the user's auth state.
 */
import { ThrottlingException } from '@aws-sdk/client-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, DynamoDBDocumentClient, GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { handler as startHandler } from '../../functions/socials/start.js';
import { handler as finishHandler } from '../../functions/socials/finish.js';
import { handler as createHandler } from '../../functions/tokens/create.js';
import { handler as refreshHandler } from '../../functions/tokens/refresh.js';
import { handler as verifyHandler } from '../../functions/tokens/verify.js';
import { generateSigningKeys } from '../../shared/auth/keygen.js';
import { forgetProviders } from '../../shared/auth/social.js';
import { signToken } from '../../shared/auth/tokens.js';
import type { ApiEvent } from '../../shared/http/handler.js';
import { apiEvent, invokeApi, type Invoked } from '../support/lambda.js';
import { useSecretsEndpoint } from '../support/secrets-endpoint.js';

const ddb = mockClient(DynamoDBDocumentClient);
const secrets = useSecretsEndpoint();

const USER_ID = 'Ue7YbQk3Lm9Pz2Rt5Vw8Xa';
const FAMILY = 'Fm1YbQk3Lm9Pz2Rt5Vw8Xa';

/** A POST (or GET) event of a credentials route: no authorizer ran. */
function event(method: 'GET' | 'POST', path: string, routePath: string, body?: unknown, pathParameters?: Record<string, string>, query = ''): ApiEvent {
  const e = apiEvent('api/genres-create.json', { authorizer: null, headers: { authorization: undefined }, body: body === undefined ? null : JSON.stringify(body), rawQueryString: query });
  e.routeKey = `${method} ${routePath}`;
  e.rawPath = path;
  e.requestContext.routeKey = e.routeKey;
  e.requestContext.http.method = method;
  e.requestContext.http.path = path;
  if (pathParameters) e.pathParameters = pathParameters;
  return e;
}

function expectUnavailable(res: Invoked) {
  expect(res.status, JSON.stringify(res.body)).toBe(503);
  expect(res.body).toMatchObject({ type: 'urn:problem:service-unavailable', status: 503 });
  expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  expect(res.body.retry_after).toBe(Number(res.headers['retry-after']));
}

const throttled = () => new ThrottlingException({ message: 'Rate of requests exceeds the allowed throughput.', $metadata: { httpStatusCode: 400 } });

/** The user's auth state (shared/db/users.ts): what refresh and verify read. */
function authItem(revoked: Record<string, number> = {}) {
  return { pk: `AUTH#${USER_ID}`, sk: 'A', user_id: USER_ID, username: 'someone', role: 'member', is_active: true, token_version: 0, revoked_families: revoked, rev: 3 };
}

let refreshToken: string;

beforeAll(async () => {
  const { privateSet, publicSet } = await generateSigningKeys();
  secrets.set('jwt-public', JSON.stringify(publicSet));
  secrets.set('jwt-private', JSON.stringify(privateSet));
  secrets.set('social-secrets', JSON.stringify({ idp: 'client-secret' }));
  refreshToken = (await signToken('refresh', { id: USER_ID, token_version: 0 }, { fam: FAMILY })).token;
});
beforeEach(() => {
  ddb.reset();
});
afterAll(() => {
  ddb.restore();
});

describe('tokens: an unavailable database → 503', () => {
  it('sign-in: the account cannot be read', async () => {
    ddb.on(GetCommand).rejects(throttled());
    expectUnavailable(await invokeApi(createHandler, event('POST', '/api/tokens/jwt/create/', '/api/tokens/jwt/create/', { email: 'a@example.org', password: 'x' })));
  });

  it('refresh: spending the token is throttled (nothing issued)', async () => {
    ddb.on(UpdateCommand).rejects(throttled());
    expectUnavailable(await invokeApi(refreshHandler, event('POST', '/api/tokens/jwt/refresh/', '/api/tokens/jwt/refresh/', { refresh: refreshToken })));
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });

  it('refresh: recording the new token is throttled', async () => {
    ddb.on(UpdateCommand).resolves({});
    ddb.on(GetCommand).resolves({ Item: authItem() });
    ddb.on(TransactWriteCommand).rejects(throttled());
    expectUnavailable(await invokeApi(refreshHandler, event('POST', '/api/tokens/jwt/refresh/', '/api/tokens/jwt/refresh/', { refresh: refreshToken })));
  });

  it('verify: the user cannot be read', async () => {
    ddb.on(GetCommand).rejects(throttled());
    expectUnavailable(await invokeApi(verifyHandler, event('POST', '/api/tokens/jwt/verify/', '/api/tokens/jwt/verify/', { token: refreshToken })));
  });
});

describe('tokens: refresh rotation', () => {
  it('a spent token presented again → 401, and its family is written into the user’s revoked families (expired ones are forgotten)', async () => {
    const past = Math.floor(Date.now() / 1000) - 60;
    // Spending the token finds it spent; the revocation's update succeeds.
    ddb.on(UpdateCommand).callsFake((input: { Key: { pk: string } }) => {
      if (!input.Key.pk.startsWith('REFRESH#')) return {};
      throw new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: { httpStatusCode: 400 }, Item: { pk: { S: 'x' } } });
    });
    ddb.on(GetCommand).resolves({ Item: authItem({ stale: past }) });
    const res = await invokeApi(refreshHandler, event('POST', '/api/tokens/jwt/refresh/', '/api/tokens/jwt/refresh/', { refresh: refreshToken }));
    expect(res.status).toBe(401);
    expect(res.body.type).toBe('urn:problem:invalid-token');
    // Only the auth state is read and written: never the user record (docs/decisions.md).
    expect(ddb.commandCalls(GetCommand).map((c) => c.args[0].input.Key)).toEqual([{ pk: `AUTH#${USER_ID}`, sk: 'A' }]);
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
    const revocation = ddb.commandCalls(UpdateCommand).map((c) => c.args[0].input).find((i) => i.Key!.pk === `AUTH#${USER_ID}`)!;
    expect(revocation.UpdateExpression).toBe('SET #rf.#fam = :until REMOVE #rf.#e0');
    expect(revocation.ExpressionAttributeNames).toEqual({ '#rf': 'revoked_families', '#fam': FAMILY, '#e0': 'stale' });
    expect(revocation.ExpressionAttributeValues![':until']).toBeGreaterThan(Date.now() / 1000 + 29 * 24 * 3600);
  });

  it('a token of an already revoked family is spent but refused, and nothing is issued', async () => {
    ddb.on(UpdateCommand).resolves({});
    ddb.on(GetCommand).resolves({ Item: authItem({ [FAMILY]: Math.floor(Date.now() / 1000) + 3600 }) });
    const res = await invokeApi(refreshHandler, event('POST', '/api/tokens/jwt/refresh/', '/api/tokens/jwt/refresh/', { refresh: refreshToken }));
    expect(res.status).toBe(401);
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });
});

describe('social sign-in: an unavailable provider → 503', () => {
  const provider = { name: 'idp', kind: 'oidc', issuer: 'https://idp.example.org', client_id: 'client', redirect_uris: ['https://app.example.org/cb'] };
  const metadata = {
    issuer: 'https://idp.example.org',
    authorization_endpoint: 'https://idp.example.org/authorize',
    token_endpoint: 'https://idp.example.org/token',
    jwks_uri: 'https://idp.example.org/jwks',
  };
  let fetchMock: MockInstance<typeof fetch>;

  beforeEach(() => {
    process.env.SOCIAL_PROVIDERS = JSON.stringify([provider]);
    process.env.SOCIAL_SECRETS_ID = 'social-secrets';
    forgetProviders();
    fetchMock = vi.spyOn(globalThis, 'fetch');
  });
  afterEach(() => {
    fetchMock.mockRestore();
    delete process.env.SOCIAL_PROVIDERS;
  });

  const start = () => event('GET', '/api/socials/o/idp/', '/api/socials/o/{provider}/', undefined, { provider: 'idp' }, 'redirect_uri=https%3A%2F%2Fapp.example.org%2Fcb');
  const finish = () => event('POST', '/api/socials/o/idp/', '/api/socials/o/{provider}/', { code: 'the-code', state: 'a'.repeat(43) }, { provider: 'idp' });
  const storedState = () => ({
    Attributes: { pk: `SOCIAL#STATE#${'a'.repeat(43)}`, sk: 'S', provider: 'idp', redirect_uri: 'https://app.example.org/cb', nonce: 'n', verifier: 'v'.repeat(64), expires_at: Math.floor(Date.now() / 1000) + 600 },
  });
  const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

  it('discovery: connection refused, timeout, 5xx', async () => {
    for (const failure of [
      () => Promise.reject(Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } })),
      () => Promise.reject(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
      () => Promise.resolve(json(502, {})),
      () => Promise.resolve(new Response('<html>', { status: 200 })),
    ]) {
      forgetProviders();
      fetchMock.mockImplementationOnce(failure);
      ddb.on(PutCommand).resolves({});
      expectUnavailable(await invokeApi(startHandler, start()));
      // Nothing was stored for a sign-in that cannot start.
      expect(ddb.commandCalls(PutCommand)).toHaveLength(0);
    }
  });

  it('token endpoint: timeout or 5xx (the state is consumed all the same)', async () => {
    for (const failure of [
      () => Promise.reject(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
      () => Promise.resolve(json(503, { error: 'temporarily_unavailable' })),
    ]) {
      ddb.reset();
      ddb.on(DeleteCommand).resolves(storedState());
      forgetProviders();
      fetchMock.mockImplementationOnce(() => Promise.resolve(json(200, metadata))).mockImplementationOnce(failure);
      expectUnavailable(await invokeApi(finishHandler, finish()));
      expect(ddb.commandCalls(DeleteCommand)).toHaveLength(1);
      const [url, init] = fetchMock.mock.calls.at(-1)!;
      expect(url).toBe('https://idp.example.org/token');
      // client_secret_basic (the default when the provider lists no methods), form-encoded body with the PKCE verifier.
      expect((init!.headers as Record<string, string>).authorization).toBe(`Basic ${Buffer.from('client:client-secret').toString('base64')}`);
      expect(new URLSearchParams(String(init!.body)).get('code_verifier')).toBe('v'.repeat(64));
    }
  });

  it('the database is throttled while the state is taken → 503, the provider is not called', async () => {
    ddb.on(DeleteCommand).rejects(throttled());
    expectUnavailable(await invokeApi(finishHandler, finish()));
    expect(fetchMock).not.toHaveBeenCalled();
  });
});

/**
 * The Lambda authorizer (functions/authorizer/handler.ts) with the DynamoDB client mocked and
 * a local Secrets Manager endpoint. It never
 * denies; it reports what it found, and the function answers (see the handler's comment).
 */
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import type { APIGatewayRequestAuthorizerEventV2 } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { handler } from '../../functions/authorizer/handler.js';
import { generateSigningKeys } from '../../shared/auth/keygen.js';
import { signToken } from '../../shared/auth/tokens.js';
import { loadEvent } from '../support/lambda.js';
import { useSecretsEndpoint } from '../support/secrets-endpoint.js';

const ddb = mockClient(DynamoDBDocumentClient);
const secrets = useSecretsEndpoint();

const USER_ID = 'Ue7YbQk3Lm9Pz2Rt5Vw8Xa';
/** The user's auth state (shared/db/users.ts): all the authorizer reads. */
function authItem(over: Partial<{ is_active: boolean; role: string; token_version: number }> = {}) {
  return {
    Item: {
      pk: `AUTH#${USER_ID}`,
      sk: 'A',
      user_id: USER_ID,
      username: 'kaori',
      role: over.role ?? 'contributor',
      is_active: over.is_active ?? true,
      token_version: over.token_version ?? 0,
      revoked_families: {},
      rev: 1,
    },
  };
}

function event(authorization?: string, headerName = 'authorization'): APIGatewayRequestAuthorizerEventV2 {
  const e = loadEvent<APIGatewayRequestAuthorizerEventV2>('authorizer/request.json');
  delete (e.headers as Record<string, string>).authorization;
  if (authorization !== undefined) (e.headers as Record<string, string>)[headerName] = authorization;
  return e;
}

let token: string;

beforeAll(async () => {
  const { privateSet, publicSet } = await generateSigningKeys();
  secrets.set('jwt-public', JSON.stringify(publicSet));
  secrets.set('jwt-private', JSON.stringify(privateSet));
  ({ token } = await signToken('access', { id: USER_ID, token_version: 0 }));
});
beforeEach(() => ddb.reset());
afterAll(() => {
  ddb.restore();
});

describe('authorizer', () => {
  it('no Authorization header → anonymous, without reading anything', async () => {
    expect(await handler(event())).toEqual({ isAuthorized: true, context: { status: 'anonymous' } });
    expect(ddb.calls()).toHaveLength(0);
  });

  it('garbage → invalid', async () => {
    for (const h of ['', 'garbage', 'Bearer', 'Bearer ', 'Basic dXNlcjpwYXNz', `Bearer ${token} ${token}`, `Token ${token}`, 'Bearer not.a.jwt', 'Bearer a<b']) {
      expect(await handler(event(h)), h).toEqual({ isAuthorized: true, context: { status: 'invalid' } });
    }
    expect(ddb.calls()).toHaveLength(0);
  });

  it('a valid token of an active user → user, with id, username and role', async () => {
    ddb.on(GetCommand).resolves(authItem());
    expect(await handler(event(`Bearer ${token}`))).toEqual({
      isAuthorized: true,
      context: { status: 'user', user_id: USER_ID, username: 'kaori', role: 'contributor' },
    });
    // The auth state is read strongly consistently, so a role change applies to the next request.
    expect(ddb.commandCalls(GetCommand)[0]!.args[0].input).toMatchObject({ Key: { pk: `AUTH#${USER_ID}`, sk: 'A' }, ConsistentRead: true });
  });

  it('finds the header whatever the case of its name', async () => {
    ddb.on(GetCommand).resolves(authItem());
    expect((await handler(event(`JWT ${token}`, 'Authorization'))).context).toMatchObject({ status: 'user' });
  });

  it('a user that is gone, inactive, or whose tokens were revoked → invalid', async () => {
    for (const item of [{}, authItem({ is_active: false }), authItem({ token_version: 1 })]) {
      ddb.on(GetCommand).resolves(item);
      expect(await handler(event(`Bearer ${token}`))).toEqual({ isAuthorized: true, context: { status: 'invalid' } });
    }
  });

  it('DynamoDB down → unavailable', async () => {
    ddb.on(GetCommand).rejects(new ProvisionedThroughputExceededException({ message: 'slow down', $metadata: { httpStatusCode: 400 } }));
    expect(await handler(event(`Bearer ${token}`))).toEqual({ isAuthorized: true, context: { status: 'unavailable' } });
    ddb.on(GetCommand).rejects(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    expect(await handler(event(`Bearer ${token}`))).toEqual({ isAuthorized: true, context: { status: 'unavailable' } });
  });

  it('the public keys cannot be read → unavailable', async () => {
    const before = process.env.JWT_PUBLIC_SECRET_ID;
    try {
      // Another secret id, so the keys cached by the other tests are not used.
      process.env.JWT_PUBLIC_SECRET_ID = 'jwt-public-unreachable';
      secrets.unreachable('jwt-public-unreachable');
      expect(await handler(event(`Bearer ${token}`))).toEqual({ isAuthorized: true, context: { status: 'unavailable' } });
    } finally {
      process.env.JWT_PUBLIC_SECRET_ID = before;
    }
  });

  it('an unexpected error → error (the function answers a 500 problem, not API Gateway)', async () => {
    ddb.on(GetCommand).rejects(Object.assign(new Error('bad request'), { name: 'ValidationException', $metadata: { httpStatusCode: 400 } }));
    expect(await handler(event(`Bearer ${token}`))).toEqual({ isAuthorized: true, context: { status: 'error' } });
  });
});

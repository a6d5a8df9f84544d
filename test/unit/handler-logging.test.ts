/**
 * What the functions log: one structured line per request, and never the Authorization header
 * or the request body (shared/log.ts) — not even when a deployment sets Powertools' variable for
 * event logging. Log level DEBUG so that every line that could be written is written.
 */
import { DynamoDBDocumentClient, GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { handler as authorizer } from '../../functions/authorizer/handler.js';
import { routes } from '../../functions/genres/routes.js';
import { generateSigningKeys } from '../../shared/auth/keygen.js';
import { createOperation, listOperation } from '../../shared/http/crud.js';
import { createHandler } from '../../shared/http/handler.js';
import { requestLimits } from '../../shared/http/rate-limiter.js';
import { genres } from '../../shared/domain/taxonomy.js';
import { apiEvent, invokeApi, loadEvent } from '../support/lambda.js';
import { useSecretsEndpoint } from '../support/secrets-endpoint.js';
import { tokenVerification } from '../../shared/auth/verification.js';

vi.hoisted(() => {
  // Every line that could be written is written, and event logging is asked for (Powertools' variable).
  Object.assign(process.env, { POWERTOOLS_LOG_LEVEL: 'DEBUG', POWERTOOLS_LOGGER_LOG_EVENT: 'true' });
  delete process.env.POWERTOOLS_DEV;
});

const ddb = mockClient(DynamoDBDocumentClient);
const secrets = useSecretsEndpoint();
const create = createHandler(routes.create, createOperation(genres), { tokens: tokenVerification, rateLimits: requestLimits });
const list = createHandler(routes.list, listOperation(genres), { tokens: tokenVerification });

const TOKEN = 'SECRETTOKENMARKER.eyJzdWIiOiJ4In0.c2lnbmF0dXJlU0VDUkVU';
const BODY_MARKER = 'SECRET-BODY-MARKER';

/** Runs `fn` and returns everything written to stdout and stderr meanwhile. */
async function captured(fn: () => Promise<unknown>): Promise<string> {
  const chunks: string[] = [];
  const grab = (chunk: unknown) => {
    chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
    return true;
  };
  const out = vi.spyOn(process.stdout, 'write').mockImplementation(grab);
  const err = vi.spyOn(process.stderr, 'write').mockImplementation(grab);
  try {
    await fn();
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
  return chunks.join('');
}

function expectClean(logs: string) {
  expect(logs).not.toContain('SECRETTOKENMARKER');
  expect(logs).not.toContain(TOKEN);
  expect(logs).not.toContain(BODY_MARKER);
  expect(logs.toLowerCase()).not.toContain('bearer ');
}

beforeAll(async () => {
  const { publicSet } = await generateSigningKeys();
  secrets.set('cursor-key', 'unit-test-cursor-key');
  secrets.set('jwt-public', JSON.stringify(publicSet));
});
beforeEach(() => ddb.reset());
afterAll(() => {
  ddb.restore();
});

const body = JSON.stringify({ name: 'Mecha', description: `${BODY_MARKER} giant robots` });
const headers = { authorization: `Bearer ${TOKEN}` };

describe('logs never contain the Authorization header or the body', () => {
  it('a successful write', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    let status = 0;
    const logs = await captured(async () => {
      status = (await invokeApi(create, apiEvent('api/genres-create.json', { headers, body }))).status;
    });
    expect(status).toBe(201);
    // The request line is there (the test is not vacuous)…
    const lines = logs.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.some((l) => l.message === 'request' && l.status === 201 && l.route === 'genres.create' && l.user_id === 'Ue7YbQk3Lm9Pz2Rt5Vw8Xa')).toBe(true);
    // …and nothing secret.
    expectClean(logs);
  });

  it('a write that fails unexpectedly (500, error logged)', async () => {
    ddb.on(TransactWriteCommand).rejects(new Error('boom'));
    let status = 0;
    const logs = await captured(async () => {
      status = (await invokeApi(create, apiEvent('api/genres-create.json', { headers, body }))).status;
    });
    expect(status).toBe(500);
    expect(logs).toContain('unhandled error');
    expectClean(logs);
  });

  it('a write refused by validation (400) and a malformed body', async () => {
    const logs = await captured(async () => {
      expect((await invokeApi(create, apiEvent('api/genres-create.json', { headers, body: JSON.stringify({ name: '', [BODY_MARKER]: BODY_MARKER }) }))).status).toBe(400);
      expect((await invokeApi(create, apiEvent('api/genres-create.json', { headers, body: `{"name": "${BODY_MARKER}` }))).status).toBe(400);
    });
    expectClean(logs);
  });

  it('the database is unavailable (503, warning logged)', async () => {
    ddb.on(TransactWriteCommand).rejects(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8000'), { code: 'ECONNREFUSED' }));
    const logs = await captured(async () => {
      expect((await invokeApi(create, apiEvent('api/genres-create.json', { headers, body }))).status).toBe(503);
    });
    expect(logs).toContain('dependency unavailable');
    expectClean(logs);
  });

  it('a bad token on a public route (401)', async () => {
    ddb.on(QueryCommand).resolves({ Items: [] });
    ddb.on(GetCommand).resolves({});
    const logs = await captured(async () => {
      expect((await invokeApi(list, apiEvent('api/genres-list.json', { headers }))).status).toBe(401);
    });
    expectClean(logs);
  });

  it('the authorizer refusing a token', async () => {
    const event = loadEvent<any>('authorizer/request.json');
    event.headers.authorization = `Bearer ${TOKEN}`;
    const logs = await captured(async () => {
      expect(await authorizer(event)).toEqual({ isAuthorized: true, context: { status: 'invalid' } });
    });
    expect(logs).toContain('token refused');
    expectClean(logs);
  });
});

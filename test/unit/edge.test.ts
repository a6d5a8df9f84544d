/**
 * Requests through the edge (shared/http/edge.ts): with the edge configured (ORIGIN_SECRET_ID),
 * only a request that carries the origin secret is served, and only then is CloudFront's viewer
 * address the client the per-address rate limits count; without it nothing changes and the
 * headers are never trusted. The DynamoDB client is mocked; secrets come from a local endpoint.
 */
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { handler as authorizer } from '../../functions/authorizer/handler.js';
import { handler as catchAll } from '../../functions/catch-all/handler.js';
import { generateSigningKeys } from '../../shared/auth/keygen.js';
import { signToken } from '../../shared/auth/tokens.js';
import { rateCounterKey } from '../../shared/db/rate-counters.js';
import { ORIGIN_HEADER, ORIGIN_SECRET_ENV, VIEWER_ADDRESS_HEADER, viewerAddress } from '../../shared/http/edge.js';
import { createHandler, type ApiEvent } from '../../shared/http/handler.js';
import { requestLimits } from '../../shared/http/rate-limiter.js';
import { clientKey, windowAt } from '../../shared/http/rate-limits.js';
import { apiEvent, invokeApi, loadEvent, signInRoute } from '../support/lambda.js';
import { useSecretsEndpoint } from '../support/secrets-endpoint.js';

const secrets = useSecretsEndpoint();
const ddb = mockClient(DynamoDBDocumentClient);

const SECRET = 'k2Vf8LqZ3xN7pR1tW9yB4cD6gH0jM5sA';
const SECRET_ID = 'prod/catalogue/origin-verify';
const SOURCE_IP = '130.176.1.20'; // a CloudFront server, as API Gateway sees it behind the edge
const VIEWER = '198.51.100.10';

const signIn = signInRoute('token');
const signInHandler = createHandler(signIn, async () => ({ status: 200, body: { ok: true } }), { rateLimits: requestLimits });

function event(headers: Record<string, string> = {}): ApiEvent {
  const e = apiEvent('api/genres-create.json', { authorizer: null, body: JSON.stringify({ email: 'a@example.org', password: 'x' }) });
  e.rawPath = '/api/tokens/jwt/create/';
  e.requestContext.http.sourceIp = SOURCE_IP;
  Object.assign(e.headers!, headers);
  return e;
}

/** The client keys the request was counted under (the `token` policy counts per IP). */
const countedClients = () => ddb.commandCalls(UpdateCommand).map((c) => c.args[0].input.Key!.pk as string);
const counterOf = (address: string) => rateCounterKey('token', 'ip', clientKey(address), windowAt(60, Date.now()).start).pk;
const secretReads = () => secrets.reads(SECRET_ID);

beforeEach(() => {
  ddb.reset();
  secrets.resetReads();
  ddb.on(UpdateCommand).resolves({ Attributes: { n: 1 } });
  secrets.set(SECRET_ID, SECRET);
  vi.stubEnv('RATE_LIMITS', 'on');
});
afterEach(() => vi.unstubAllEnvs());
afterAll(() => {
  ddb.restore();
});

describe('viewerAddress: the address in CloudFront-Viewer-Address', () => {
  it('IPv4 and IPv6 with their port, as CloudFront writes them', () => {
    expect(viewerAddress('198.51.100.10:46532')).toBe('198.51.100.10');
    expect(viewerAddress('2406:2d40:728d:fa10::c4a:42838')).toBe('2406:2d40:728d:fa10::c4a');
    expect(viewerAddress('2001:db8:1:2:3:4:5:6:443')).toBe('2001:db8:1:2:3:4:5:6');
    expect(viewerAddress('[2001:db8::1]:443')).toBe('2001:db8::1');
    expect(viewerAddress(' 203.0.113.7:1 ')).toBe('203.0.113.7');
  });

  it('anything else is no address: no port, not an IP, several values, IPv4 in brackets', () => {
    for (const v of [undefined, '', '198.51.100.10', 'example.org:443', '198.51.100.10:port', '198.51.100.10:1, 203.0.113.7:2', '[198.51.100.10]:443', '2001:db8::1', ':443']) {
      expect(viewerAddress(v), String(v)).toBeNull();
    }
  });
});

describe('without the edge (no ORIGIN_SECRET_ID): nothing changes', () => {
  it('the client is API Gateway’s sourceIp; a viewer address or origin header sent by the client is ignored, no secret read', async () => {
    const res = await invokeApi(signInHandler, event({ [VIEWER_ADDRESS_HEADER]: `${VIEWER}:1234`, [ORIGIN_HEADER]: 'anything' }));
    expect(res.status).toBe(200);
    expect(countedClients()).toEqual([counterOf(SOURCE_IP)]);
    expect(secrets.reads()).toBe(0);
  });
});

describe('with the edge (ORIGIN_SECRET_ID set)', () => {
  beforeEach(() => vi.stubEnv(ORIGIN_SECRET_ENV, SECRET_ID));

  it('a request with the origin secret is served and counted by the viewer’s address', async () => {
    const res = await invokeApi(signInHandler, event({ [ORIGIN_HEADER]: SECRET, [VIEWER_ADDRESS_HEADER]: `${VIEWER}:46532` }));
    expect(res.status).toBe(200);
    expect(countedClients()).toEqual([counterOf(VIEWER)]);
  });

  it('an IPv6 viewer is counted by its /64, as without the edge', async () => {
    await invokeApi(signInHandler, event({ [ORIGIN_HEADER]: SECRET, [VIEWER_ADDRESS_HEADER]: '2001:db8:aa:bb:1:2:3:4:50000' }));
    await invokeApi(signInHandler, event({ [ORIGIN_HEADER]: SECRET, [VIEWER_ADDRESS_HEADER]: '2001:db8:aa:bb::9:443' }));
    expect(countedClients()).toEqual([counterOf('2001:db8:aa:bb::'), counterOf('2001:db8:aa:bb::')]);
    expect(clientKey('2001:db8:aa:bb::')).toBe('2001:db8:aa:bb::/64');
  });

  it('a request around the edge (no origin header) gets 403 forbidden before anything is read or counted, and the secret is not read', async () => {
    const res = await invokeApi(signInHandler, event({ [VIEWER_ADDRESS_HEADER]: `${VIEWER}:1` }));
    expect(res.status).toBe(403);
    expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(res.body).toMatchObject({ type: 'urn:problem:forbidden', status: 403, instance: '/api/tokens/jwt/create/' });
    expect(res.body.detail).toContain(process.env.PUBLIC_BASE_URL);
    expect(res.headers['x-request-id']).toBeDefined();
    expect(ddb.calls()).toHaveLength(0);
    expect(secretReads()).toBe(0);
  });

  it('a wrong origin secret, or a spoofed viewer address without the secret, is refused the same way', async () => {
    for (const sent of ['', 'wrong', SECRET.slice(1), `${SECRET} `, SECRET.toUpperCase()]) {
      const res = await invokeApi(signInHandler, event({ [ORIGIN_HEADER]: sent, [VIEWER_ADDRESS_HEADER]: '203.0.113.99:1' }));
      expect(res.status, sent).toBe(403);
    }
    expect(ddb.calls()).toHaveLength(0);
  });

  it('a proven request without a usable viewer address is counted by sourceIp (stricter, never chosen by the client)', async () => {
    await invokeApi(signInHandler, event({ [ORIGIN_HEADER]: SECRET }));
    await invokeApi(signInHandler, event({ [ORIGIN_HEADER]: SECRET, [VIEWER_ADDRESS_HEADER]: `${VIEWER}:1, 203.0.113.99:2` }));
    expect(countedClients()).toEqual([counterOf(SOURCE_IP), counterOf(SOURCE_IP)]);
  });

  it('the catch-all refuses a direct request too, and answers as usual through the edge', async () => {
    const direct = await invokeApi(catchAll, loadEvent('catch-all/unknown-path.json'));
    expect(direct.status).toBe(403);
    expect(direct.body).toMatchObject({ type: 'urn:problem:forbidden' });
    const proven = loadEvent<ApiEvent>('catch-all/unknown-path.json');
    proven.headers![ORIGIN_HEADER] = SECRET;
    expect((await invokeApi(catchAll, proven)).status).toBe(404);
  });

  it('the authorizer does not verify the token of a direct request (the function refuses it), and does through the edge', async () => {
    const { privateSet, publicSet } = await generateSigningKeys();
    secrets.set('jwt-public', JSON.stringify(publicSet));
    secrets.set('jwt-private', JSON.stringify(privateSet));
    const userId = 'Ue7YbQk3Lm9Pz2Rt5Vw8Xa';
    const { token } = await signToken('access', { id: userId, token_version: 0 });
    // The authorizer reads the user's auth state (decision 67).
    ddb.on(GetCommand).resolves({
      Item: { pk: `AUTH#${userId}`, sk: 'A', user_id: userId, username: 'kaori', role: 'member', is_active: true, token_version: 0, rev: 1, revoked_families: {} },
    });
    const request = (headers: Record<string, string>) => {
      const e = loadEvent<Parameters<typeof authorizer>[0]>('authorizer/request.json');
      e.headers = { ...e.headers, authorization: `Bearer ${token}`, ...headers };
      return e;
    };
    expect(await authorizer(request({}))).toEqual({ isAuthorized: true, context: { status: 'anonymous' } });
    expect(await authorizer(request({ [ORIGIN_HEADER]: 'wrong' }))).toEqual({ isAuthorized: true, context: { status: 'anonymous' } });
    expect(ddb.commandCalls(GetCommand)).toHaveLength(0);
    expect(await authorizer(request({ [ORIGIN_HEADER]: SECRET }))).toMatchObject({ isAuthorized: true, context: { status: 'user', user_id: userId } });
  });
});

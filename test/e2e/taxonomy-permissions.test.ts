/**
 * Who may call the 30 taxonomy operations (API.md §2.1–§2.5): reads are public, writes need
 * contributor or above; denied writes change nothing; a bad Authorization header is refused
 * everywhere, public reads included.
 */
import { SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { signingKey } from '../../shared/auth/keys.js';
import { signToken } from '../../shared/auth/tokens.js';
import type { Role } from '../../shared/auth/roles.js';
import {
  KINDS,
  ROLES,
  create,
  expectJson,
  expectProblem,
  full,
  minimal,
  send,
  uniqueName,
  usersByRole,
  type Caller,
} from '../support/contract.js';
import { createTestUser, useServer } from '../support/server.js';

const server = useServer();
let users: Record<Role, Record<string, string>>;
beforeAll(async () => {
  users = await usersByRole(server);
});

const CALLERS: Caller[] = ['anonymous', ...ROLES];
const OUTCOME: Record<Caller, 'ok' | 401 | 403> = {
  anonymous: 401,
  member: 403,
  premium: 403,
  contributor: 'ok',
  moderator: 'ok',
  administrator: 'ok',
};
const headersOf = (c: Caller) => (c === 'anonymous' ? {} : users[c]);

describe.each(KINDS.map((k) => [k.segment, k] as const))('/api/%s/', (_segment, k) => {
  const collection = `/api/${k.segment}/`;
  const item = (id: string) => `/api/${k.segment}/${id}/`;
  const snapshot = async (id: string) => {
    const res = await send(server, 'GET', item(id));
    return { body: res.body, etag: res.headers.get('etag') };
  };
  const count = async () => (await send(server, 'GET', collection)).body.count as number;

  it.each(CALLERS)('GET list and detail: allowed for %s', async (caller) => {
    const record = await create(server, k, users.contributor, minimal(k, uniqueName('Readable')));
    const list = await send(server, 'GET', collection, { headers: headersOf(caller) });
    expect(expectJson(list, 200).results.length).toBeGreaterThan(0);
    const detail = await send(server, 'GET', item(record.id), { headers: headersOf(caller) });
    expect(expectJson(detail, 200)).toEqual(record);
  });

  it.each(CALLERS)('POST by %s', async (caller) => {
    const before = await count();
    const res = await send(server, 'POST', collection, { body: full(k, uniqueName('By')), headers: headersOf(caller) });
    const outcome = OUTCOME[caller];
    if (outcome === 'ok') {
      expectJson(res, 201);
      expect(await count()).toBe(before + 1);
    } else {
      expectProblem(res, outcome, outcome === 401 ? 'authentication-required' : 'forbidden');
      expect(await count()).toBe(before);
    }
  });

  it.each(CALLERS)('PUT, PATCH and DELETE by %s', async (caller) => {
    const record = await create(server, k, users.contributor, full(k, uniqueName('Target')));
    const before = await snapshot(record.id);
    const outcome = OUTCOME[caller];
    const writes: [string, unknown][] = [
      ['PUT', minimal(k, uniqueName('Put by'))],
      ['PATCH', { name: uniqueName('Patch by') }],
      ['DELETE', undefined],
    ];
    for (const [method, body] of writes) {
      const res = await send(server, method, item(record.id), { body, headers: headersOf(caller) });
      if (outcome === 'ok') {
        expect(res.status, `${method} ${res.text}`).toBe(method === 'DELETE' ? 204 : 200);
      } else {
        expectProblem(res, outcome, outcome === 401 ? 'authentication-required' : 'forbidden');
        expect(await snapshot(record.id)).toEqual(before);
      }
    }
    if (outcome === 'ok') expectProblem(await send(server, 'GET', item(record.id)), 404, 'not-found');
  });

  it('records have no owner: any contributor or above may change a record another created', async () => {
    const record = await create(server, k, users.moderator, minimal(k, uniqueName('Owned')));
    const other = (await server.user('contributor')).auth;
    expect((await send(server, 'PATCH', item(record.id), { body: { name: uniqueName('Changed') }, headers: other })).status).toBe(200);
    expect((await send(server, 'DELETE', item(record.id), { headers: users.administrator })).status).toBe(204);
  });
});

describe('Authorization header (§2.1)', () => {
  const k = KINDS[0]!;
  const collection = `/api/${k.segment}/`;
  let recordId: string;
  let token: string;
  let badHeaders: [string, string][];

  beforeAll(async () => {
    const contributor = await server.user('contributor');
    token = contributor.token;
    recordId = (await create(server, k, contributor.auth, minimal(k, uniqueName('Auth')))).id;
    const [head, payload, signature] = token.split('.') as [string, string, string];
    const flipped = `${signature.slice(0, -2)}${signature.slice(-2) === 'AA' ? 'BA' : 'AA'}`;
    const refresh = (await signToken('refresh', { id: contributor.id, token_version: 0 })).token;
    const inactive = await createTestUser('administrator', { active: false });
    const { kid, key } = await signingKey();
    const now = Math.floor(Date.now() / 1000);
    const expired = await new SignJWT({ user_id: contributor.id, token_type: 'access', tv: 0, jti: 'expired-token' })
      .setProtectedHeader({ alg: 'EdDSA', kid, typ: 'JWT' })
      .setIssuer(process.env.PUBLIC_BASE_URL!)
      .setSubject(contributor.id)
      .setIssuedAt(now - 3600)
      .setExpirationTime(now - 1800)
      .sign(key);
    badHeaders = [
      ['garbage', 'Bearer not-a-token'],
      ['a bad signature', `Bearer ${head}.${payload}.${flipped}`],
      ['another scheme', `Basic ${Buffer.from('a:b').toString('base64')}`],
      ['a missing token', 'Bearer'],
      ['an extra part', `Bearer ${token} extra`],
      ['no scheme', token],
      ['a refresh token', `Bearer ${refresh}`],
      ['an expired token', `Bearer ${expired}`],
      ['an inactive user', `Bearer ${inactive.token}`],
      ['an empty header', ''],
    ];
  });

  it('the JWT scheme word, any case and several spaces are accepted', async () => {
    for (const header of [`JWT ${token}`, `bearer ${token}`, `BEARER   ${token}`, `jwt ${token}`]) {
      const res = await send(server, 'POST', collection, { body: minimal(k, uniqueName('Scheme')), headers: { authorization: header } });
      expect(res.status, header).toBe(201);
    }
  });

  it('a bad header → 401 invalid-token on writes, list and detail GET alike; nothing is written', async () => {
    const before = (await send(server, 'GET', collection)).body.count;
    for (const [what, header] of badHeaders) {
      const headers = { authorization: header };
      const requests: [string, string, unknown][] = [
        ['GET', collection, undefined],
        ['GET', `/api/${k.segment}/${recordId}/`, undefined],
        ['POST', collection, minimal(k, uniqueName('Bad token'))],
        ['PUT', `/api/${k.segment}/${recordId}/`, minimal(k, uniqueName('Bad token'))],
        ['PATCH', `/api/${k.segment}/${recordId}/`, { name: uniqueName('Bad token') }],
        ['DELETE', `/api/${k.segment}/${recordId}/`, undefined],
      ];
      for (const [method, path, body] of requests) {
        const res = await send(server, method, path, { body, headers });
        expect(res.status, `${what}: ${method} ${path}`).toBe(401);
        expectProblem(res, 401, 'invalid-token');
      }
    }
    expect((await send(server, 'GET', collection)).body.count).toBe(before);
    expect((await send(server, 'GET', `/api/${k.segment}/${recordId}/`)).status).toBe(200);
  });

  it.each(KINDS.map((x) => x.segment))('a bad token is refused on the public GETs of /api/%s/', async (segment) => {
    const res = await send(server, 'GET', `/api/${segment}/`, { headers: { authorization: 'Bearer nope' } });
    expectProblem(res, 401, 'invalid-token');
    const detail = await send(server, 'GET', `/api/${segment}/AAAAAAAAAAAAAAAAAAAAAA/`, { headers: { authorization: 'Bearer nope' } });
    expectProblem(detail, 401, 'invalid-token');
  });
});

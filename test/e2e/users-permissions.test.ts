/**
 * Who may call the 20 operations on /api/users/ (API.md §2.1, §2.5, §4.21): administrators only
 * for the list and other users' records (a non-administrator naming any other id gets 403, a
 * role check that precedes 415, 400 and 404); signed-in callers for their own account; anyone
 * for the public views and the credential-establishing operations, which ignore Authorization.
 * Denied requests change nothing.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../shared/auth/roles.js';
import { makeAccount, PASSWORD, storedUser, type Account } from '../support/accounts.js';
import { ROLES, expectErrors, expectJson, expectProblem, send, type Caller } from '../support/contract.js';
import { useServer } from '../support/server.js';

const server = useServer();
const CALLERS: Caller[] = ['anonymous', ...ROLES];
const UNKNOWN = 'AAAAAAAAAAAAAAAAAAAAAA';
const BAD_TOKEN = { authorization: 'Bearer not-a-token' };

let callers: Record<Role, Account>;
beforeAll(async () => {
  const entries = await Promise.all(ROLES.map(async (r) => [r, await makeAccount({ role: r })] as const));
  callers = Object.fromEntries(entries) as Record<Role, Account>;
});
const headersOf = (c: Caller) => (c === 'anonymous' ? {} : callers[c].auth);

describe('administrators only: GET /api/users/ and other users’ /api/users/{id}/', () => {
  it.each(CALLERS)('GET /api/users/ by %s', async (caller) => {
    const res = await send(server, 'GET', '/api/users/', { headers: headersOf(caller) });
    if (caller === 'anonymous') expectProblem(res, 401, 'authentication-required');
    else if (caller === 'administrator') expectJson(res, 200);
    else expectProblem(res, 403, 'forbidden');
  });

  it.each(CALLERS)('GET, PUT, PATCH, DELETE of another user by %s', async (caller) => {
    const target = await makeAccount();
    const before = await storedUser(target.id);
    const writes: [string, unknown][] = [
      ['GET', undefined],
      ['PUT', { username: `${target.username}x`, email: target.email, role: 'member', is_active: true }],
      ['PATCH', { role: 'moderator' }],
      ['DELETE', undefined],
    ];
    for (const [method, body] of writes) {
      const res = await send(server, method, `/api/users/${target.id}/`, { body, headers: headersOf(caller) });
      if (caller === 'anonymous') expectProblem(res, 401, 'authentication-required');
      else if (caller !== 'administrator') expectProblem(res, 403, 'forbidden');
      else expect(res.status, `${method} ${res.text}`).toBe(method === 'DELETE' ? 204 : 200);
      if (caller !== 'administrator') expect(await storedUser(target.id)).toEqual(before);
    }
  });

  it.each(ROLES.filter((r) => r !== 'administrator'))(
    'a %s naming another id → 403 before 415, 400 (body, query) and 404 — whether or not it exists',
    async (role) => {
      const auth = callers[role].auth;
      const other = callers.administrator.id;
      for (const id of [other, UNKNOWN, 'not*an*id']) {
        expectProblem(await send(server, 'GET', `/api/users/${id}/`, { headers: auth }), 403, 'forbidden');
        expectProblem(await send(server, 'GET', `/api/users/${id}/?bogus=1`, { headers: auth }), 403, 'forbidden');
        expectProblem(await send(server, 'PATCH', `/api/users/${id}/`, { body: 'x', headers: { ...auth, 'content-type': 'text/plain' } }), 403, 'forbidden');
        expectProblem(await send(server, 'PUT', `/api/users/${id}/`, { body: '{"username":', headers: { ...auth, 'content-type': 'application/json' } }), 403, 'forbidden');
        expectProblem(await send(server, 'DELETE', `/api/users/${id}/`, { body: { current_password: PASSWORD }, headers: auth }), 403, 'forbidden');
      }
    },
  );

  it('an administrator gets, in order: 415, 400 malformed / invalid query, 404 unknown id, 412, 400 validation, 409', async () => {
    const auth = callers.administrator.auth;
    const target = await makeAccount();
    const unknown = `/api/users/${UNKNOWN}/`;
    expectProblem(await send(server, 'PATCH', unknown, { body: 'x', headers: { ...auth, 'content-type': 'text/plain' } }), 415, 'unsupported-media-type');
    expectProblem(await send(server, 'PATCH', unknown, { body: '[1]', headers: { ...auth, 'content-type': 'application/json' } }), 400, 'malformed-request');
    expectProblem(await send(server, 'GET', `${unknown}?bogus=1`, { headers: auth }), 400, 'invalid-query');
    expectProblem(await send(server, 'PATCH', unknown, { body: { role: 'root' }, headers: { ...auth, 'if-match': '"x"' } }), 404, 'not-found');
    expectProblem(await send(server, 'PATCH', `/api/users/${target.id}/`, { body: { role: 'root' }, headers: { ...auth, 'if-match': '"x"' } }), 412, 'precondition-failed');
    expectErrors(await send(server, 'PATCH', `/api/users/${target.id}/`, { body: { role: 'root', username: callers.member.username }, headers: auth }), 400, 'validation-error', ['role']);
    expectErrors(await send(server, 'PATCH', `/api/users/${target.id}/`, { body: { username: callers.member.username }, headers: auth }), 409, 'conflict', ['username']);
  });
});

describe('signed in, acting on the own account: /api/users/me/, set_password, set_email, the own id', () => {
  const own = (a: Account): [string, string, unknown][] => [
    ['GET', '/api/users/me/', undefined],
    ['PUT', '/api/users/me/', { username: a.username }],
    ['PATCH', '/api/users/me/', {}],
    ['GET', `/api/users/${a.id}/`, undefined],
    ['PUT', `/api/users/${a.id}/`, { username: a.username }],
    ['PATCH', `/api/users/${a.id}/`, {}],
  ];

  it.each(ROLES)('every role may read and write its own account: %s', async (role) => {
    const a = await makeAccount({ role });
    for (const [method, path, body] of own(a)) expect(expectJson(await send(server, method, path, { body, headers: a.auth }), 200).id).toBe(a.id);
  });

  it('anonymous → 401 authentication-required, a bad token → 401 invalid-token, on all ten', async () => {
    const a = await makeAccount();
    const all: [string, string, unknown][] = [
      ...own(a),
      ['DELETE', '/api/users/me/', { current_password: PASSWORD }],
      ['DELETE', `/api/users/${a.id}/`, { current_password: PASSWORD }],
      ['POST', '/api/users/set_password/', { current_password: PASSWORD, new_password: 'Fresh-Password-1', re_new_password: 'Fresh-Password-1' }],
      ['POST', '/api/users/set_email/', { current_password: PASSWORD, new_email: 'n@example.org', re_new_email: 'n@example.org' }],
    ];
    for (const [method, path, body] of all) {
      expectProblem(await send(server, method, path, { body }), 401, 'authentication-required');
      expectProblem(await send(server, method, path, { body, headers: BAD_TOKEN }), 401, 'invalid-token');
      expectProblem(await send(server, method, path, { body, headers: { authorization: `JWT ${a.token}x` } }), 401, 'invalid-token');
    }
    expect((await storedUser(a.id))!.record.username).toBe(a.username);
  });

  it('the JWT scheme word works like Bearer', async () => {
    const a = await makeAccount();
    expect((await send(server, 'GET', '/api/users/me/', { headers: { authorization: `jwt  ${a.token}` } })).status).toBe(200);
  });
});

describe('anyone: the public views and the credential-establishing operations', () => {
  it.each(CALLERS)('about and reviews by %s', async (caller) => {
    const subject = callers.member.username;
    expectJson(await send(server, 'GET', `/api/users/${subject}/about/`, { headers: headersOf(caller) }), 200);
    expectJson(await send(server, 'GET', `/api/users/${subject}/reviews/`, { headers: headersOf(caller) }), 200);
  });

  it('a bad token on the public views → 401, before 404 and 400', async () => {
    expectProblem(await send(server, 'GET', '/api/users/nobody-here/about/', { headers: BAD_TOKEN }), 401, 'invalid-token');
    expectProblem(await send(server, 'GET', '/api/users/nobody-here/reviews/?kind=x', { headers: BAD_TOKEN }), 401, 'invalid-token');
  });

  it('the seven credential-establishing operations ignore Authorization, even an invalid one', async () => {
    const paths = ['/api/users/', '/api/users/activation/', '/api/users/resend_activation/', '/api/users/reset_password/', '/api/users/reset_password_confirm/', '/api/users/reset_email/', '/api/users/reset_email_confirm/'];
    for (const path of paths) {
      for (const headers of [{}, BAD_TOKEN, callers.administrator.auth]) {
        const res = await send(server, 'POST', path, { body: {}, headers });
        expectProblem(res, 400, 'validation-error');
      }
    }
  });
});

/**
 * Which error wins when several apply (API.md §1.4 "Precedence"), on the taxonomy operations:
 * 404/405 path → 413 → 401 → 403 role → 415 → 400 malformed/query → 404 id → 412 → 400
 * validation → 409.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../shared/auth/roles.js';
import { create, expectErrors, expectProblem, kind, send, uniqueName, usersByRole } from '../support/contract.js';
import { useServer } from '../support/server.js';

const server = useServer();
const genres = kind('genres');
const UNKNOWN = '/api/genres/AAAAAAAAAAAAAAAAAAAAAA/';
const BIG = `{"name": "${'x'.repeat(1_048_576)}"}`;

let users: Record<Role, Record<string, string>>;
let taken: any;
let target: any;
let targetPath: string;
beforeAll(async () => {
  users = await usersByRole(server);
  taken = await create(server, genres, users.contributor, { name: uniqueName('Taken') });
  target = await create(server, genres, users.contributor, { name: uniqueName('Target') });
  targetPath = `/api/genres/${target.id}/`;
});

const bad = { authorization: 'Bearer not-a-token' };
const textPlain = { 'content-type': 'text/plain' };

describe('413 comes before credentials, role, content type and body', () => {
  it.each([
    ['anonymous', () => ({})],
    ['a bad token', () => bad],
    ['a member', () => users.member],
    ['a contributor with a wrong content type', () => ({ ...users.contributor, ...textPlain })],
  ])('%s', async (_who, headers) => {
    for (const [method, path] of [['POST', '/api/genres/'], ['PUT', UNKNOWN], ['PATCH', targetPath]]) {
      expectProblem(await send(server, method!, path!, { body: BIG, headers: headers() }), 413, 'payload-too-large');
    }
  });
});

describe('401 comes before role, content type, body, query, path ids, If-Match and validation', () => {
  it.each([
    ['malformed JSON', '/api/genres/', 'POST', '{', {}],
    ['a wrong content type', '/api/genres/', 'POST', 'name', textPlain],
    ['an unknown query parameter', '/api/genres/?foo=1', 'POST', { name: 'x' }, {}],
    ['an unknown id', UNKNOWN, 'PUT', { bogus: 1 }, {}],
    ['a malformed id', '/api/genres/!!!/', 'DELETE', undefined, {}],
    ['a mismatching If-Match', '', 'PATCH', { name: 5 }, { 'if-match': '"x"' }],
    ['a taken name', '', 'PATCH', { name: 'TAKEN' }, {}],
  ] as [string, string, string, unknown, Record<string, string>][])('anonymous with %s → 401 authentication-required', async (_what, path, method, body, headers) => {
    const p = path || targetPath;
    expectProblem(await send(server, method, p, { body, headers }), 401, 'authentication-required');
    expectProblem(await send(server, method, p, { body, headers: { ...headers, ...bad } }), 401, 'invalid-token');
  });

  it('a bad token on a public GET beats an invalid query and an unknown id', async () => {
    expectProblem(await send(server, 'GET', '/api/genres/?foo=1&limit=0', { headers: bad }), 401, 'invalid-token');
    expectProblem(await send(server, 'GET', UNKNOWN, { headers: bad }), 401, 'invalid-token');
    expectProblem(await send(server, 'GET', '/api/genres/!/', { headers: bad }), 401, 'invalid-token');
  });
});

describe('403 (role) comes before content type, body, query, path ids, If-Match and validation', () => {
  it.each(['member', 'premium'] as const)('%s', async (role) => {
    const h = () => users[role];
    const cases: [string, string, unknown, Record<string, string>][] = [
      ['POST', '/api/genres/', '{', {}],
      ['POST', '/api/genres/', 'name', textPlain],
      ['POST', '/api/genres/?foo=1', { name: 'x' }, {}],
      ['PUT', UNKNOWN, { bogus: 1 }, {}],
      ['DELETE', '/api/genres/!!!/', undefined, {}],
      ['PATCH', targetPath, { name: 5 }, { 'if-match': '"x"' }],
      ['PATCH', targetPath, { name: taken.name }, {}],
    ];
    for (const [method, path, body, headers] of cases) {
      expectProblem(await send(server, method, path, { body, headers: { ...h(), ...headers } }), 403, 'forbidden');
    }
    expect((await send(server, 'GET', targetPath)).body).toEqual(target);
  });
});

describe('for a contributor', () => {
  const c = () => users.contributor;

  it('415 comes before malformed bodies, invalid queries and unknown ids', async () => {
    expectProblem(await send(server, 'POST', '/api/genres/?foo=1', { body: '{', headers: { ...c(), ...textPlain } }), 415, 'unsupported-media-type');
    expectProblem(await send(server, 'PUT', UNKNOWN, { body: '{', headers: { ...c(), ...textPlain } }), 415, 'unsupported-media-type');
    expectProblem(await send(server, 'PATCH', '/api/genres/!/', { body: '{}', headers: { ...c(), ...textPlain } }), 415, 'unsupported-media-type');
  });

  it('400 malformed-request / invalid-query come before unknown ids', async () => {
    expectProblem(await send(server, 'PUT', UNKNOWN, { body: '[1]', headers: c() }), 400, 'malformed-request');
    expectProblem(await send(server, 'PATCH', '/api/genres/!/', { body: '{', headers: c() }), 400, 'malformed-request');
    expectErrors(await send(server, 'DELETE', `${UNKNOWN}?foo=1`, { headers: c() }), 400, 'invalid-query', ['foo']);
    expectErrors(await send(server, 'GET', `${UNKNOWN}?foo=1`), 400, 'invalid-query', ['foo']);
  });

  it('an unknown or malformed id (404) comes before If-Match, validation and conflicts', async () => {
    for (const path of [UNKNOWN, '/api/genres/!!!/', `/api/genres/${'a'.repeat(65)}/`]) {
      expectProblem(await send(server, 'PUT', path, { body: { bogus: 1 }, headers: { ...c(), 'if-match': '"x"' } }), 404, 'not-found');
      expectProblem(await send(server, 'PATCH', path, { body: { name: taken.name }, headers: c() }), 404, 'not-found');
      expectProblem(await send(server, 'DELETE', path, { headers: { ...c(), 'if-match': '"x"' } }), 404, 'not-found');
    }
  });

  it('412 comes before validation and conflicts; nothing changes', async () => {
    const ifMatch = { ...c(), 'if-match': '"not-current"' };
    expectProblem(await send(server, 'PUT', targetPath, { body: { name: '', bogus: 1 }, headers: ifMatch }), 412, 'precondition-failed');
    expectProblem(await send(server, 'PATCH', targetPath, { body: { name: 5 }, headers: ifMatch }), 412, 'precondition-failed');
    expectProblem(await send(server, 'PUT', targetPath, { body: { name: taken.name }, headers: ifMatch }), 412, 'precondition-failed');
    expect((await send(server, 'GET', targetPath)).body).toEqual(target);
  });

  it('validation (all field errors) comes before a conflict', async () => {
    const res = await send(server, 'PATCH', targetPath, { body: { name: taken.name, description: 5 }, headers: c() });
    expectErrors(res, 400, 'validation-error', ['description']);
    const post = await send(server, 'POST', '/api/genres/', { body: { name: taken.name, colour: 'red' }, headers: c() });
    expectErrors(post, 400, 'validation-error', ['colour']);
    const conflict = await send(server, 'PATCH', targetPath, { body: { name: taken.name }, headers: c() });
    expect(expectErrors(conflict, 409, 'conflict', ['name']).existing_id).toBe(taken.id);
    expect((await send(server, 'GET', targetPath)).body).toEqual(target);
  });
});

/**
 * Profiles (API.md §3.12, §4.12): the administrator's CRUD on /api/profiles/ (non-administrators
 * get 403 everywhere there, their own profile's id included), and the caller's own profile
 * (my-profile, created blank when absent; update-profile with If-Match against its ETag).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../shared/auth/roles.js';
import { makeAccount, uniqueUsername, type Account } from '../support/accounts.js';
import { ROLES, expectErrors, expectJson, expectProblem, ID, send, TIMESTAMP, type Caller } from '../support/contract.js';
import { useServer } from '../support/server.js';

const server = useServer();
const KEYS = ['id', 'user', 'first_name', 'last_name', 'birth_date', 'bio', 'image', 'cover', 'location', 'gender', 'website', 'created_at', 'updated_at'];
const BLANK = { first_name: '', last_name: '', birth_date: null, bio: '', image: null, cover: null, location: '', gender: null, website: null };
const FILLED = {
  first_name: 'Haruka',
  last_name: 'Nanase',
  birth_date: '1996-06-30',
  bio: 'Line one.\nLine two.',
  image: 'https://img.example.org/me.png',
  cover: 'https://img.example.org/cover.png',
  location: 'Iwatobi',
  gender: 'male',
  website: 'http://example.org/haru',
};
const CALLERS: Caller[] = ['anonymous', ...ROLES];

let admin: Account;
let callers: Record<Role, Account>;
beforeAll(async () => {
  const entries = await Promise.all(ROLES.map(async (r) => [r, await makeAccount({ role: r })] as const));
  callers = Object.fromEntries(entries) as Record<Role, Account>;
  admin = callers.administrator;
});
const headersOf = (c: Caller) => (c === 'anonymous' ? {} : callers[c].auth);
const myProfile = (auth: Record<string, string>) => send(server, 'GET', '/api/profiles/my-profile/', { headers: auth });
const updateProfile = (auth: Record<string, string>, body: unknown, headers: Record<string, string> = {}) =>
  send(server, 'PATCH', '/api/profiles/update-profile/', { body, headers: { ...auth, ...headers } });
const adminCall = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  send(server, method, path, { body, headers: { ...admin.auth, ...headers } });

describe('permissions', () => {
  it.each(CALLERS)('the six /api/profiles/ operations by %s (own profile id included)', async (caller) => {
    const owner = caller === 'anonymous' ? await makeAccount() : callers[caller];
    const target = await makeAccount();
    const before = expectJson(await adminCall('GET', `/api/profiles/${target.profileId}/`), 200);
    const calls: [string, string, unknown][] = [
      ['GET', '/api/profiles/', undefined],
      ['POST', '/api/profiles/', { user_id: target.id }],
      ['GET', `/api/profiles/${owner.profileId}/`, undefined],
      ['PUT', `/api/profiles/${owner.profileId}/`, FILLED],
      ['PATCH', `/api/profiles/${owner.profileId}/`, { bio: 'x' }],
      ['DELETE', `/api/profiles/${owner.profileId}/`, undefined],
      ['GET', `/api/profiles/${target.profileId}/`, undefined],
      ['PATCH', `/api/profiles/${target.profileId}/`, { bio: 'x' }],
      ['DELETE', `/api/profiles/${target.profileId}/`, undefined],
    ];
    for (const [method, path, body] of calls) {
      const res = await send(server, method, path, { body, headers: headersOf(caller) });
      if (caller === 'anonymous') expectProblem(res, 401, 'authentication-required');
      else if (caller !== 'administrator') expectProblem(res, 403, 'forbidden');
    }
    if (caller !== 'administrator') expect(expectJson(await adminCall('GET', `/api/profiles/${target.profileId}/`), 200)).toEqual(before);
  });

  it('a non-administrator gets 403 before 415, 400 and 404', async () => {
    const auth = callers.moderator.auth;
    expectProblem(await send(server, 'GET', '/api/profiles/AAAAAAAAAAAAAAAAAAAAAA/', { headers: auth }), 403, 'forbidden');
    expectProblem(await send(server, 'GET', '/api/profiles/?bogus=1', { headers: auth }), 403, 'forbidden');
    expectProblem(await send(server, 'POST', '/api/profiles/', { body: 'x', headers: { ...auth, 'content-type': 'text/plain' } }), 403, 'forbidden');
  });

  it.each(CALLERS)('my-profile and update-profile by %s', async (caller) => {
    const get = await myProfile(headersOf(caller));
    const patch = await updateProfile(headersOf(caller), { location: 'Here' });
    if (caller === 'anonymous') {
      expectProblem(get, 401, 'authentication-required');
      expectProblem(patch, 401, 'authentication-required');
    } else {
      expect(expectJson(get, 200).user.id).toBe(callers[caller].id);
      expect(expectJson(patch, 200).location).toBe('Here');
    }
  });

  it('a bad token → 401 invalid-token on all eight', async () => {
    const bad = { authorization: 'Bearer bad' };
    const p = callers.member.profileId;
    for (const [method, path] of [
      ['GET', '/api/profiles/'],
      ['POST', '/api/profiles/'],
      ['GET', `/api/profiles/${p}/`],
      ['PUT', `/api/profiles/${p}/`],
      ['PATCH', `/api/profiles/${p}/`],
      ['DELETE', `/api/profiles/${p}/`],
      ['GET', '/api/profiles/my-profile/'],
      ['PATCH', '/api/profiles/update-profile/'],
    ] as const) {
      expectProblem(await send(server, method, path, { headers: bad }), 401, 'invalid-token');
    }
  });
});

describe('the caller’s own profile', () => {
  it('my-profile → 200 Profile, ETag, private; update-profile changes a subset, the ETags agree', async () => {
    const a = await makeAccount();
    const res = await myProfile(a.auth);
    const profile = expectJson(res, 200);
    expect(Object.keys(profile)).toEqual(KEYS);
    expect(profile).toMatchObject({ id: a.profileId, user: { id: a.id, username: a.username }, ...BLANK });
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    expect(res.headers.get('etag')).toMatch(/^"/);
    expect((await send(server, 'GET', '/api/profiles/my-profile/?fields=bio', { headers: a.auth })).body).toEqual({ id: a.profileId, bio: '' });

    const updated = await updateProfile(a.auth, { bio: 'New bio', gender: 'female' }, { 'if-match': res.headers.get('etag')! });
    expect(expectJson(updated, 200)).toMatchObject({ ...BLANK, bio: 'New bio', gender: 'female', id: a.profileId });
    expect(updated.body.updated_at > profile.updated_at).toBe(true);
    const again = await myProfile(a.auth);
    expect(again.body).toEqual(updated.body);
    expect(again.headers.get('etag')).toBe(updated.headers.get('etag'));
    // The old tag no longer matches; {} is a no-op.
    expectProblem(await updateProfile(a.auth, { bio: 5 }, { 'if-match': res.headers.get('etag')! }), 412, 'precondition-failed');
    expect(expectJson(await updateProfile(a.auth, {}), 200)).toEqual(updated.body);
    // null for an optional string is "".
    expect(expectJson(await updateProfile(a.auth, { bio: null, location: null, gender: null }), 200)).toMatchObject({ bio: '', location: '', gender: null });
  });

  it('update-profile: every field error in one 400; user, user_id and unknown fields are not writable', async () => {
    const a = await makeAccount();
    const res = await updateProfile(a.auth, {
      first_name: 'x'.repeat(101),
      birth_date: '2999-01-01',
      bio: 'y'.repeat(1001),
      image: 'http://img.example.org/a.png',
      cover: 'not a url',
      gender: 'unknown',
      website: 'ftp://example.org/',
      location: 'a\u0001b',
    });
    expectErrors(res, 400, 'validation-error', ['first_name', 'birth_date', 'bio', 'image', 'cover', 'gender', 'website', 'location']);
    expectErrors(await updateProfile(a.auth, { user_id: callers.member.id, user: {}, id: 'x', created_at: 'x' }), 400, 'validation-error', ['user_id', 'user', 'id', 'created_at']);
    expectErrors(await updateProfile(a.auth, { birth_date: '1899-12-31', last_name: 5 }), 400, 'validation-error', ['birth_date', 'last_name']);
    expect(expectJson(await myProfile(a.auth), 200)).toMatchObject(BLANK);
  });

  it('after an administrator deleted it: the account remains; my-profile creates a new blank one', async () => {
    const a = await makeAccount();
    await updateProfile(a.auth, { bio: 'Before' });
    expect((await adminCall('DELETE', `/api/profiles/${a.profileId}/`)).status).toBe(204);
    expect(expectJson(await send(server, 'GET', '/api/users/me/', { headers: a.auth }), 200).id).toBe(a.id);
    const fresh = expectJson(await myProfile(a.auth), 200);
    expect(fresh.id).not.toBe(a.profileId);
    expect(fresh).toMatchObject({ user: { id: a.id, username: a.username }, ...BLANK });
    expect(expectJson(await myProfile(a.auth), 200)).toEqual(fresh);
    expect(expectJson(await adminCall('GET', `/api/profiles/${fresh.id}/`), 200)).toEqual(fresh);
  });

  it('after an administrator deleted it: update-profile creates it with the changes (If-Match only as *)', async () => {
    const a = await makeAccount();
    expect((await adminCall('DELETE', `/api/profiles/${a.profileId}/`)).status).toBe(204);
    expectProblem(await updateProfile(a.auth, { bio: 'x' }, { 'if-match': '"anything"' }), 412, 'precondition-failed');
    const created = expectJson(await updateProfile(a.auth, { bio: 'Created', location: 'Kyoto' }, { 'if-match': '*' }), 200);
    expect(created).toMatchObject({ ...BLANK, bio: 'Created', location: 'Kyoto', user: { id: a.id, username: a.username } });
    expect(created.id).toMatch(ID);
    expect(expectJson(await myProfile(a.auth), 200)).toEqual(created);
  });
});

describe('administrators on /api/profiles/', () => {
  it('GET one → 200 Profile with ETag; unknown or malformed id → 404', async () => {
    const a = await makeAccount();
    const res = await adminCall('GET', `/api/profiles/${a.profileId}/`);
    expect(Object.keys(expectJson(res, 200))).toEqual(KEYS);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    expectProblem(await adminCall('GET', '/api/profiles/AAAAAAAAAAAAAAAAAAAAAA/'), 404, 'not-found');
    // A user's id is not its profile's id.
    expectProblem(await adminCall('GET', `/api/profiles/${a.id}/`), 404, 'not-found');
  });

  it('PUT replaces every field (omitted → defaults); PATCH a subset; If-Match; 404 before 412 before 400', async () => {
    const a = await makeAccount();
    const path = `/api/profiles/${a.profileId}/`;
    const put = await adminCall('PUT', path, FILLED);
    expect(expectJson(put, 200)).toMatchObject({ ...FILLED, user: { id: a.id, username: a.username } });
    expect(put.headers.get('etag')).toBe((await adminCall('GET', path)).headers.get('etag'));
    expect(expectJson(await adminCall('PUT', path, { bio: 'Only bio' }), 200)).toMatchObject({ ...BLANK, bio: 'Only bio' });
    expect(expectJson(await adminCall('PATCH', path, { location: 'Tokyo' }), 200)).toMatchObject({ bio: 'Only bio', location: 'Tokyo' });
    expectErrors(await adminCall('PATCH', path, { user_id: a.id }), 400, 'validation-error', ['user_id']);
    expectProblem(await adminCall('PATCH', '/api/profiles/AAAAAAAAAAAAAAAAAAAAAA/', { bio: 5 }, { 'if-match': '"x"' }), 404, 'not-found');
    expectProblem(await adminCall('PATCH', path, { bio: 5 }, { 'if-match': '"x"' }), 412, 'precondition-failed');
    const etag = (await adminCall('GET', path)).headers.get('etag')!;
    expect((await adminCall('PATCH', path, { bio: 'Matched' }, { 'if-match': etag })).status).toBe(200);
    // The owner sees the administrator's changes.
    expect(expectJson(await myProfile(a.auth), 200).bio).toBe('Matched');
  });

  it('DELETE → 204; the account remains; a second DELETE → 404; If-Match', async () => {
    const a = await makeAccount();
    const path = `/api/profiles/${a.profileId}/`;
    expectProblem(await adminCall('DELETE', path, undefined, { 'if-match': '"stale"' }), 412, 'precondition-failed');
    expect((await adminCall('DELETE', path)).status).toBe(204);
    expectProblem(await adminCall('DELETE', path), 404, 'not-found');
    expect(expectJson(await adminCall('GET', `/api/users/${a.id}/`), 200).id).toBe(a.id);
  });

  it('POST {user_id, …} → 201 with Location for a user without a profile; 409 with existing_id when there is one', async () => {
    const a = await makeAccount();
    const conflict = await adminCall('POST', '/api/profiles/', { user_id: a.id, bio: 'Second' });
    expect(expectErrors(conflict, 409, 'conflict', ['user_id']).existing_id).toBe(a.profileId);
    expect((await adminCall('DELETE', `/api/profiles/${a.profileId}/`)).status).toBe(204);
    const res = await adminCall('POST', '/api/profiles/', { user_id: a.id, ...FILLED });
    const created = expectJson(res, 201);
    expect(Object.keys(created)).toEqual(KEYS);
    expect(created).toMatchObject({ ...FILLED, user: { id: a.id, username: a.username } });
    expect(created.created_at).toMatch(TIMESTAMP);
    expect(res.headers.get('location')).toBe(`${server.url}/api/profiles/${created.id}/`);
    expect(res.headers.get('etag')).toMatch(/^"/);
    expect(expectJson(await myProfile(a.auth), 200)).toEqual(created);
  });

  it('POST: unknown user_id is a field error reported with the others; user_id is required', async () => {
    expectErrors(await adminCall('POST', '/api/profiles/', { user_id: 'AAAAAAAAAAAAAAAAAAAAAA', bio: 5 }), 400, 'validation-error', ['user_id', 'bio']);
    expectErrors(await adminCall('POST', '/api/profiles/', { user_id: 'AAAAAAAAAAAAAAAAAAAAAA' }), 400, 'validation-error', ['user_id']);
    expectErrors(await adminCall('POST', '/api/profiles/', {}), 400, 'validation-error', ['user_id']);
    expectErrors(await adminCall('POST', '/api/profiles/', { user_id: 7, user: { id: 'x' } }), 400, 'validation-error', ['user_id', 'user']);
  });

  it('a rename of the user shows in the profile and its ordering', async () => {
    const a = await makeAccount();
    const name = uniqueUsername('Renamed');
    expect((await send(server, 'PATCH', '/api/users/me/', { body: { username: name }, headers: a.auth })).status).toBe(200);
    expect(expectJson(await adminCall('GET', `/api/profiles/${a.profileId}/`), 200).user).toEqual({ id: a.id, username: name });
  });
});

describe('GET /api/profiles/ (administrators)', () => {
  const tag = uniqueUsername('prf').slice(3);
  let listed: Account[];
  beforeAll(async () => {
    listed = [];
    for (let i = 0; i < 3; i++) {
      listed.push(await makeAccount({ username: `Omega${i}.${tag}` }));
      await new Promise((r) => setTimeout(r, 5));
    }
    await adminCall('PATCH', `/api/profiles/${listed[1]!.profileId}/`, { first_name: `Kaori${tag}`, last_name: `Miyazono${tag}` });
  });
  const list = (qs: string) => adminCall('GET', `/api/profiles/${qs}`);
  const ids = (res: any) => res.body.results.map((p: any) => p.user.id);

  it('→ Page<Profile>, default -created_at, exact count without q', async () => {
    const page = expectJson(await list('?limit=100'), 200);
    expect(Object.keys(page)).toEqual(['count', 'next', 'previous', 'results']);
    expect(page.count).toBe(page.results.length);
    for (const p of page.results) expect(Object.keys(p)).toEqual(KEYS);
    const created = page.results.map((p: any) => p.created_at);
    expect(created).toEqual([...created].sort().reverse());
  });

  it('q over username, first and last name (count null); ordering username and created_at', async () => {
    const res = await list(`?q=${encodeURIComponent(tag)}&ordering=username&limit=100`);
    expect(res.body.count).toBeNull();
    expect(ids(res)).toEqual(listed.map((a) => a.id));
    expect(ids(await list(`?q=${encodeURIComponent(`kaori${tag}`)}`))).toEqual([listed[1]!.id]);
    expect(ids(await list(`?q=${encodeURIComponent(`miyazono${tag}`)}`))).toEqual([listed[1]!.id]);
    expect(ids(await list(`?q=${encodeURIComponent(`omega2 ${tag}`)}`))).toEqual([listed[2]!.id]);
    expect(ids(await list(`?q=${encodeURIComponent(tag)}&ordering=-username`))).toEqual(listed.map((a) => a.id).reverse());
    expect(ids(await list(`?q=${encodeURIComponent(tag)}&ordering=created_at`))).toEqual(listed.map((a) => a.id));
    expect(expectJson(await list(`?q=${encodeURIComponent(tag)}&fields=bio&ordering=username`), 200).results[0]).toEqual({ id: listed[0]!.profileId, bio: '' });
    for (const bad of ['ordering=first_name', 'ordering=-bio', 'fields=user_id', 'limit=abc', 'role=member']) {
      expectProblem(await list(`?${bad}`), 400, 'invalid-query');
    }
  });
});

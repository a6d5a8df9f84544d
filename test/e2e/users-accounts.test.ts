/**
 * Account records (API.md §4.21.1, §4.21.2): the caller's account at /api/users/me/ and at its
 * own /api/users/{id}/, an administrator on other users (e-mail, role, active state), account
 * deletion, conditional requests and uniqueness conflicts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { addressOf, makeAccount, PASSWORD, signIn, signedIn, storedUser, uniqueUsername, type Account } from '../support/accounts.js';
import { expectErrors, expectJson, expectProblem, send, TIMESTAMP } from '../support/contract.js';
import { emailsTo, emailToken, useServer, waitForEmail } from '../support/server.js';

const server = useServer();
const USER_KEYS = ['id', 'username', 'email', 'role', 'is_active', 'is_staff', 'last_login', 'created_at', 'updated_at'];

let admin: Account;
beforeAll(async () => {
  admin = await makeAccount({ role: 'administrator' });
});

const me = (auth: Record<string, string>, method = 'GET', body?: unknown, headers: Record<string, string> = {}) =>
  send(server, method, '/api/users/me/', { body, headers: { ...auth, ...headers } });
const userPath = (id: string) => `/api/users/${id}/`;
const byId = (auth: Record<string, string>, id: string, method = 'GET', body?: unknown, headers: Record<string, string> = {}) =>
  send(server, method, userPath(id), { body, headers: { ...auth, ...headers } });

describe('GET /api/users/me/ and the own /api/users/{id}/', () => {
  it('→ 200 User with exactly the documented keys, ETag, Cache-Control private; the same at the own id', async () => {
    const account = await makeAccount({ role: 'contributor' });
    const res = await me(account.auth);
    const body = expectJson(res, 200);
    expect(Object.keys(body)).toEqual(USER_KEYS);
    expect(body).toMatchObject({ id: account.id, username: account.username, email: account.email, role: 'contributor', is_active: true, is_staff: false, last_login: null });
    expect(body.created_at).toMatch(TIMESTAMP);
    expect(res.headers.get('etag')).toMatch(/^"[^"]+"$/);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    const own = await byId(account.auth, account.id);
    expect(expectJson(own, 200)).toEqual(body);
    expect(own.headers.get('etag')).toBe(res.headers.get('etag'));
    expect((await me(account.auth, 'GET', undefined, { 'if-none-match': res.headers.get('etag')! })).status).toBe(304);
    expect(expectJson(await send(server, 'GET', '/api/users/me/?fields=username', { headers: account.auth }), 200)).toEqual({ id: account.id, username: account.username });
    expectProblem(await send(server, 'GET', '/api/users/me/?fields=password', { headers: account.auth }), 400, 'invalid-query');
  });

  it('is_staff follows the role', async () => {
    for (const [role, staff] of [['premium', false], ['moderator', true], ['administrator', true]] as const) {
      expect(expectJson(await me((await makeAccount({ role })).auth), 200)).toMatchObject({ role, is_staff: staff });
    }
  });
});

describe('PUT / PATCH /api/users/me/', () => {
  it('PATCH {username} renames; the profile and the public view follow; updated_at changes', async () => {
    const account = await makeAccount();
    const before = expectJson(await me(account.auth), 200);
    const name = uniqueUsername('Renamed');
    const res = await me(account.auth, 'PATCH', { username: name });
    const after = expectJson(res, 200);
    expect(after).toMatchObject({ id: account.id, username: name, email: account.email });
    expect(after.updated_at > before.updated_at).toBe(true);
    expect(res.headers.get('etag')).toBe((await me(account.auth)).headers.get('etag'));
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(expectJson(await send(server, 'GET', '/api/profiles/my-profile/', { headers: account.auth }), 200).user).toEqual({ id: account.id, username: name });
    expect(expectJson(await send(server, 'GET', `/api/users/${name.toLowerCase()}/about/`), 200).username).toBe(name);
    expectProblem(await send(server, 'GET', `/api/users/${account.username}/about/`), 404, 'not-found');
  });

  it('PUT requires username; PATCH {} changes nothing; the same username is a no-op', async () => {
    const account = await makeAccount();
    const before = expectJson(await me(account.auth), 200);
    expectErrors(await me(account.auth, 'PUT', {}), 400, 'validation-error', ['username']);
    expect(expectJson(await me(account.auth, 'PATCH', {}), 200)).toEqual(before);
    expect(expectJson(await me(account.auth, 'PUT', { username: account.username }), 200)).toEqual(before);
  });

  it('a case-only rename is allowed (the username is its own)', async () => {
    const account = await makeAccount();
    expect(expectJson(await me(account.auth, 'PATCH', { username: account.username.toUpperCase() }), 200).username).toBe(account.username.toUpperCase());
  });

  it('400: role, email, is_active, id and unknown fields are not writable here; username rules', async () => {
    const account = await makeAccount();
    expectErrors(await me(account.auth, 'PATCH', { role: 'administrator' }), 400, 'validation-error', ['role']);
    expectErrors(await me(account.auth, 'PATCH', { is_active: false, email: 'x@example.org', id: 'x', is_staff: true }), 400, 'validation-error', ['is_active', 'email', 'id', 'is_staff']);
    expectErrors(await me(account.auth, 'PUT', { username: 'me' }), 400, 'validation-error', ['username']);
    expectErrors(await me(account.auth, 'PATCH', { username: 5 }), 400, 'validation-error', ['username']);
    expectErrors(await me(account.auth, 'PATCH', { username: 'a b' }), 400, 'validation-error', ['username']);
    expect(expectJson(await me(account.auth), 200).role).toBe('member');
  });

  it('409 when the username is taken (case-insensitively), without the other account’s id', async () => {
    const account = await makeAccount();
    const other = await makeAccount();
    const res = await me(account.auth, 'PATCH', { username: other.username.toUpperCase() });
    const body = expectErrors(res, 409, 'conflict', ['username']);
    expect(body.existing_id).toBeUndefined();
    expectErrors(await byId(account.auth, account.id, 'PUT', { username: other.username }), 409, 'conflict', ['username']);
  });

  it('If-Match: 412 on a stale tag (before body validation), success with the current tag or *', async () => {
    const account = await makeAccount();
    const etag = (await me(account.auth)).headers.get('etag')!;
    expectProblem(await me(account.auth, 'PATCH', { username: 5 }, { 'if-match': '"stale"' }), 412, 'precondition-failed');
    expectProblem(await byId(account.auth, account.id, 'PUT', { username: uniqueUsername() }, { 'if-match': '"stale"' }), 412, 'precondition-failed');
    const renamed = await me(account.auth, 'PATCH', { username: uniqueUsername() }, { 'if-match': etag });
    expect(renamed.status, renamed.text).toBe(200);
    expectProblem(await me(account.auth, 'PATCH', { username: uniqueUsername() }, { 'if-match': etag }), 412, 'precondition-failed');
    expect((await me(account.auth, 'PATCH', { username: uniqueUsername() }, { 'if-match': '*' })).status).toBe(200);
    expect((await me(account.auth, 'PATCH', {}, { 'if-match': `W/${renamed.headers.get('etag')}` })).status).toBe(412);
  });
});

describe('account deletion', () => {
  it('DELETE /api/users/me/ {current_password} → 204: account, profile gone; name and address free; E9; tokens stop', async () => {
    const account = await makeAccount();
    const session = await signedIn(server, account.email, PASSWORD);
    const res = await me(account.auth, 'DELETE', { current_password: PASSWORD });
    expect(res.status, res.text).toBe(204);
    const e9 = await waitForEmail(account.email, { subject: 'Your account was deleted' });
    expect(e9.text).toContain(account.username);
    expect(e9.text).toMatch(/UTC/);
    expectProblem(await me(account.auth), 401, 'invalid-token');
    expectProblem(await me(session), 401, 'invalid-token');
    expectProblem(await signIn(server, account.email, PASSWORD), 401, 'invalid-credentials');
    expectProblem(await byId(admin.auth, account.id), 404, 'not-found');
    expectProblem(await send(server, 'GET', `/api/profiles/${account.profileId}/`, { headers: admin.auth }), 404, 'not-found');
    expectProblem(await send(server, 'GET', `/api/users/${account.username}/about/`), 404, 'not-found');
    // Username and e-mail are free at once.
    const again = await makeAccount({ username: account.username.toUpperCase(), email: account.email });
    expect(again.id).not.toBe(account.id);
  });

  it('a pending e-mail change goes with the account', async () => {
    const account = await makeAccount();
    const to = addressOf(uniqueUsername('pending'));
    expect((await send(server, 'POST', '/api/users/set_email/', { body: { current_password: PASSWORD, new_email: to, re_new_email: to }, headers: account.auth })).status).toBe(204);
    const { uid, token } = emailToken(await waitForEmail(to, { subject: 'Confirm your new email address' }));
    expect((await me(account.auth, 'DELETE', { current_password: PASSWORD })).status).toBe(204);
    expectErrors(await send(server, 'POST', '/api/users/reset_email_confirm/', { body: { uid, token } }), 400, 'validation-error', ['uid']);
  });

  it('400 errors.current_password when missing or wrong; 412 first; the own /api/users/{id}/ behaves the same', async () => {
    const account = await makeAccount();
    expectErrors(await me(account.auth, 'DELETE'), 400, 'validation-error', ['current_password']);
    expectErrors(await me(account.auth, 'DELETE', {}), 400, 'validation-error', ['current_password']);
    expectErrors(await me(account.auth, 'DELETE', { current_password: 'wrong-password' }), 400, 'validation-error', ['current_password']);
    expectErrors(await me(account.auth, 'DELETE', { current_password: 5 }), 400, 'validation-error', ['current_password']);
    expectErrors(await byId(account.auth, account.id, 'DELETE', { current_password: 'wrong-password', x: 1 }), 400, 'validation-error', ['current_password', 'x']);
    expectProblem(await me(account.auth, 'DELETE', { current_password: 'wrong-password' }, { 'if-match': '"stale"' }), 412, 'precondition-failed');
    expect(expectJson(await me(account.auth), 200).id).toBe(account.id);
    const etag = (await me(account.auth)).headers.get('etag')!;
    expect((await byId(account.auth, account.id, 'DELETE', { current_password: PASSWORD }, { 'if-match': etag })).status).toBe(204);
    await waitForEmail(account.email, { subject: 'Your account was deleted' });
  });

  it('an administrator deletes another user: 204 with any body or none, E9; a second DELETE → 404', async () => {
    const a = await makeAccount();
    const b = await makeAccount();
    expect((await byId(admin.auth, a.id, 'DELETE')).status).toBe(204);
    expect((await byId(admin.auth, b.id, 'DELETE', { current_password: 'whatever', anything: [1, 2] })).status).toBe(204);
    for (const x of [a, b]) {
      await waitForEmail(x.email, { subject: 'Your account was deleted' });
      expectProblem(await me(x.auth), 401, 'invalid-token');
    }
    expectProblem(await byId(admin.auth, a.id, 'DELETE'), 404, 'not-found');
    // The administrator's own id needs the password, as /me.
    expectErrors(await byId(admin.auth, admin.id, 'DELETE', {}), 400, 'validation-error', ['current_password']);
  });
});

describe('an administrator on another user', () => {
  it('GET → 200 User; an unknown or malformed id → 404', async () => {
    const target = await makeAccount({ role: 'premium' });
    const res = await byId(admin.auth, target.id);
    expect(expectJson(res, 200)).toMatchObject({ id: target.id, username: target.username, email: target.email, role: 'premium' });
    expect(Object.keys(res.body)).toEqual(USER_KEYS);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    expectProblem(await byId(admin.auth, 'AAAAAAAAAAAAAAAAAAAAAA'), 404, 'not-found');
    expectProblem(await byId(admin.auth, 'not*an*id'), 404, 'not-found');
  });

  it('a new e-mail applies at once, revokes the user’s tokens and sends E8 to the old address', async () => {
    const target = await makeAccount();
    const to = addressOf(uniqueUsername('set'));
    const res = await byId(admin.auth, target.id, 'PATCH', { email: to.toUpperCase() });
    expect(expectJson(res, 200)).toMatchObject({ email: to });
    const e8 = await waitForEmail(target.email, { subject: 'Your email address was changed' });
    expect(e8.text).toContain(`${to[0]}***@example.org`);
    expectProblem(await me(target.auth), 401, 'invalid-token');
    expect((await signIn(server, to, PASSWORD)).status).toBe(200);
  });

  it('is_active: false blocks the tokens and sign-in; true again lets the user sign in (old tokens stay revoked)', async () => {
    const target = await makeAccount();
    expect(expectJson(await byId(admin.auth, target.id, 'PATCH', { is_active: false }), 200).is_active).toBe(false);
    expectProblem(await me(target.auth), 401, 'invalid-token');
    expectProblem(await signIn(server, target.email, PASSWORD), 401, 'account-inactive');
    expect(expectJson(await byId(admin.auth, target.id, 'PATCH', { is_active: true }), 200).is_active).toBe(true);
    expectProblem(await me(target.auth), 401, 'invalid-token');
    expect((await me(await signedIn(server, target.email, PASSWORD))).status).toBe(200);
    // Reactivating a once-active account sends nothing.
    expect(await emailsTo(target.email)).toEqual([]);
  });

  it('is_active: true on a never-activated account activates it, without an e-mail', async () => {
    const pending = await makeAccount({ active: false });
    expect(expectJson(await byId(admin.auth, pending.id, 'PATCH', { is_active: true }), 200).is_active).toBe(true);
    expect((await signIn(server, pending.email, PASSWORD)).status).toBe(200);
    expect((await storedUser(pending.id))!.priv.activated_at).toMatch(TIMESTAMP);
    await new Promise((r) => setTimeout(r, 1000));
    expect(await emailsTo(pending.email)).toEqual([]);
  });

  it('a role change applies from the user’s next request, with the same token', async () => {
    const target = await makeAccount();
    expectProblem(await send(server, 'GET', '/api/users/', { headers: target.auth }), 403, 'forbidden');
    expect(expectJson(await byId(admin.auth, target.id, 'PATCH', { role: 'administrator' }), 200)).toMatchObject({ role: 'administrator', is_staff: true });
    expect((await send(server, 'GET', '/api/users/', { headers: target.auth })).status).toBe(200);
    expect(expectJson(await byId(admin.auth, target.id, 'PATCH', { role: 'member' }), 200)).toMatchObject({ role: 'member', is_staff: false });
    expectProblem(await send(server, 'GET', '/api/users/', { headers: target.auth }), 403, 'forbidden');
  });

  it('PUT needs all four fields; PATCH any subset; 400 for bad values and unknown fields', async () => {
    const target = await makeAccount();
    expectErrors(await byId(admin.auth, target.id, 'PUT', { username: uniqueUsername() }), 400, 'validation-error', ['email', 'role', 'is_active']);
    expectErrors(await byId(admin.auth, target.id, 'PATCH', { role: 'root', is_active: 'true', email: 'x', username: '' }), 400, 'validation-error', ['role', 'is_active', 'email', 'username']);
    expectErrors(await byId(admin.auth, target.id, 'PATCH', { is_staff: true, password: 'x', last_login: null }), 400, 'validation-error', ['is_staff', 'password', 'last_login']);
    const name = uniqueUsername('Put');
    const put = await byId(admin.auth, target.id, 'PUT', { username: name, email: addressOf(name), role: 'moderator', is_active: true });
    expect(expectJson(put, 200)).toMatchObject({ username: name, email: addressOf(name), role: 'moderator', is_staff: true, is_active: true });
  });

  it('409 for a taken username or e-mail, with existing_id for the administrator', async () => {
    const target = await makeAccount();
    const other = await makeAccount();
    const u = expectErrors(await byId(admin.auth, target.id, 'PATCH', { username: other.username }), 409, 'conflict', ['username']);
    expect(u.existing_id).toBe(other.id);
    const e = expectErrors(await byId(admin.auth, target.id, 'PATCH', { email: other.email }), 409, 'conflict', ['email']);
    expect(e.existing_id).toBe(other.id);
    expect((await storedUser(target.id))!.record.email).toBe(target.email);
  });

  it('nobody changes their own role or active state: on the own id, administrators too get 400', async () => {
    expectErrors(await byId(admin.auth, admin.id, 'PATCH', { role: 'member' }), 400, 'validation-error', ['role']);
    expectErrors(await byId(admin.auth, admin.id, 'PATCH', { is_active: false }), 400, 'validation-error', ['is_active']);
    expectErrors(await me(admin.auth, 'PATCH', { role: 'member', email: 'x@example.org' }), 400, 'validation-error', ['role', 'email']);
    expect(expectJson(await me(admin.auth), 200).role).toBe('administrator');
  });

  it('If-Match on another user: 412 before validation; the current ETag succeeds', async () => {
    const target = await makeAccount();
    const etag = (await byId(admin.auth, target.id)).headers.get('etag')!;
    expectProblem(await byId(admin.auth, target.id, 'PATCH', { role: 'nope' }, { 'if-match': '"stale"' }), 412, 'precondition-failed');
    expectProblem(await byId(admin.auth, target.id, 'DELETE', undefined, { 'if-match': '"stale"' }), 412, 'precondition-failed');
    expect((await byId(admin.auth, target.id, 'PATCH', { role: 'premium' }, { 'if-match': etag })).status).toBe(200);
  });
});

describe('GET /api/users/ (administrators)', () => {
  const tag = uniqueUsername('lst').slice(3);
  let listed: Account[];
  beforeAll(async () => {
    listed = [];
    for (const [i, spec] of [
      { role: 'member' as const, active: true },
      { role: 'premium' as const, active: true },
      { role: 'moderator' as const, active: false },
      { role: 'member' as const, active: false, activated: false },
    ].entries()) {
      listed.push(await makeAccount({ ...spec, username: `Zeta.${tag}${i}`, email: `alpha${i}.${tag}@lists.example.org` }));
      await new Promise((r) => setTimeout(r, 5));
    }
  });
  const list = (qs: string) => send(server, 'GET', `/api/users/${qs}`, { headers: admin.auth });
  const ids = (res: any) => res.body.results.map((u: any) => u.id);

  it('→ Page<User>, default -created_at, exact count without q and filters, private', async () => {
    const res = await list('?limit=100');
    const page = expectJson(res, 200);
    expect(Object.keys(page)).toEqual(['count', 'next', 'previous', 'results']);
    expect(Number.isInteger(page.count)).toBe(true);
    expect(page.count).toBeGreaterThanOrEqual(5);
    for (const u of page.results) expect(Object.keys(u)).toEqual(USER_KEYS);
    const created = page.results.map((u: any) => u.created_at);
    expect(created).toEqual([...created].sort().reverse());
    expect(res.headers.get('cache-control')).toBe('private, no-store');
  });

  it('q: every term a word prefix of the username, or the whole q a prefix of the e-mail', async () => {
    const byName = await list(`?q=${encodeURIComponent(`zeta ${tag}`)}&limit=100`);
    expect(expectJson(byName, 200).count).toBeNull();
    expect(ids(byName).sort()).toEqual(listed.map((a) => a.id).sort());
    const prefix = await list(`?q=${encodeURIComponent(`${tag}1`)}&limit=100`);
    expect(ids(prefix)).toEqual([listed[1]!.id]);
    const email = await list(`?q=${encodeURIComponent(` ALPHA2.${tag}@LISTS `)}&limit=100`);
    expect(ids(email)).toEqual([listed[2]!.id]);
    // Not a prefix of a word or of the address.
    expect(ids(await list(`?q=${encodeURIComponent(`eta.${tag}`)}&limit=100`))).toEqual([]);
    expect(ids(await list(`?q=${encodeURIComponent(`lists.example`)}&limit=100`))).toEqual([]);
  });

  it('role and is_active filters (AND), with count null', async () => {
    const q = `&q=${encodeURIComponent(tag)}&limit=100`;
    expect(ids(await list(`?role=member${q}`)).sort()).toEqual([listed[0]!.id, listed[3]!.id].sort());
    expect(ids(await list(`?is_active=false${q}`)).sort()).toEqual([listed[2]!.id, listed[3]!.id].sort());
    expect(ids(await list(`?role=member&is_active=true${q}`))).toEqual([listed[0]!.id]);
    const filtered = await list('?role=moderator&limit=100');
    expect(filtered.body.count).toBeNull();
    expect(ids(filtered)).toContain(listed[2]!.id);
  });

  it('ordering username, created_at, last_login (null last); invalid values → 400', async () => {
    const q = `&q=${encodeURIComponent(tag)}&limit=100`;
    const asc = await list(`?ordering=username${q}`);
    expect(ids(asc)).toEqual(listed.map((a) => a.id));
    expect(ids(await list(`?ordering=-username${q}`))).toEqual(listed.map((a) => a.id).reverse());
    expect(ids(await list(`?ordering=created_at${q}`))).toEqual(listed.map((a) => a.id));
    await signIn(server, listed[1]!.email, PASSWORD);
    expect(ids(await list(`?ordering=-last_login${q}`))[0]).toBe(listed[1]!.id);
    expect(ids(await list(`?ordering=last_login${q}`))[0]).toBe(listed[1]!.id);
    for (const bad of ['ordering=email', 'ordering=username,created_at', 'role=root', 'is_active=yes', 'limit=0', 'offset=10', 'q=' + 'x'.repeat(101), 'fields=password', 'bogus=1']) {
      expectProblem(await list(`?${bad}`), 400, 'invalid-query');
    }
  });

  it('pagination follows next with fields', async () => {
    const first = expectJson(await list(`?q=${encodeURIComponent(tag)}&limit=2&ordering=username&fields=username`), 200);
    expect(first.results).toEqual(listed.slice(0, 2).map((a) => ({ id: a.id, username: a.username })));
    const next = expectJson(await send(server, 'GET', first.next, { headers: admin.auth }), 200);
    expect(next.results.map((u: any) => u.id)).toEqual(listed.slice(2).map((a) => a.id));
  });
});

describe('public views: /api/users/{username}/about/ and /reviews/', () => {
  it('about → UserAbout from the profile, case-insensitive username, public cache, no fields', async () => {
    const account = await makeAccount();
    await send(server, 'PATCH', '/api/profiles/update-profile/', {
      body: { bio: 'Hello.', location: 'Osaka', website: 'http://example.org/', gender: 'other', first_name: 'Secret', birth_date: '1990-01-01', image: 'https://img.example.org/a.png' },
      headers: account.auth,
    });
    const res = await send(server, 'GET', `/api/users/${account.username.toUpperCase()}/about/`);
    const body = expectJson(res, 200);
    expect(Object.keys(body)).toEqual(['id', 'username', 'bio', 'image', 'cover', 'location', 'website', 'gender', 'joined_at', 'review_count', 'anime_list', 'manga_list']);
    expect(body).toEqual({
      id: account.id,
      username: account.username,
      bio: 'Hello.',
      image: 'https://img.example.org/a.png',
      cover: null,
      location: 'Osaka',
      website: 'http://example.org/',
      gender: 'other',
      joined_at: expect.stringMatching(TIMESTAMP),
      review_count: 0,
      anime_list: null,
      manga_list: null,
    });
    expect(res.headers.get('cache-control')).toBe('public, max-age=60');
    expect(res.headers.get('etag')).toMatch(/^"/);
    // With a token too (read with the caller's user); fields is an unknown parameter here.
    expect(expectJson(await send(server, 'GET', `/api/users/${account.username}/about/`, { headers: admin.auth }), 200)).toEqual(body);
    expectProblem(await send(server, 'GET', `/api/users/${account.username}/about/?fields=bio`), 400, 'invalid-query');
    expectProblem(await send(server, 'GET', `/api/users/${account.username}/about/`, { headers: { authorization: 'Bearer bad' } }), 401, 'invalid-token');
  });

  it('about: empty profile values when the profile was removed; 404 for unknown, inactive and impossible usernames', async () => {
    const account = await makeAccount();
    expect((await send(server, 'DELETE', `/api/profiles/${account.profileId}/`, { headers: admin.auth })).status).toBe(204);
    expect(expectJson(await send(server, 'GET', `/api/users/${account.username}/about/`), 200)).toMatchObject({ bio: '', image: null, cover: null, location: '', website: null, gender: null });
    const pending = await makeAccount({ active: false });
    const deactivated = await makeAccount({ active: false, activated: true });
    for (const name of [pending.username, deactivated.username, uniqueUsername('ghost'), 'x', 'not%20valid', 'a'.repeat(31)]) {
      expectProblem(await send(server, 'GET', `/api/users/${name}/about/`), 404, 'not-found');
      expectProblem(await send(server, 'GET', `/api/users/${name}/reviews/`), 404, 'not-found');
    }
  });

  it('reviews → an empty Page<Review> with count 0; documented parameters validated', async () => {
    const account = await makeAccount();
    const path = `/api/users/${account.username}/reviews/`;
    const res = await send(server, 'GET', `${path}?kind=anime&spoilers=false&ordering=-helpful_count&fields=rating,comment&limit=5`);
    expect(expectJson(res, 200)).toEqual({ count: 0, next: null, previous: null, results: [] });
    expect(res.headers.get('cache-control')).toBe('public, max-age=60');
    expect((await send(server, 'GET', `/api/users/${account.username.toUpperCase()}/reviews/`)).status).toBe(200);
    for (const bad of ['kind=tv', 'spoilers=1', 'ordering=score', 'fields=password', 'limit=101', 'page=2', 'x=1']) {
      expectProblem(await send(server, 'GET', `${path}?${bad}`), 400, 'invalid-query');
    }
  });
});

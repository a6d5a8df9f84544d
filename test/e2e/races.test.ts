/**
 * Concurrency (API.md §1.8 uniqueness, §1.7 If-Match, §4.1.3 helpful votes): requests that race
 * for one unique value, one revision or one vote, all sent at once. Exactly one wins; the others
 * get the contract's answer (409 with `errors` and, where the caller may see it, `existing_id`;
 * 412), and the table agrees with a recount afterwards (test/support/recount.ts).
 *
 * Covered elsewhere, not repeated: concurrent creates of one taxonomy name for each of the five
 * kinds (test/e2e/taxonomy-crud.test.ts), two refreshes of one token (test/e2e/tokens.test.ts,
 * docs/decisions.md T2), concurrent title creations and deletions and the random-pick slots
 * (test/e2e/random.test.ts), and many list edits and votes at once, 100 on one title
 * (test/e2e/counters-concurrency.test.ts).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { addressOf, makeAccount, PASSWORD, uniqueUsername, type Account } from '../support/accounts.js';
import { expectErrors, expectJson, expectProblem, send, uniqueName, type Sent } from '../support/contract.js';
import { expectRecount } from '../support/recount.js';
import { emailsTo, useServer, waitForEmail } from '../support/server.js';
import { scanAll } from '../support/tables.js';

const server = useServer();
type Auth = Record<string, string>;
const N = 5;
const COMMENT = 'A long enough comment about this title.';
let editor: Auth;
let admin: Account;
beforeAll(async () => {
  editor = (await server.user('contributor')).auth;
  admin = await makeAccount({ role: 'administrator' });
});

/** `n` copies of a request, sent at once. */
const race = (n: number, request: (i: number) => Promise<Sent>) => Promise.all(Array.from({ length: n }, (_, i) => request(i)));
const winners = (all: Sent[], status: number) => {
  const won = all.filter((r) => r.status === status);
  expect(won, all.map((r) => `${r.status} ${r.text.slice(0, 200)}`).join('\n')).toHaveLength(1);
  return won[0]!;
};
const post = async (path: string, body: unknown, auth = editor) => expectJson(await send(server, 'POST', path, { body, headers: auth }), 201);

describe('uniqueness races: one wins, the others get 409 with the contract body', () => {
  it.each(['animes', 'mangas'])('the name of %s', async (segment) => {
    const name = uniqueName('Race');
    const all = await race(N, (i) => send(server, 'POST', `/api/${segment}/`, { body: { name: i % 2 ? name.toUpperCase() : name }, headers: editor }));
    const won = winners(all, 201);
    for (const r of all.filter((x) => x !== won)) expect(expectErrors(r, 409, 'conflict', ['name']).existing_id).toBe(won.body.id);
    // Renames racing for one new name.
    const [a, b] = [await post(`/api/${segment}/`, { name: uniqueName('Left') }), await post(`/api/${segment}/`, { name: uniqueName('Right') })];
    const target = uniqueName('Both');
    const renames = await Promise.all([a, b].map((t) => send(server, 'PATCH', `/api/${segment}/${t.id}/`, { body: { name: target }, headers: editor })));
    const renamed = winners(renames, 200);
    expect(expectErrors(renames.find((r) => r !== renamed)!, 409, 'conflict', ['name']).existing_id).toBe(renamed.body.id);
  });

  it('usernames: registrations and renames racing for one username', async () => {
    const username = uniqueUsername('race');
    const all = await race(N, (i) => send(server, 'POST', '/api/users/', { body: { email: addressOf(uniqueUsername('r')), username: i % 2 ? username.toUpperCase() : username, password: PASSWORD, re_password: PASSWORD } }));
    const won = winners(all, 201);
    for (const r of all.filter((x) => x !== won)) expect(expectErrors(r, 409, 'conflict', ['username']).existing_id).toBeUndefined();
    const movers = await Promise.all([makeAccount(), makeAccount()]);
    const wanted = uniqueUsername('moved');
    const renames = await Promise.all(movers.map((m) => send(server, 'PATCH', '/api/users/me/', { body: { username: wanted }, headers: m.auth })));
    winners(renames, 200);
    expectErrors(renames.find((r) => r.status !== 200)!, 409, 'conflict', ['username']);
  });

  it('e-mails: registrations with one address make one account (the others answer as a success, §4.21.1); administrators racing to give two accounts one address', async () => {
    const email = addressOf(uniqueUsername('same'));
    const all = await race(N, () => send(server, 'POST', '/api/users/', { body: { email, username: uniqueUsername('r'), password: PASSWORD, re_password: PASSWORD } }));
    expect(all.map((r) => r.status)).toEqual(Array(N).fill(201));
    const accounts = [...(await scanAll(process.env.TABLE_NAME!)).values()].filter((i) => /^USER#[^#]+$/.test(String(i.pk)) && i.sk === 'R' && (i.rec as { email: string }).email === email);
    expect(accounts).toHaveLength(1);
    expect(all.map((r) => r.body.id)).toContain((accounts[0]!.rec as { id: string }).id);
    // One activation e-mail (the account's); the others got E2.
    await waitForEmail(email, { subject: 'You already have an account', timeoutMs: 30_000 });
    await waitForEmail(email, { subject: 'Activate your account', timeoutMs: 30_000 });
    expect(await emailsTo(email, { subject: 'Activate your account' })).toHaveLength(1);
    const targets = await Promise.all([makeAccount(), makeAccount()]);
    const address = addressOf(uniqueUsername('taken'));
    const changes = await Promise.all(targets.map((t) => send(server, 'PATCH', `/api/users/${t.id}/`, { body: { email: address }, headers: admin.auth })));
    const changed = winners(changes, 200);
    expect(expectErrors(changes.find((r) => r !== changed)!, 409, 'conflict', ['email']).existing_id).toBe(changed.body.id);
  });

  it('one profile per user: administrators creating it at once, and the owner\'s first my-profile reads at once', async () => {
    const user = await server.user('member');
    const all = await race(N, () => send(server, 'POST', '/api/profiles/', { body: { user_id: user.id, first_name: 'Ann' }, headers: admin.auth }));
    const won = winners(all, 201);
    for (const r of all.filter((x) => x !== won)) expect(expectErrors(r, 409, 'conflict', ['user_id']).existing_id).toBe(won.body.id);
    const other = await server.user('member');
    const reads = await race(N, () => send(server, 'GET', '/api/profiles/my-profile/', { headers: other.auth }));
    expect(reads.map((r) => r.status)).toEqual(Array(N).fill(200));
    expect(new Set(reads.map((r) => r.body.id)).size).toBe(1);
  });

  it('one list per user (its first use), one item per title per user, one review per user per title', async () => {
    const anime = await post('/api/animes/', { name: uniqueName('Listed') });
    const manga = await post('/api/mangas/', { name: uniqueName('Read') });
    const me = await server.user('member');
    const lists = await race(N, () => send(server, 'GET', '/api/playlists/animelist/', { headers: me.auth }));
    expect(lists.map((r) => r.status)).toEqual(Array(N).fill(200));
    expect(new Set(lists.map((r) => r.body.id)).size).toBe(1);
    for (const [path, field, id] of [['/api/playlists/animelist/animes/', 'anime_id', anime.id], ['/api/playlists/mangalist/mangas/', 'manga_id', manga.id]] as const) {
      const all = await race(N, (i) => send(server, 'POST', path, { body: { [field]: id, status: 'completed', score: 1 + i }, headers: me.auth }));
      const won = winners(all, 201);
      for (const r of all.filter((x) => x !== won)) expect(expectErrors(r, 409, 'conflict', [field]).existing_id).toBe(won.body.id);
    }
    for (const [segment, id] of [['animes', anime.id], ['mangas', manga.id]] as const) {
      const all = await race(N, (i) => send(server, 'POST', `/api/${segment}/${id}/reviews/create/`, { body: { rating: 1 + i, comment: COMMENT }, headers: me.auth }));
      const won = winners(all, 201);
      for (const r of all.filter((x) => x !== won)) expect(expectErrors(r, 409, 'conflict', ['non_field_errors']).existing_id).toBe(won.body.id);
    }
    const list = expectJson(await send(server, 'GET', '/api/playlists/animelist/', { headers: me.auth }), 200);
    expect(list.counts.total).toBe(1);
    expect(expectJson(await send(server, 'GET', `/api/animes/${anime.id}/`), 200).members).toBe(1);
  });
});

describe('If-Match races: two writes with one ETag → one 200, one 412', () => {
  /** Two PATCHes of `path` with the same tag and different bodies, at once. */
  async function twoWithOneTag(path: string, etag: string, bodies: [unknown, unknown], auth: Auth): Promise<Sent> {
    expect(etag).toBeTruthy();
    const both = await Promise.all(bodies.map((body) => send(server, 'PATCH', path, { body, headers: { ...auth, 'if-match': etag } })));
    const won = winners(both, 200);
    expectProblem(both.find((r) => r !== won)!, 412, 'precondition-failed');
    return won;
  }
  const etagOf = async (path: string, auth: Auth = {}) => (await send(server, 'GET', path, { headers: auth })).headers.get('etag')!;

  it('a genre, an anime, a character, a person', async () => {
    for (const [segment, body] of [['genres', {}], ['animes', {}], ['characters', {}], ['persons', {}]] as const) {
      const record = await post(`/api/${segment}/`, { name: uniqueName('Tagged'), ...body });
      const path = `/api/${segment}/${record.id}/`;
      const won = await twoWithOneTag(path, await etagOf(path), [{ name: uniqueName('First') }, { name: uniqueName('Second') }], editor);
      expect(expectJson(await send(server, 'GET', path), 200).name).toBe(won.body.name);
    }
  });

  it('a list item, a review (its author\'s edit), the caller\'s account and profile, a profile by an administrator', async () => {
    const me = await makeAccount();
    const anime = await post('/api/animes/', { name: uniqueName('Tagged') });
    const item = await post('/api/playlists/animelist/animes/', { anime_id: anime.id, status: 'watching' }, me.auth);
    const itemPath = `/api/playlists/animelist/animes/${item.id}/`;
    await twoWithOneTag(itemPath, await etagOf(itemPath, me.auth), [{ score: 3 }, { score: 9 }], me.auth);
    const created = await send(server, 'POST', `/api/animes/${anime.id}/reviews/create/`, { body: { rating: 5, comment: COMMENT }, headers: me.auth });
    expect(created.status, created.text).toBe(201);
    await twoWithOneTag(`/api/animes/${anime.id}/reviews/${created.body.id}/`, created.headers.get('etag')!, [{ rating: 2 }, { rating: 8 }], me.auth);
    await twoWithOneTag('/api/users/me/', await etagOf('/api/users/me/', me.auth), [{ username: uniqueUsername('one') }, { username: uniqueUsername('two') }], me.auth);
    await twoWithOneTag('/api/profiles/update-profile/', await etagOf('/api/profiles/my-profile/', me.auth), [{ first_name: 'One' }, { first_name: 'Two' }], me.auth);
    const profilePath = `/api/profiles/${me.profileId}/`;
    await twoWithOneTag(profilePath, await etagOf(profilePath, admin.auth), [{ last_name: 'One' }, { last_name: 'Two' }], admin.auth);
  });
});

describe('helpful votes at once', () => {
  it('by one user (the same vote twice, and yes and no together) and by several users: helpful_count counts each voter once', async () => {
    const anime = await post('/api/animes/', { name: uniqueName('Voted') });
    const author = await server.user('member');
    const review = await post(`/api/animes/${anime.id}/reviews/create/`, { rating: 7, comment: COMMENT }, author.auth);
    const path = `/api/animes/${anime.id}/reviews/${review.id}/`;
    const vote = (auth: Auth, helpful: boolean) => send(server, 'PATCH', path, { body: { helpful }, headers: auth });
    const count = async () => expectJson(await send(server, 'GET', `/api/animes/${anime.id}/reviews/`), 200).results[0].helpful_count as number;
    const [one, two, three] = await Promise.all([server.user('member'), server.user('member'), server.user('member')]);

    // One user, the same vote twice at once: both 200, counted once.
    expect((await Promise.all([vote(one!.auth, true), vote(one!.auth, true)])).map((r) => r.status)).toEqual([200, 200]);
    expect(await count()).toBe(1);
    // Several users at once: each counted.
    expect((await Promise.all([vote(two!.auth, true), vote(three!.auth, true), vote(one!.auth, true)])).map((r) => r.status)).toEqual([200, 200, 200]);
    expect(await count()).toBe(3);
    // One user, yes and no at once: whichever came last stands, and the count agrees with it.
    const both = await Promise.all([vote(two!.auth, false), vote(two!.auth, true)]);
    expect(both.map((r) => r.status)).toEqual([200, 200]);
    const n = await count();
    expect([2, 3]).toContain(n);
    expect(both.some((r) => r.body.helpful_count === n)).toBe(true);
  });

  it('the table agrees with a recount after every race of this file', async () => {
    await expectRecount(server.background!.streams);
  });
});

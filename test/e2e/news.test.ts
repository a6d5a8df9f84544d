/**
 * News (API.md §3.8, §4.8, and the `news/` sub-resource of §4.1.2): the write shape and its
 * rules, the author taken from the caller at creation and never changed, the detail and the list
 * items without `content`, PUT/PATCH/DELETE with If-Match, who may write (moderators), the
 * list's search, filters, orderings and count, and `GET /api/animes/{id}/news/`.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../shared/auth/roles.js';
import { expectErrors, expectJson, expectedOrder, expectProblem, ID, send, TIMESTAMP, uniqueName, walk } from '../support/contract.js';
import { useServer } from '../support/server.js';

const server = useServer();
const DETAIL_KEYS = ['id', 'name', 'description', 'content', 'image', 'source', 'tag', 'author', 'animes', 'mangas', 'created_at', 'updated_at'];
const ITEM_KEYS = DETAIL_KEYS.filter((k) => k !== 'content');
const TAGS = ['pending', 'new_anime', 'new_manga', 'spoiler', 'review', 'interview', 'event', 'recommendation'];
const UNKNOWN = 'AAAAAAAAAAAAAAAAAAAAAA';

type User = { id: string; username: string; auth: Record<string, string> };
let users: Record<Role, User>;
let mod: User;
beforeAll(async () => {
  const roles: Role[] = ['member', 'premium', 'contributor', 'moderator', 'administrator'];
  users = Object.fromEntries(await Promise.all(roles.map(async (r) => [r, await server.user(r)] as const))) as unknown as Record<Role, User>;
  mod = users.moderator;
});

const post = (body: unknown, who: User = mod) => send(server, 'POST', '/api/news/', { body, headers: who.auth });
const valid = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({ name: uniqueName('Headline'), content: 'The article.', ...extra });
const make = async (extra: Record<string, unknown> = {}, who: User = mod) => expectJson(await post(valid(extra), who), 201);
const item = (id: string) => `/api/news/${id}/`;
const write = (method: string, id: string, body?: unknown, headers: Record<string, string> = {}, who: User = mod) =>
  send(server, method, item(id), { body, headers: { ...who.auth, ...headers } });
const stored = async (field: string, value: unknown) => expectJson(await post(valid({ [field]: value })), 201)[field];
const rejected = async (field: string, value: unknown, key = field) => expectErrors(await post(valid({ [field]: value })), 400, 'validation-error', [key]);
const anime = async (name = uniqueName('Anime')) => expectJson(await send(server, 'POST', '/api/animes/', { body: { name }, headers: users.contributor.auth }), 201);
const authorOf = (u: User) => ({ id: u.id, username: u.username });

describe('write shape', () => {
  it('POST {name, content}: 201 with the detail, Location and ETag; defaults; the caller is the author; GET answers the same', async () => {
    const body = valid();
    const res = await post(body);
    const n = expectJson(res, 201);
    expect(Object.keys(n)).toEqual(DETAIL_KEYS);
    expect(n).toEqual({
      id: n.id,
      name: body.name,
      description: '',
      content: 'The article.',
      image: null,
      source: null,
      tag: 'pending',
      author: authorOf(mod),
      animes: [],
      mangas: [],
      created_at: n.created_at,
      updated_at: n.created_at,
    });
    expect(n.id).toMatch(ID);
    expect(n.created_at).toMatch(TIMESTAMP);
    expect(res.headers.get('location')).toBe(`${server.url}${item(n.id)}`);
    const got = await send(server, 'GET', item(n.id));
    expect(expectJson(got, 200)).toEqual(n);
    expect(got.headers.get('etag')).toBe(res.headers.get('etag'));
    expect(got.headers.get('cache-control')).toBe('public, max-age=60');
  });

  it('every field set; animes in written order with their names', async () => {
    const [a, b] = [await anime(), await anime()];
    const body = valid({
      description: 'Short.\nTwo lines.',
      content: 'Long\r\n\tcontent.',
      image: 'https://img.example.org/n.png',
      source: 'http://news.example.org/a',
      tag: 'new_anime',
      anime_ids: [b.id, a.id],
      manga_ids: [],
    });
    const n = await make(body);
    const { anime_ids: _a, manga_ids: _m, ...fields } = body;
    expect(n).toMatchObject({ ...fields, animes: [{ id: b.id, name: b.name }, { id: a.id, name: a.name }], mangas: [] });
  });

  it('name: required, 1–200 code points, trimmed and NFC, not unique', async () => {
    expectErrors(await post({ content: 'x' }), 400, 'validation-error', ['name']);
    for (const name of [null, '', '   ', 5, ['a'], 'a\nb', 'x'.repeat(201)]) await rejected('name', name);
    expect(await stored('name', '  Big news  ')).toBe('Big news');
    expect(await stored('name', 'Cafe\u0301')).toBe('Café');
    expect(await stored('name', '\u{20BB7}'.repeat(200))).toBe('\u{20BB7}'.repeat(200));
    const a = await make({ name: 'Same headline' });
    const b = await make({ name: 'same headline' });
    expect(a.id).not.toBe(b.id);
  });

  it('description: text ≤ 500 code points, stored as sent; null means ""', async () => {
    expect(await stored('description', ' Two\r\nlines\t ')).toBe(' Two\r\nlines\t ');
    expect(await stored('description', 'é'.repeat(500))).toBe('é'.repeat(500));
    expect(await stored('description', null)).toBe('');
    for (const v of ['a'.repeat(501), 'bell\u0007', 3, []]) await rejected('description', v);
  });

  it('content: required text of 1–50,000 code points, stored as sent', async () => {
    expectErrors(await post({ name: 'No content' }), 400, 'validation-error', ['content']);
    expect(await stored('content', '\u{20BB7}'.repeat(50_000))).toBe('\u{20BB7}'.repeat(50_000));
    expect(await stored('content', ' Para one.\n\nPara two.\t')).toBe(' Para one.\n\nPara two.\t');
    for (const v of [null, '', '  \n ', 'a'.repeat(50_001), 'bell\u0007', 7, ['x']]) await rejected('content', v);
  });

  it('image: an https URL or null; source: an http(s) URL or null', async () => {
    expect(await stored('image', 'https://img.example.org/a.png')).toBe('https://img.example.org/a.png');
    expect(await stored('image', null)).toBeNull();
    for (const v of ['http://img.example.org/a.png', '/a.png', 'https://user:pw@example.org/a.png', 'https://exa mple.org/', '', 7]) await rejected('image', v);
    expect(await stored('source', 'http://news.example.org/x')).toBe('http://news.example.org/x');
    expect(await stored('source', 'https://news.example.org/x')).toBe('https://news.example.org/x');
    expect(await stored('source', null)).toBeNull();
    for (const v of ['ftp://news.example.org/x', 'news.example.org', 'https://u:p@news.example.org/', '', false]) await rejected('source', v);
  });

  it('tag: a NewsTag, default pending', async () => {
    for (const tag of TAGS) expect(await stored('tag', tag)).toBe(tag);
    for (const v of ['Pending', 'news', '', null, 1]) await rejected('tag', v);
  });

  it('anime_ids: ≤ 50 distinct ids of existing animes; errors at each id', async () => {
    const a = await anime();
    await rejected('anime_ids', [a.id, a.id], 'anime_ids.1');
    await rejected('anime_ids', [a.id, UNKNOWN], 'anime_ids.1');
    await rejected('anime_ids', ['bad id!'], 'anime_ids.0');
    await rejected('anime_ids', [5], 'anime_ids.0');
    for (const v of [null, a.id, {}]) await rejected('anime_ids', v);
    // 50 ids are allowed by count (each unknown one is an error at its index), 51 are not.
    const fifty = Array.from({ length: 50 }, (_, i) => `unknown${i}`);
    const res = await post(valid({ anime_ids: fifty }));
    expectErrors(res, 400, 'validation-error', fifty.map((_, i) => `anime_ids.${i}`));
    await rejected('anime_ids', [...fifty, 'unknown50']);
    // An id of another kind is not an anime.
    const other = await make();
    await rejected('anime_ids', [other.id], 'anime_ids.0');
  });

  it('manga_ids: ≤ 50 distinct ids of existing mangas', async () => {
    const a = await anime();
    await rejected('manga_ids', [UNKNOWN], 'manga_ids.0');
    await rejected('manga_ids', [a.id], 'manga_ids.0');
    await rejected('manga_ids', [UNKNOWN, UNKNOWN], 'manga_ids.1');
    await rejected('manga_ids', Array.from({ length: 51 }, (_, i) => `unknown${i}`));
    await rejected('manga_ids', null);
  });

  it('unknown and read-only fields → 400 (author included); every field error is reported together', async () => {
    for (const [field, value] of [['id', 'x'], ['author', authorOf(users.administrator)], ['author', null], ['animes', []], ['mangas', []], ['created_at', 'x'], ['bogus', 1]] as const) {
      await rejected(field, value);
    }
    const res = await post({ name: '', description: 1, image: 'http://x.org/', source: 'x', tag: 'nope', anime_ids: ['a', 'a'], author: null });
    expectErrors(res, 400, 'validation-error', ['name', 'content', 'description', 'image', 'source', 'tag', 'anime_ids.1', 'author']);
    // References are checked on a body whose shape is valid: every wrong one at once.
    const a = await anime();
    expectErrors(await post(valid({ anime_ids: [a.id, UNKNOWN], manga_ids: [UNKNOWN] })), 400, 'validation-error', ['anime_ids.1', 'manga_ids.0']);
  });
});

describe('one article: PUT, PATCH, DELETE; the author never changes', () => {
  const full = async () => valid({ description: 'Desc.', image: 'https://img.example.org/e.png', source: 'https://src.example.org/', tag: 'event', anime_ids: [(await anime()).id] });

  it('PUT replaces every writable field: omitted ones take their defaults; PUT needs name and content', async () => {
    const n = await make(await full());
    const res = await write('PUT', n.id, { name: 'Replaced', content: 'New content.' });
    const put = expectJson(res, 200);
    expect(put).toEqual({ ...n, name: 'Replaced', content: 'New content.', description: '', image: null, source: null, tag: 'pending', animes: [], updated_at: put.updated_at });
    expect(put.updated_at > n.updated_at).toBe(true);
    expect(res.headers.get('etag')).toBe((await send(server, 'GET', item(n.id))).headers.get('etag'));
    expectErrors(await write('PUT', n.id, { description: 'x' }), 400, 'validation-error', ['name', 'content']);
  });

  it('PATCH changes only the fields sent; arrays are replaced; PATCH {} changes nothing', async () => {
    const n = await make(await full());
    const b = await anime();
    const patched = expectJson(await write('PATCH', n.id, { anime_ids: [b.id, n.animes[0].id], image: null }), 200);
    expect(patched).toEqual({ ...n, animes: [{ id: b.id, name: b.name }, n.animes[0]], image: null, updated_at: patched.updated_at });
    expect(expectJson(await write('PATCH', n.id, {}), 200)).toEqual(patched);
    expect(expectJson(await write('PATCH', n.id, { name: n.name, content: n.content }), 200)).toEqual(patched);
    expect(expectJson(await send(server, 'GET', item(n.id)), 200)).toEqual(patched);
    expectErrors(await write('PATCH', n.id, { content: null, anime_ids: [b.id, b.id] }), 400, 'validation-error', ['content', 'anime_ids.1']);
  });

  it('the author is the creator: another moderator’s PUT and PATCH keep it; a body with author → 400 and nothing changes', async () => {
    const n = await make({}, mod);
    const admin = users.administrator;
    const put = expectJson(await write('PUT', n.id, { name: 'By admin', content: 'Rewritten.' }, {}, admin), 200);
    expect(put.author).toEqual(authorOf(mod));
    const patched = expectJson(await write('PATCH', n.id, { tag: 'review' }, {}, admin), 200);
    expect(patched.author).toEqual(authorOf(mod));
    for (const method of ['PUT', 'PATCH']) {
      for (const author of [authorOf(admin), null]) {
        expectErrors(await write(method, n.id, { name: 'X', content: 'Y', author }, {}, admin), 400, 'validation-error', ['author']);
      }
    }
    expect(expectJson(await send(server, 'GET', item(n.id)), 200)).toEqual(patched);
    // An article created by an administrator has the administrator as author.
    expect((await make({}, admin)).author).toEqual(authorOf(admin));
  });

  it('If-Match: the current ETag or * succeeds, anything else → 412 and nothing changes', async () => {
    const n = await make();
    const etag = (await send(server, 'GET', item(n.id))).headers.get('etag')!;
    for (const [method, body] of [['PUT', { name: 'X', content: 'Y' }], ['PATCH', { tag: 'event' }], ['DELETE', undefined]] as const) {
      for (const tag of ['"nope"', `W/${etag}`]) expectProblem(await write(method, n.id, body, { 'if-match': tag }), 412, 'precondition-failed');
    }
    expect(expectJson(await send(server, 'GET', item(n.id)), 200)).toEqual(n);
    const res = await write('PATCH', n.id, { tag: 'event' }, { 'if-match': `"other", ${etag}` });
    expectJson(res, 200);
    expectProblem(await write('PATCH', n.id, { tag: 'review' }, { 'if-match': etag }), 412, 'precondition-failed');
    expectJson(await write('PATCH', n.id, { tag: 'review' }, { 'if-match': res.headers.get('etag')! }), 200);
    expectProblem(await write('PATCH', n.id, { name: '' }, { 'if-match': '"nope"' }), 412, 'precondition-failed');
    expect((await write('DELETE', n.id, undefined, { 'if-match': '*' })).status).toBe(204);
  });

  it('DELETE: 204, then 404 everywhere, gone from the lists and the count; a second DELETE → 404', async () => {
    const a = await anime();
    const n = await make({ anime_ids: [a.id] });
    const before = expectJson(await send(server, 'GET', '/api/news/?limit=1'), 200).count;
    expect(expectJson(await send(server, 'GET', `/api/animes/${a.id}/news/`), 200).count).toBe(1);
    expect((await write('DELETE', n.id)).status).toBe(204);
    expectProblem(await send(server, 'GET', item(n.id)), 404, 'not-found');
    for (const [method, body] of [['PUT', { name: 'X', content: 'Y' }], ['PATCH', {}], ['DELETE', undefined]] as const) {
      expectProblem(await write(method, n.id, body), 404, 'not-found');
    }
    expect(expectJson(await send(server, 'GET', '/api/news/?limit=1'), 200).count).toBe(before - 1);
    expect((await walk(server, '/api/news/?limit=100')).results.some((r) => r.id === n.id)).toBe(false);
    expect(expectJson(await send(server, 'GET', `/api/animes/${a.id}/news/`), 200)).toMatchObject({ count: 0, results: [] });
    expect((await walk(server, `/api/news/?anime=${a.id}`)).results).toEqual([]);
  });

  it('404 for ids that name no article, whatever their form, before the body is validated', async () => {
    const other = await anime();
    for (const id of [UNKNOWN, other.id, 'x'.repeat(65), 'a.b']) {
      expectProblem(await send(server, 'GET', item(id)), 404, 'not-found');
      expectProblem(await write('PUT', id, { name: '' }), 404, 'not-found');
      expectProblem(await write('PATCH', id, { bogus: 1 }), 404, 'not-found');
      expectProblem(await write('DELETE', id), 404, 'not-found');
    }
  });

  it('fields: detail keys (content included) on the detail, list item keys on the list', async () => {
    const n = await make({ content: 'Only here.' });
    expect(expectJson(await send(server, 'GET', `${item(n.id)}?fields=content,author`), 200)).toEqual({ id: n.id, content: 'Only here.', author: authorOf(mod) });
    const page = expectJson(await send(server, 'GET', '/api/news/?fields=name,author&limit=1'), 200);
    expect(Object.keys(page.results[0])).toEqual(['id', 'name', 'author']);
    expectErrors(await send(server, 'GET', '/api/news/?fields=content'), 400, 'invalid-query', ['fields']);
  });
});

describe('who may write: moderators and administrators', () => {
  const denied: ['anonymous' | Role, number, 'authentication-required' | 'forbidden'][] = [
    ['anonymous', 401, 'authentication-required'],
    ['member', 403, 'forbidden'],
    ['premium', 403, 'forbidden'],
    ['contributor', 403, 'forbidden'],
  ];

  it.each(denied)('%s: every write is refused and changes nothing', async (who, status, type) => {
    const headers = who === 'anonymous' ? {} : users[who].auth;
    const n = await make({ description: 'Kept.' });
    const before = await send(server, 'GET', item(n.id));
    const count = expectJson(await send(server, 'GET', '/api/news/?limit=1'), 200).count;
    expectProblem(await send(server, 'POST', '/api/news/', { body: valid(), headers }), status, type);
    // The role is refused before the path id and the body are looked at.
    expectProblem(await send(server, 'POST', '/api/news/', { body: { bogus: 1 }, headers }), status, type);
    expectProblem(await send(server, 'PUT', item(n.id), { body: { name: 'X', content: 'Y' }, headers }), status, type);
    expectProblem(await send(server, 'PATCH', item(n.id), { body: { tag: 'event' }, headers }), status, type);
    expectProblem(await send(server, 'DELETE', item(n.id), { headers }), status, type);
    expectProblem(await send(server, 'DELETE', item(UNKNOWN), { headers }), status, type);
    const after = await send(server, 'GET', item(n.id));
    expect(after.body).toEqual(before.body);
    expect(after.headers.get('etag')).toBe(before.headers.get('etag'));
    expect(expectJson(await send(server, 'GET', '/api/news/?limit=1'), 200).count).toBe(count);
  });

  it.each(['moderator', 'administrator'] as const)('%s may create, replace, patch and delete', async (role) => {
    const u = users[role];
    const n = expectJson(await post(valid(), u), 201);
    expect(n.author).toEqual(authorOf(u));
    expectJson(await write('PUT', n.id, { name: 'Put', content: 'Put.' }, {}, u), 200);
    expectJson(await write('PATCH', n.id, { tag: 'event' }, {}, u), 200);
    expect((await write('DELETE', n.id, undefined, {}, u)).status).toBe(204);
  });

  it('reads are public, signed in or not', async () => {
    const n = await make();
    for (const headers of [{}, users.member.auth]) {
      expect(expectJson(await send(server, 'GET', item(n.id), { headers }), 200)).toEqual(n);
      expectJson(await send(server, 'GET', '/api/news/', { headers }), 200);
    }
  });
});

describe('list: search, filters, orderings, count', () => {
  const word = `zq${Math.random().toString(36).slice(2, 8)}`;
  let a1: any;
  let a2: any;
  let made: any[];
  let others: number;
  beforeAll(async () => {
    [a1, a2] = [await anime(), await anime()];
    others = expectJson(await send(server, 'GET', '/api/news/?limit=1'), 200).count;
    const data = [
      { name: `${word} Season two announced`, description: 'Studio confirms.', tag: 'new_anime', anime_ids: [a1.id] },
      { name: `${word} Interview with the director`, description: 'Éclair talks.', tag: 'interview', anime_ids: [a1.id, a2.id] },
      { name: `${word} Convention report`, description: '', tag: 'event', anime_ids: [] },
      { name: `${word} ámbar spoilers`, description: 'Episode 12 reviewed.', tag: 'spoiler', anime_ids: [a2.id], content: 'hiddenword in content' },
      { name: `${word} Another season`, description: 'Second cour.', tag: 'new_anime', anime_ids: [a2.id, a1.id] },
    ];
    made = [];
    for (const d of data) made.push(await make(d));
  });
  const ours = (results: any[]) => results.filter((r) => made.some((m) => m.id === r.id));
  const ids = (results: any[]) => ours(results).map((r) => r.id);
  const query = async (qs: string) => (await walk(server, `/api/news/?limit=100&${qs}`)).results;
  const idsOf = (...i: number[]) => i.map((k) => made[k].id);

  it('list items: the detail without content; count exact without q and filters, null with them', async () => {
    const first = await walk(server, '/api/news/?limit=100');
    for (const r of first.results) expect(Object.keys(r)).toEqual(ITEM_KEYS);
    const { content: _c, ...one } = made[1];
    expect(ours(first.results).find((r) => r.id === one.id)).toEqual(one);
    expect(first.pages[0]!.body.count).toBe(others + made.length);
    expect(first.results).toHaveLength(others + made.length);
    expect(expectJson(await send(server, 'GET', '/api/news/?q=!!'), 200).count).toBe(others + made.length);
    for (const qs of [`q=${word}`, 'tag=event', `anime=${a1.id}`]) expect(expectJson(await send(server, 'GET', `/api/news/?${qs}`), 200).count).toBeNull();
  });

  it('q over name and description (word prefixes, accents and case ignored), not content', async () => {
    expect(ids(await query(`q=${word}`))).toHaveLength(made.length);
    expect(new Set(ids(await query(`q=${word}+SEASON`)))).toEqual(new Set(idsOf(0, 4)));
    expect(ids(await query('q=eclair'))).toEqual(idsOf(1));
    expect(ids(await query('q=AMBAR'))).toEqual(idsOf(3));
    expect(ids(await query('q=cour'))).toEqual(idsOf(4));
    expect(ids(await query('q=hiddenword'))).toEqual([]);
    expect(ids(await query('q=eason'))).toEqual([]);
  });

  it('tag, anime filters (AND); unknown anime or manga ids → 400; bad tag → 400', async () => {
    expect(new Set(ids(await query('tag=new_anime')))).toEqual(new Set(idsOf(0, 4)));
    expect(new Set(ids(await query(`anime=${a1.id}`)))).toEqual(new Set(idsOf(0, 1, 4)));
    expect(new Set(ids(await query(`anime=${a2.id}&tag=new_anime`)))).toEqual(new Set(idsOf(4)));
    expect(ids(await query(`anime=${a2.id}&tag=event`))).toEqual([]);
    expect(new Set(ids(await query(`anime=${a1.id}&q=interview`)))).toEqual(new Set(idsOf(1)));
    const article = made[0];
    for (const qs of [`anime=${UNKNOWN}`, `manga=${UNKNOWN}`, `manga=${a1.id}`, `anime=${article.id}`, 'anime=bad!id', 'tag=nope', 'tag=', 'author=x', 'media_type=tv']) {
      expectErrors(await send(server, 'GET', `/api/news/?${qs}`), 400, 'invalid-query', [qs.split('=')[0]!]);
    }
  });

  it.each(['created_at', '-created_at', 'name', '-name'])('ordering=%s: by the key, then by id', async (ordering) => {
    const key = ordering.replace(/^-/, '');
    const all = (await walk(server, `/api/news/?limit=2&ordering=${ordering}`)).results;
    expect(all).toEqual(expectedOrder(all, key, ordering.startsWith('-')));
    const filtered = (await walk(server, `/api/news/?limit=2&ordering=${ordering}&anime=${a1.id}`)).results;
    expect(filtered.map((r) => r.id)).toEqual(expectedOrder(filtered, key, ordering.startsWith('-')).map((r) => r.id));
    expect(filtered).toHaveLength(3);
  });

  it('the default ordering is -created_at', async () => {
    const all = (await walk(server, '/api/news/?limit=100')).results;
    expect(all).toEqual(expectedOrder(all, 'created_at', true));
    expect(ids(all)).toEqual([...idsOf(0, 1, 2, 3, 4)].reverse());
  });

  it.each(['updated_at', 'score', 'name,created_at', '--name', ''])('ordering=%j → 400', async (ordering) => {
    expectErrors(await send(server, 'GET', `/api/news/?ordering=${encodeURIComponent(ordering)}`), 400, 'invalid-query', ['ordering']);
  });
});

describe('GET /api/animes/{id}/news/', () => {
  let a: any;
  let made: any[];
  beforeAll(async () => {
    a = await anime();
    const other = await anime();
    made = [];
    for (const [name, tag] of [['Bravo', 'review'], ['alpha', 'event'], ['Charlie', 'review'], ['Delta', 'spoiler']] as const) {
      made.push(await make({ name, tag, anime_ids: [other.id, a.id], description: `${name} article` }));
    }
    await make({ name: 'Not linked', anime_ids: [other.id] });
  });
  const path = (qs = '') => `/api/animes/${a.id}/news/${qs}`;

  it('the articles whose animes include the anime, as list items; count exact; default -created_at', async () => {
    const res = await send(server, 'GET', path());
    const page = expectJson(res, 200);
    expect(page.count).toBe(4);
    expect(page.previous).toBeNull();
    expect(page.next).toBeNull();
    expect(page.results.map((r: any) => r.id)).toEqual(made.map((m) => m.id).reverse());
    for (const r of page.results) expect(Object.keys(r)).toEqual(ITEM_KEYS);
    const { content: _c, ...first } = made[3];
    expect(page.results[0]).toEqual(first);
    expect(res.headers.get('cache-control')).toBe('public, max-age=60');
  });

  it('tag filter: exact count; pages of limit=1 give every article once, in order, and back', async () => {
    const { results, pages } = await walk(server, path('?tag=review&limit=1'));
    expect(results.map((r) => r.id)).toEqual([made[2].id, made[0].id]);
    for (const p of pages) expect(p.body.count).toBe(2);
    const back = expectJson(await send(server, 'GET', pages[1]!.body.previous), 200);
    expect(back.results.map((r: any) => r.id)).toEqual([made[2].id]);
    expect(expectJson(await send(server, 'GET', path('?tag=interview')), 200)).toMatchObject({ count: 0, results: [] });
  });

  it.each(['created_at', '-created_at', 'name', '-name'])('ordering=%s', async (ordering) => {
    const { results } = await walk(server, path(`?ordering=${ordering}&limit=3`));
    expect(results).toHaveLength(4);
    expect(results).toEqual(expectedOrder(results, ordering.replace(/^-/, ''), ordering.startsWith('-')));
    if (ordering === 'name') expect(results.map((r) => r.name)).toEqual(['alpha', 'Bravo', 'Charlie', 'Delta']);
  });

  it('an article leaves the list when PUT or PATCH removes the anime, and comes back when linked again', async () => {
    const n = await make({ anime_ids: [a.id] });
    expect(expectJson(await send(server, 'GET', path()), 200).count).toBe(5);
    expectJson(await write('PUT', n.id, { name: n.name, content: n.content }), 200);
    const after = expectJson(await send(server, 'GET', path()), 200);
    expect(after.count).toBe(4);
    expect(after.results.some((r: any) => r.id === n.id)).toBe(false);
    expectJson(await write('PATCH', n.id, { anime_ids: [a.id] }), 200);
    expect(expectJson(await send(server, 'GET', path()), 200).count).toBe(5);
    expect((await write('DELETE', n.id)).status).toBe(204);
    expect(expectJson(await send(server, 'GET', path()), 200).count).toBe(4);
  });

  it('an anime without news: 200, empty; fields; signed in reads the same', async () => {
    const lone = await anime();
    expect(expectJson(await send(server, 'GET', `/api/animes/${lone.id}/news/`), 200)).toEqual({ count: 0, next: null, previous: null, results: [] });
    const page = expectJson(await send(server, 'GET', path('?fields=name,tag&limit=1')), 200);
    expect(page.results[0]).toEqual({ id: made[3].id, name: 'Delta', tag: 'spoiler' });
    expect(expectJson(await send(server, 'GET', path(), { headers: users.member.auth }), 200)).toEqual(expectJson(await send(server, 'GET', path()), 200));
    expectProblem(await send(server, 'GET', `/api/animes/${UNKNOWN}/news/`, { headers: users.member.auth }), 404, 'not-found');
  });

  it('404 for an unknown or deleted anime, or an id of another kind; 400 for bad query parameters', async () => {
    const gone = await anime();
    expect((await send(server, 'DELETE', `/api/animes/${gone.id}/`, { headers: users.contributor.auth })).status).toBe(204);
    for (const id of [UNKNOWN, gone.id, made[0].id, 'a.b']) expectProblem(await send(server, 'GET', `/api/animes/${id}/news/`), 404, 'not-found');
    for (const qs of ['tag=nope', 'ordering=updated_at', 'q=alpha', 'anime=x', 'limit=0', 'fields=content']) {
      expectErrors(await send(server, 'GET', path(`?${qs}`)), 400, 'invalid-query', [qs.split('=')[0]!]);
    }
  });
});

/**
 * Characters (API.md §3.5, §4.2): the write shape and its defaults, the detail with its reverse
 * views (`animes`, `mangas`, `voices`: empty while no anime or manga casts the character) and the
 * list items without them, PUT/PATCH/DELETE with If-Match, the list's search, orderings and
 * pagination, and who may write.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../shared/auth/roles.js';
import { expectErrors, expectJson, expectedOrder, expectProblem, ID, send, TIMESTAMP, uniqueName, usersByRole, walk } from '../support/contract.js';
import { useServer } from '../support/server.js';

const server = useServer();
const ITEM_KEYS = ['id', 'created_at', 'updated_at', 'name', 'name_kanji', 'nicknames', 'about', 'image', 'favorites', 'members'];
const DETAIL_KEYS = [...ITEM_KEYS, 'animes', 'mangas', 'voices'];
let users: Record<Role, Record<string, string>>;
let auth: Record<string, string>;
beforeAll(async () => {
  users = await usersByRole(server);
  auth = users.contributor;
});

const post = (body: unknown) => send(server, 'POST', '/api/characters/', { body, headers: auth });
const valid = (extra: Record<string, unknown> = {}) => ({ name: uniqueName('Character'), ...extra });
const make = async (extra: Record<string, unknown> = {}) => expectJson(await post(valid(extra)), 201);
const item = (id: string) => `/api/characters/${id}/`;
const write = (method: string, id: string, body?: unknown, headers: Record<string, string> = {}) => send(server, method, item(id), { body, headers: { ...auth, ...headers } });
/** A field's value as stored from `value`, or the error keys it gives. */
const stored = async (field: string, value: unknown) => expectJson(await post(valid({ [field]: value })), 201)[field];
const rejected = async (field: string, value: unknown, key = field) => expectErrors(await post(valid({ [field]: value })), 400, 'validation-error', [key]);

describe('write shape', () => {
  it('POST {name}: 201 with the detail, Location and ETag; defaults; empty reverse views; GET answers the same', async () => {
    const body = valid();
    const res = await post(body);
    const c = expectJson(res, 201);
    expect(Object.keys(c)).toEqual(DETAIL_KEYS);
    expect(c).toEqual({
      id: c.id,
      created_at: c.created_at,
      updated_at: c.created_at,
      name: body.name,
      name_kanji: '',
      nicknames: [],
      about: '',
      image: null,
      favorites: 0,
      members: 0,
      animes: [],
      mangas: [],
      voices: [],
    });
    expect(c.id).toMatch(ID);
    expect(c.created_at).toMatch(TIMESTAMP);
    expect(res.headers.get('location')).toBe(`${server.url}${item(c.id)}`);
    const got = await send(server, 'GET', item(c.id));
    expect(expectJson(got, 200)).toEqual(c);
    expect(got.headers.get('etag')).toBe(res.headers.get('etag'));
    expect(got.headers.get('cache-control')).toBe('public, max-age=60');
  });

  it('every field set', async () => {
    const body = valid({ name_kanji: '五条悟', nicknames: ['Gojo', 'The Strongest'], about: 'Line one.\n\tLine two.', image: 'https://img.example.org/gojo.png' });
    expect(await make(body)).toMatchObject(body);
  });

  it('name: required, 1–255 code points, trimmed and NFC, not unique', async () => {
    expectErrors(await post({}), 400, 'validation-error', ['name']);
    for (const name of [null, '', '   ', 5, ['a'], 'a\nb', 'x'.repeat(256)]) await rejected('name', name);
    expect(await stored('name', '  Levi  ')).toBe('Levi');
    expect(await stored('name', 'Cafe\u0301')).toBe('Café');
    expect(await stored('name', '\u{20BB7}'.repeat(255))).toBe('\u{20BB7}'.repeat(255));
    const a = await make({ name: 'Same Name' });
    const b = await make({ name: 'same name' });
    expect(a.id).not.toBe(b.id);
  });

  it('name_kanji: a single-line string ≤ 255 code points; null means ""', async () => {
    expect(await stored('name_kanji', ' リヴァイ ')).toBe('リヴァイ');
    expect(await stored('name_kanji', null)).toBe('');
    expect(await stored('name_kanji', '\u{20BB7}'.repeat(255))).toBe('\u{20BB7}'.repeat(255));
    for (const v of ['x'.repeat(256), 'a\nb', 'a\u0007b', 12, true]) await rejected('name_kanji', v);
  });

  it('nicknames: ≤ 20 distinct items of 1–100 code points', async () => {
    const twenty = Array.from({ length: 20 }, (_, i) => `Nick ${i}`);
    expect(await stored('nicknames', twenty)).toEqual(twenty);
    expect(await stored('nicknames', [' Captain ', 'captain', 'é'.repeat(100)])).toEqual(['Captain', 'captain', 'é'.repeat(100)]);
    await rejected('nicknames', [...twenty, 'Nick 20']);
    await rejected('nicknames', ['Levi', ' Levi '], 'nicknames.1');
    await rejected('nicknames', ['ok', ''], 'nicknames.1');
    await rejected('nicknames', ['x'.repeat(101)], 'nicknames.0');
    await rejected('nicknames', [5], 'nicknames.0');
    for (const v of [null, 'Levi', {}]) await rejected('nicknames', v);
  });

  it('about: text ≤ 10,000 code points, stored as sent; null means ""', async () => {
    expect(await stored('about', ' Two\r\nlines\t ')).toBe(' Two\r\nlines\t ');
    expect(await stored('about', 'é'.repeat(10_000))).toBe('é'.repeat(10_000));
    expect(await stored('about', null)).toBe('');
    for (const v of ['a'.repeat(10_001), 'bell\u0007', 3]) await rejected('about', v);
  });

  it('image: an https URL or null', async () => {
    expect(await stored('image', 'https://img.example.org/a.png')).toBe('https://img.example.org/a.png');
    expect(await stored('image', null)).toBeNull();
    for (const v of ['http://img.example.org/a.png', '/a.png', 'https://user:pw@example.org/a.png', 'https://exa mple.org/', '', 7]) await rejected('image', v);
  });

  it('unknown and read-only fields → 400; every field error is reported together', async () => {
    for (const field of ['id', 'favorites', 'members', 'animes', 'voices', 'created_at', 'bogus']) await rejected(field, field === 'favorites' ? 3 : []);
    const res = await post({ name: '', name_kanji: 1, nicknames: ['a', 'a'], about: false, image: 'ftp://x.org/', members: 2 });
    expectErrors(res, 400, 'validation-error', ['name', 'name_kanji', 'nicknames.1', 'about', 'image', 'members']);
  });
});

describe('one character: PUT, PATCH, DELETE', () => {
  const full = () => valid({ name_kanji: 'エレン', nicknames: ['Titan'], about: 'About.', image: 'https://img.example.org/e.png' });

  it('PUT replaces every writable field: omitted ones take their defaults; PUT needs name', async () => {
    const c = await make(full());
    const res = await write('PUT', c.id, { name: 'Eren Yeager' });
    const put = expectJson(res, 200);
    expect(put).toEqual({ ...c, name: 'Eren Yeager', name_kanji: '', nicknames: [], about: '', image: null, updated_at: put.updated_at });
    expect(put.updated_at > c.updated_at).toBe(true);
    expect(res.headers.get('etag')).toBe((await send(server, 'GET', item(c.id))).headers.get('etag'));
    expectErrors(await write('PUT', c.id, { about: 'x' }), 400, 'validation-error', ['name']);
  });

  it('PATCH changes only the fields sent; arrays are replaced; PATCH {} changes nothing', async () => {
    const c = await make(full());
    const patched = expectJson(await write('PATCH', c.id, { nicknames: ['Attack Titan', 'Titan'], image: null }), 200);
    expect(patched).toEqual({ ...c, nicknames: ['Attack Titan', 'Titan'], image: null, updated_at: patched.updated_at });
    const res = await write('PATCH', c.id, {});
    expect(expectJson(res, 200)).toEqual(patched);
    // The same values again are no change either.
    expect(expectJson(await write('PATCH', c.id, { name: c.name, nicknames: ['Attack Titan', 'Titan'] }), 200)).toEqual(patched);
    expect(expectJson(await send(server, 'GET', item(c.id)), 200)).toEqual(patched);
    expectErrors(await write('PATCH', c.id, { name: null, nicknames: ['a', 'a'] }), 400, 'validation-error', ['name', 'nicknames.1']);
  });

  it('If-Match: the current ETag or * succeeds, anything else → 412 and nothing changes', async () => {
    const c = await make();
    const etag = (await send(server, 'GET', item(c.id))).headers.get('etag')!;
    for (const [method, body] of [['PUT', { name: 'X' }], ['PATCH', { about: 'x' }], ['DELETE', undefined]] as const) {
      for (const tag of ['"nope"', `W/${etag}`]) expectProblem(await write(method, c.id, body, { 'if-match': tag }), 412, 'precondition-failed');
    }
    expect(expectJson(await send(server, 'GET', item(c.id)), 200)).toEqual(c);
    const res = await write('PATCH', c.id, { about: 'changed' }, { 'if-match': `"other", ${etag}` });
    expectJson(res, 200);
    // The old tag no longer matches; the new one does, and so does *.
    expectProblem(await write('PATCH', c.id, { about: 'again' }, { 'if-match': etag }), 412, 'precondition-failed');
    expectJson(await write('PATCH', c.id, { about: 'again' }, { 'if-match': res.headers.get('etag')! }), 200);
    expectJson(await write('PUT', c.id, { name: 'Star' }, { 'if-match': '*' }), 200);
    // 412 comes before the body's validation.
    expectProblem(await write('PATCH', c.id, { name: '' }, { 'if-match': '"nope"' }), 412, 'precondition-failed');
    expect((await write('DELETE', c.id, undefined, { 'if-match': '*' })).status).toBe(204);
  });

  it('DELETE: 204, then 404 everywhere, gone from the list and its count; a second DELETE → 404', async () => {
    const c = await make();
    const before = expectJson(await send(server, 'GET', '/api/characters/?limit=1'), 200).count;
    expect((await write('DELETE', c.id)).status).toBe(204);
    expectProblem(await send(server, 'GET', item(c.id)), 404, 'not-found');
    for (const [method, body] of [['PUT', { name: 'X' }], ['PATCH', {}], ['DELETE', undefined]] as const) {
      expectProblem(await write(method, c.id, body), 404, 'not-found');
    }
    expect(expectJson(await send(server, 'GET', '/api/characters/?limit=1'), 200).count).toBe(before - 1);
    const { results } = await walk(server, '/api/characters/?limit=100');
    expect(results.some((r) => r.id === c.id)).toBe(false);
  });

  it('404 for ids that name no character, whatever their form, before the body is validated', async () => {
    const other = expectJson(await send(server, 'POST', '/api/genres/', { body: { name: uniqueName('Genre') }, headers: auth }), 201);
    for (const id of ['AAAAAAAAAAAAAAAAAAAAAA', other.id, 'x'.repeat(65), 'a.b', '%20']) {
      expectProblem(await send(server, 'GET', item(id)), 404, 'not-found');
      expectProblem(await write('PUT', id, { name: '' }), 404, 'not-found');
      expectProblem(await write('PATCH', id, { bogus: 1 }), 404, 'not-found');
      expectProblem(await write('DELETE', id), 404, 'not-found');
    }
  });

  it('fields: detail keys on the detail, list item keys on the list', async () => {
    const c = await make({ nicknames: ['N'] });
    expect(expectJson(await send(server, 'GET', `${item(c.id)}?fields=nicknames,voices`), 200)).toEqual({ id: c.id, nicknames: ['N'], voices: [] });
    const page = expectJson(await send(server, 'GET', '/api/characters/?fields=name&limit=1'), 200);
    expect(Object.keys(page.results[0])).toEqual(['id', 'name']);
    expectErrors(await send(server, 'GET', '/api/characters/?fields=animes'), 400, 'invalid-query', ['fields']);
    expectErrors(await send(server, 'GET', `${item(c.id)}?fields=pictures`), 400, 'invalid-query', ['fields']);
  });
});

describe('list: search, orderings, pagination', () => {
  const data = [
    { name: 'Levi Ackerman', name_kanji: 'リヴァイ・アッカーマン', nicknames: ["Humanity's Strongest", 'Captain'] },
    { name: 'Mikasa Ackerman', name_kanji: 'ミカサ・アッカーマン', nicknames: [] },
    { name: 'Amélie Poulain', name_kanji: '', nicknames: ['Ami'] },
    { name: 'Satoru Gojo', name_kanji: '五条悟', nicknames: ['The Strongest'] },
    { name: 'Éowyn', name_kanji: '', nicknames: [] },
    { name: 'eren', name_kanji: 'エレン・イェーガー', nicknames: ['Titan'] },
    { name: 'Zeke', name_kanji: 'ジーク', nicknames: ['Beast Titan'] },
  ];
  let made: any[];
  let others: number;
  beforeAll(async () => {
    others = expectJson(await send(server, 'GET', '/api/characters/?limit=1'), 200).count;
    made = [];
    for (const d of data) made.push(await make(d));
  });
  const names = (results: any[]) => results.filter((r) => made.some((m) => m.id === r.id)).map((r) => r.name);
  const search = async (q: string) => names((await walk(server, `/api/characters/?limit=100&q=${encodeURIComponent(q)}`)).results);

  it('list items: the detail without animes, mangas and voices; count exact without q', async () => {
    const first = await walk(server, '/api/characters/?limit=100');
    const ours = first.results.filter((r) => made.some((m) => m.id === r.id));
    expect(ours).toHaveLength(data.length);
    for (const r of first.results) expect(Object.keys(r)).toEqual(ITEM_KEYS);
    const { animes: _a, mangas: _m, voices: _v, ...levi } = made[0];
    expect(ours.find((r) => r.id === levi.id)).toEqual(levi);
    expect(first.pages[0]!.body.count).toBe(others + data.length);
    expect(first.results).toHaveLength(others + data.length);
    // A q without terms is no q: count stays exact.
    expect(expectJson(await send(server, 'GET', '/api/characters/?q=!!'), 200).count).toBe(others + data.length);
    expect(expectJson(await send(server, 'GET', '/api/characters/?q=levi'), 200).count).toBeNull();
  });

  it('q over name, name_kanji and nicknames: word prefixes, case and accents ignored, every term must match', async () => {
    expect(await search('ACKER')).toEqual(['Levi Ackerman', 'Mikasa Ackerman']);
    expect(await search('levi ackerman')).toEqual(['Levi Ackerman']);
    expect(await search('levi zzz')).toEqual([]);
    expect(await search('ckerman')).toEqual([]);
    expect(await search('amelie')).toEqual(['Amélie Poulain']);
    expect(await search('EOWYN')).toEqual(['Éowyn']);
    expect(await search('humanitys')).toEqual(['Levi Ackerman']);
    expect(await search('strongest')).toEqual(['Levi Ackerman', 'Satoru Gojo']);
    expect(await search('titan')).toEqual(['eren', 'Zeke']);
  });

  it('q over name_kanji: Han and kana start words inside a run', async () => {
    expect(await search('アッカーマン')).toEqual(['Levi Ackerman', 'Mikasa Ackerman']);
    expect(await search('悟')).toEqual(['Satoru Gojo']);
    expect(await search('条悟')).toEqual(['Satoru Gojo']);
    expect(await search('イェーガー')).toEqual(['eren']);
    expect(await search('ーク')).toEqual([]);
  });

  it.each(['name', '-name', 'favorites', '-favorites', 'members', '-members', 'created_at', '-created_at'])('ordering=%s: by the key, then by id', async (ordering) => {
    const key = ordering.replace(/^-/, '');
    const all = (await walk(server, `/api/characters/?limit=100&ordering=${ordering}`)).results;
    expect(all).toEqual(expectedOrder(all, key, ordering.startsWith('-')));
    const ours = all.filter((r) => made.some((m) => m.id === r.id));
    expect(ours.map((r) => r.id)).toEqual(expectedOrder(ours, key, ordering.startsWith('-')).map((r) => r.id));
  });

  it('the default ordering is name (N(name) by code point: accents and case ignored)', async () => {
    const all = (await walk(server, '/api/characters/?limit=100')).results;
    expect(all).toEqual(expectedOrder(all, 'name', false));
    expect(names(all)).toEqual(['Amélie Poulain', 'Éowyn', 'eren', 'Levi Ackerman', 'Mikasa Ackerman', 'Satoru Gojo', 'Zeke']);
  });

  it.each(['birthday', 'score', 'name,created_at', '--name', 'Name', ''])('ordering=%j → 400', async (ordering) => {
    expectErrors(await send(server, 'GET', `/api/characters/?ordering=${encodeURIComponent(ordering)}`), 400, 'invalid-query', ['ordering']);
  });

  // Filtered pages may be short (bounded work, §1.5): pages are compared as one sequence.
  it.each(['', '&ordering=-name', '&q=a', '&q=a&ordering=-created_at'])('pagination%s: forwards with limit=2 and back with previous, every record once, in order', async (query) => {
    const whole = (await walk(server, `/api/characters/?limit=100${query}`)).results;
    expect(whole.length).toBeGreaterThan(2);
    const { results, pages } = await walk(server, `/api/characters/?limit=2${query}`);
    expect(results).toEqual(whole);
    expect(pages[0]!.body.previous).toBeNull();
    const back = [...pages.at(-1)!.body.results];
    let url: string = pages.at(-1)!.body.previous;
    for (let i = 0; back.length < whole.length; i++) {
      expect(i, 'pages walked backwards').toBeLessThan(100);
      const page = expectJson(await send(server, 'GET', url), 200);
      expect(page.results.length).toBeLessThanOrEqual(2);
      back.unshift(...page.results);
      url = page.previous;
    }
    expect(back).toEqual(whole);
    // Nothing precedes the first record: an empty page, whose next leads to the start.
    const before = expectJson(await send(server, 'GET', url), 200);
    expect(before.results).toEqual([]);
    if (!query.includes('q=')) expect(expectJson(await send(server, 'GET', before.next), 200).results).toEqual(whole.slice(0, 2));
  });

  it('limit and cursor are checked; unknown parameters → 400', async () => {
    for (const q of ['limit=0', 'limit=101', 'limit=x', 'cursor=bogus', 'offset=2', 'role=hero', 'anime=x', 'category=director']) {
      expectErrors(await send(server, 'GET', `/api/characters/?${q}`), 400, 'invalid-query', [q.split('=')[0]!]);
    }
  });
});

describe('who may write', () => {
  const denied: ['anonymous' | Role, number, 'authentication-required' | 'forbidden'][] = [
    ['anonymous', 401, 'authentication-required'],
    ['member', 403, 'forbidden'],
    ['premium', 403, 'forbidden'],
  ];

  it.each(denied)('%s: every write is refused and changes nothing', async (who, status, type) => {
    const headers = who === 'anonymous' ? {} : users[who];
    const c = await make({ about: 'Kept.' });
    const before = await send(server, 'GET', item(c.id));
    const count = expectJson(await send(server, 'GET', '/api/characters/?limit=1'), 200).count;
    expectProblem(await send(server, 'POST', '/api/characters/', { body: valid(), headers }), status, type);
    // The role is refused before the path id and the body are looked at.
    expectProblem(await send(server, 'POST', '/api/characters/', { body: { bogus: 1 }, headers }), status, type);
    expectProblem(await send(server, 'PUT', item(c.id), { body: { name: 'X' }, headers }), status, type);
    expectProblem(await send(server, 'PATCH', item(c.id), { body: { about: 'x' }, headers }), status, type);
    expectProblem(await send(server, 'DELETE', item(c.id), { headers }), status, type);
    expectProblem(await send(server, 'DELETE', item('AAAAAAAAAAAAAAAAAAAAAA'), { headers }), status, type);
    const after = await send(server, 'GET', item(c.id));
    expect(after.body).toEqual(before.body);
    expect(after.headers.get('etag')).toBe(before.headers.get('etag'));
    expect(expectJson(await send(server, 'GET', '/api/characters/?limit=1'), 200).count).toBe(count);
  });

  it.each(['contributor', 'moderator', 'administrator'] as const)('%s may create, replace, patch and delete', async (role) => {
    const headers = users[role];
    const c = expectJson(await send(server, 'POST', '/api/characters/', { body: valid(), headers }), 201);
    expectJson(await send(server, 'PUT', item(c.id), { body: { name: 'Put' }, headers }), 200);
    expectJson(await send(server, 'PATCH', item(c.id), { body: { about: 'Patched' }, headers }), 200);
    expect((await send(server, 'DELETE', item(c.id), { headers })).status).toBe(204);
  });

  it('reads are public, signed in or not', async () => {
    const c = await make();
    for (const headers of [{}, users.member]) {
      expect(expectJson(await send(server, 'GET', item(c.id), { headers }), 200)).toEqual(c);
      expectJson(await send(server, 'GET', '/api/characters/', { headers }), 200);
    }
  });
});

/**
 * Persons (API.md §3.6, §4.9): the write shape and its defaults, pictures kept by `url` (§3.2),
 * the detail with its reverse view (`staff_credits`: empty while no anime credits the person)
 * and the list items without it, PUT/PATCH/DELETE with If-Match, the list's search, `category`
 * and `language` filters, orderings (birthday with nulls last) and pagination, and who may write.
 * Pictures are write-only here; until `GET /api/persons/{id}/pictures/` exists they are read
 * from the table.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../shared/auth/roles.js';
import { personTitle } from '../../shared/db/persons.js';
import { readRelation } from '../../shared/db/titles.js';
import { expectErrors, expectJson, expectedOrder, expectProblem, ID, send, TIMESTAMP, uniqueName, usersByRole, walk } from '../support/contract.js';
import { useServer } from '../support/server.js';

const server = useServer();
const CATEGORIES = ['director', 'voice_actor', 'artist', 'writer', 'producer', 'other'];
const LANGUAGES = ['japanese', 'english', 'spanish', 'french', 'german', 'italian', 'portuguese', 'korean', 'chinese'];
const ITEM_KEYS = ['id', 'created_at', 'updated_at', 'name', 'given_name', 'family_name', 'alternate_names', 'image', 'birthday', 'about', 'website', 'language', 'category', 'favorites'];
const DETAIL_KEYS = [...ITEM_KEYS, 'staff_credits'];
let users: Record<Role, Record<string, string>>;
let auth: Record<string, string>;
beforeAll(async () => {
  users = await usersByRole(server);
  auth = users.contributor;
});

const post = (body: unknown) => send(server, 'POST', '/api/persons/', { body, headers: auth });
const valid = (extra: Record<string, unknown> = {}) => ({ name: uniqueName('Person'), ...extra });
const make = async (extra: Record<string, unknown> = {}) => expectJson(await post(valid(extra)), 201);
const item = (id: string) => `/api/persons/${id}/`;
const write = (method: string, id: string, body?: unknown, headers: Record<string, string> = {}) => send(server, method, item(id), { body, headers: { ...auth, ...headers } });
const stored = async (field: string, value: unknown) => expectJson(await post(valid({ [field]: value })), 201)[field];
const rejected = async (field: string, value: unknown, key = field) => expectErrors(await post(valid({ [field]: value })), 400, 'validation-error', [key]);
const utcDay = (offsetDays: number) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);
const picturesOf = async (id: string) => (await readRelation(personTitle, id, 'pictures')) as any[];

describe('write shape', () => {
  it('POST {name}: 201 with the detail, Location and ETag; defaults; an empty staff_credits; GET answers the same', async () => {
    const body = valid();
    const res = await post(body);
    const p = expectJson(res, 201);
    expect(Object.keys(p)).toEqual(DETAIL_KEYS);
    expect(p).toEqual({
      id: p.id,
      created_at: p.created_at,
      updated_at: p.created_at,
      name: body.name,
      given_name: '',
      family_name: '',
      alternate_names: [],
      image: null,
      birthday: null,
      about: '',
      website: null,
      language: 'japanese',
      category: 'other',
      favorites: 0,
      staff_credits: [],
    });
    expect(p.id).toMatch(ID);
    expect(p.created_at).toMatch(TIMESTAMP);
    expect(res.headers.get('location')).toBe(`${server.url}${item(p.id)}`);
    const got = await send(server, 'GET', item(p.id));
    expect(expectJson(got, 200)).toEqual(p);
    expect(got.headers.get('etag')).toBe(res.headers.get('etag'));
    expect(await picturesOf(p.id)).toEqual([]);
  });

  it('every field set; pictures are write-only', async () => {
    const fields = {
      given_name: 'Hayao',
      family_name: 'Miyazaki',
      alternate_names: ['宮崎駿', 'Miyazaki-san'],
      image: 'https://img.example.org/m.png',
      birthday: '1941-01-05',
      about: 'Director.\nAnimator.',
      website: 'http://ghibli.example.org/',
      language: 'japanese',
      category: 'director',
    };
    const p = await make({ ...fields, pictures: [{ url: 'https://img.example.org/1.png', name: 'Portrait' }] });
    expect(p).toMatchObject(fields);
    expect(Object.keys(p)).not.toContain('pictures');
  });

  it('name: required, 1–255 code points, trimmed and NFC, not unique', async () => {
    expectErrors(await post({}), 400, 'validation-error', ['name']);
    for (const name of [null, '', '  ', 1, 'a\tb', 'x'.repeat(256)]) await rejected('name', name);
    expect(await stored('name', ' Mamoru Oshii ')).toBe('Mamoru Oshii');
    expect(await stored('name', 'Jose\u0301')).toBe('José');
    expect(await stored('name', '\u{20BB7}'.repeat(255))).toBe('\u{20BB7}'.repeat(255));
    expect((await make({ name: 'Same' })).id).not.toBe((await make({ name: 'SAME' })).id);
  });

  it.each(['given_name', 'family_name'])('%s: a single-line string ≤ 255 code points; null means ""', async (field) => {
    expect(await stored(field, ' 宮崎 ')).toBe('宮崎');
    expect(await stored(field, null)).toBe('');
    expect(await stored(field, 'é'.repeat(255))).toBe('é'.repeat(255));
    for (const v of ['x'.repeat(256), 'a\nb', 0, []]) await rejected(field, v);
  });

  it('alternate_names: ≤ 20 distinct items of 1–255 code points', async () => {
    const twenty = Array.from({ length: 20 }, (_, i) => `Alias ${i}`);
    expect(await stored('alternate_names', twenty)).toEqual(twenty);
    await rejected('alternate_names', [...twenty, 'Alias 20']);
    await rejected('alternate_names', ['A', ' A'], 'alternate_names.1');
    await rejected('alternate_names', [' '], 'alternate_names.0');
    await rejected('alternate_names', ['x'.repeat(256)], 'alternate_names.0');
    for (const v of [null, 'A']) await rejected('alternate_names', v);
  });

  it('birthday: a real date between 1800-01-01 and today (UTC), or null', async () => {
    for (const d of ['1800-01-01', '1941-01-05', '2000-02-29', utcDay(-1)]) expect(await stored('birthday', d), d).toBe(d);
    expect(await stored('birthday', null)).toBeNull();
    const today = utcDay(0);
    const res = await post(valid({ birthday: today }));
    // (Unless the UTC day changed during the request.)
    if (utcDay(0) === today) expect(expectJson(res, 201).birthday).toBe(today);
    for (const d of ['1799-12-31', utcDay(2), '2100-01-01', '2001-02-29', '2020-04-31', '2020-13-01', '1990-1-2', '19900102', '1990-01-02T00:00:00Z', '', 19900102]) {
      await rejected('birthday', d);
    }
  });

  it('about: text ≤ 10,000 code points; website: http(s) or null; image: https or null', async () => {
    expect(await stored('about', 'a\r\n\tb')).toBe('a\r\n\tb');
    expect(await stored('about', 'é'.repeat(10_000))).toBe('é'.repeat(10_000));
    expect(await stored('about', null)).toBe('');
    for (const v of ['a'.repeat(10_001), 'a\u001bb']) await rejected('about', v);
    for (const url of ['http://example.org/', 'https://example.org/p']) expect(await stored('website', url)).toBe(url);
    for (const v of ['ftp://example.org/', 'mailto:a@example.org', 'http://u:p@example.org/', '']) await rejected('website', v);
    expect(await stored('image', null)).toBeNull();
    for (const v of ['http://example.org/a.png', 'data:image/png;base64,AA']) await rejected('image', v);
  });

  it('language and category: exactly one listed value; defaults japanese and other', async () => {
    for (const language of LANGUAGES) expect(await stored('language', language)).toBe(language);
    for (const category of CATEGORIES) expect(await stored('category', category)).toBe(category);
    for (const v of ['Japanese', 'klingon', null, '', 1, ['english']]) await rejected('language', v);
    for (const v of ['Director', 'actor', null, '', 2]) await rejected('category', v);
  });

  it('pictures: ≤ 100 PictureWrite of distinct https url, name ≤ 100 (default "")', async () => {
    const hundred = Array.from({ length: 100 }, (_, i) => ({ url: `https://img.example.org/${i}.png` }));
    const p = await make({ pictures: hundred });
    const pics = await picturesOf(p.id);
    expect(pics).toHaveLength(100);
    expect(pics[7]).toEqual({ id: pics[7].id, name: '', url: 'https://img.example.org/7.png', width: null, height: null, created_at: p.updated_at, updated_at: p.updated_at });
    expect(new Set(pics.map((x) => x.id)).size).toBe(100);
    await rejected('pictures', [...hundred, { url: 'https://img.example.org/x.png' }]);
    await rejected('pictures', [{ url: 'https://a.org/1.png' }, { url: ' https://a.org/1.png ', name: 'Other' }], 'pictures.1.url');
    await rejected('pictures', [{ url: 'http://a.org/1.png' }], 'pictures.0.url');
    await rejected('pictures', [{ name: 'No url' }], 'pictures.0.url');
    await rejected('pictures', [{ url: 'https://a.org/1.png', name: 'x'.repeat(101) }], 'pictures.0.name');
    await rejected('pictures', [{ url: 'https://a.org/1.png', width: 10 }], 'pictures.0.width');
    for (const v of [null, {}, ['https://a.org/1.png']]) await rejected('pictures', v, Array.isArray(v) ? 'pictures.0' : 'pictures');
    const named = await make({ pictures: [{ url: 'https://a.org/n.png', name: null }, { url: 'https://a.org/m.png', name: ' Cover ' }] });
    expect((await picturesOf(named.id)).map((x) => x.name)).toEqual(['', 'Cover']);
  });

  it('unknown and read-only fields → 400; every field error is reported together', async () => {
    for (const field of ['id', 'favorites', 'staff_credits', 'updated_at', 'nicknames']) await rejected(field, field === 'favorites' ? 1 : []);
    const res = await post({ name: 'x'.repeat(256), given_name: 1, alternate_names: ['a', 'a'], birthday: '1799-12-31', website: 'ftp://x.org', language: 'elvish', category: null, pictures: [{ url: 'x' }], favorites: 1 });
    expectErrors(res, 400, 'validation-error', ['name', 'given_name', 'alternate_names.1', 'birthday', 'website', 'language', 'category', 'pictures.0.url', 'favorites']);
  });
});

describe('one person: PUT, PATCH, DELETE', () => {
  const full = () =>
    valid({
      given_name: 'Kenji',
      family_name: 'Kawai',
      alternate_names: ['川井憲次'],
      image: 'https://img.example.org/k.png',
      birthday: '1957-04-23',
      about: 'Composer.',
      website: 'https://kawai.example.org/',
      language: 'english',
      category: 'artist',
      pictures: [{ url: 'https://img.example.org/a.png', name: 'A' }, { url: 'https://img.example.org/b.png' }],
    });

  it('PUT replaces every writable field: omitted ones take their defaults, pictures become []', async () => {
    const p = await make(full());
    expect(await picturesOf(p.id)).toHaveLength(2);
    const res = await write('PUT', p.id, { name: 'Kenji Kawai' });
    const put = expectJson(res, 200);
    expect(put).toEqual({
      ...p,
      name: 'Kenji Kawai',
      given_name: '',
      family_name: '',
      alternate_names: [],
      image: null,
      birthday: null,
      about: '',
      website: null,
      language: 'japanese',
      category: 'other',
      updated_at: put.updated_at,
    });
    expect(put.updated_at > p.updated_at).toBe(true);
    expect(await picturesOf(p.id)).toEqual([]);
    expect(res.headers.get('etag')).toBe((await send(server, 'GET', item(p.id))).headers.get('etag'));
    expectErrors(await write('PUT', p.id, { category: 'writer' }), 400, 'validation-error', ['name']);
  });

  it('pictures keep their id and created_at by url across PUT and PATCH; others are new; absent urls go', async () => {
    const p = await make(full());
    const [a, b] = await picturesOf(p.id);
    // PATCH: b renamed and moved first, a dropped, c new.
    const patched = expectJson(await write('PATCH', p.id, { pictures: [{ url: b.url, name: 'B' }, { url: 'https://img.example.org/c.png' }] }), 200);
    const [b2, c] = await picturesOf(p.id);
    expect(b2).toEqual({ ...b, name: 'B', updated_at: patched.updated_at });
    expect(c).toMatchObject({ name: '', url: 'https://img.example.org/c.png', created_at: patched.updated_at });
    expect([a.id, b.id]).not.toContain(c.id);
    // PATCH without pictures keeps them; an unchanged picture keeps its updated_at.
    expectJson(await write('PATCH', p.id, { about: 'Other.' }), 200);
    expect(await picturesOf(p.id)).toEqual([b2, c]);
    const put = expectJson(await write('PUT', p.id, { name: p.name, pictures: [{ url: c.url }, { url: a.url, name: 'A again' }] }), 200);
    const [c2, a2] = await picturesOf(p.id);
    expect(c2).toEqual(c);
    // a was deleted by the PATCH: the same url now is a new picture.
    expect(a2).toMatchObject({ url: a.url, name: 'A again', created_at: put.updated_at });
    expect(a2.id).not.toBe(a.id);
  });

  it('PATCH changes only the fields sent; PATCH {} and the same values change nothing', async () => {
    const p = await make(full());
    const before = await picturesOf(p.id);
    const patched = expectJson(await write('PATCH', p.id, { birthday: null, category: 'writer', alternate_names: [] }), 200);
    expect(patched).toEqual({ ...p, birthday: null, category: 'writer', alternate_names: [], updated_at: patched.updated_at });
    expect(await picturesOf(p.id)).toEqual(before);
    const res = await write('PATCH', p.id, {});
    expect(expectJson(res, 200)).toEqual(patched);
    const same = await write('PATCH', p.id, { category: 'writer', pictures: before.map((x) => ({ url: x.url, name: x.name })) });
    expect(expectJson(same, 200)).toEqual(patched);
    expect(same.headers.get('etag')).toBe(res.headers.get('etag'));
    expect(await picturesOf(p.id)).toEqual(before);
    expectErrors(await write('PATCH', p.id, { name: '', birthday: utcDay(3) }), 400, 'validation-error', ['name', 'birthday']);
  });

  it('If-Match: the current ETag or * succeeds, anything else → 412 and nothing changes', async () => {
    const p = await make(full());
    const etag = (await send(server, 'GET', item(p.id))).headers.get('etag')!;
    for (const [method, body] of [['PUT', { name: 'X' }], ['PATCH', { about: 'x' }], ['DELETE', undefined]] as const) {
      for (const tag of ['"nope"', `W/${etag}`]) expectProblem(await write(method, p.id, body, { 'if-match': tag }), 412, 'precondition-failed');
    }
    expect(expectJson(await send(server, 'GET', item(p.id)), 200)).toEqual(p);
    expect(await picturesOf(p.id)).toHaveLength(2);
    const res = await write('PATCH', p.id, { about: 'changed' }, { 'if-match': etag });
    expectJson(res, 200);
    expectProblem(await write('DELETE', p.id, undefined, { 'if-match': etag }), 412, 'precondition-failed');
    expect((await write('DELETE', p.id, undefined, { 'if-match': res.headers.get('etag')! })).status).toBe(204);
  });

  it('DELETE: 204; the person, its pictures and its list entries go; a second DELETE → 404', async () => {
    const p = await make(full());
    const before = expectJson(await send(server, 'GET', '/api/persons/?limit=1'), 200).count;
    expect((await write('DELETE', p.id)).status).toBe(204);
    expectProblem(await send(server, 'GET', item(p.id)), 404, 'not-found');
    expect(await readRelation(personTitle, p.id, 'pictures')).toBeNull();
    for (const [method, body] of [['PUT', { name: 'X' }], ['PATCH', {}], ['DELETE', undefined]] as const) {
      expectProblem(await write(method, p.id, body), 404, 'not-found');
    }
    expect(expectJson(await send(server, 'GET', '/api/persons/?limit=1'), 200).count).toBe(before - 1);
    for (const q of ['', '&category=artist', '&language=english', `&q=${encodeURIComponent(p.name)}`]) {
      const { results } = await walk(server, `/api/persons/?limit=100${q}`);
      expect(results.some((r) => r.id === p.id), q).toBe(false);
    }
  });

  it('404 for ids that name no person, whatever their form, before the body is validated', async () => {
    const character = expectJson(await send(server, 'POST', '/api/characters/', { body: { name: 'Not a person' }, headers: auth }), 201);
    for (const id of ['AAAAAAAAAAAAAAAAAAAAAA', character.id, 'x'.repeat(65), 'a.b']) {
      expectProblem(await send(server, 'GET', item(id)), 404, 'not-found');
      expectProblem(await write('PUT', id, { name: '' }), 404, 'not-found');
      expectProblem(await write('PATCH', id, { pictures: 'x' }), 404, 'not-found');
      expectProblem(await write('DELETE', id), 404, 'not-found');
    }
  });

  it('fields: detail keys on the detail, list item keys on the list', async () => {
    const p = await make({ category: 'writer' });
    expect(expectJson(await send(server, 'GET', `${item(p.id)}?fields=category,staff_credits`), 200)).toEqual({ id: p.id, category: 'writer', staff_credits: [] });
    expectErrors(await send(server, 'GET', '/api/persons/?fields=staff_credits'), 400, 'invalid-query', ['fields']);
    expectErrors(await send(server, 'GET', `${item(p.id)}?fields=pictures`), 400, 'invalid-query', ['fields']);
  });
});

describe('list: search, filters, orderings, pagination', () => {
  const data = [
    { name: 'Hayao Miyazaki', given_name: 'Hayao', family_name: 'Miyazaki', alternate_names: ['宮崎駿'], category: 'director', language: 'japanese', birthday: '1941-01-05' },
    { name: 'Kana Hanazawa', given_name: 'Kana', family_name: 'Hanazawa', alternate_names: ['花澤香菜'], category: 'voice_actor', language: 'japanese', birthday: '1989-02-25' },
    { name: 'Crispin Freeman', category: 'voice_actor', language: 'english', birthday: '1972-02-18' },
    { name: 'Mamoru Hosoda', alternate_names: ['細田守'], category: 'director', language: 'japanese', birthday: null },
    { name: 'Renée Zellweger', category: 'other', language: 'english', birthday: '1969-04-25' },
    { name: 'Joe Hisaishi', given_name: 'Mamoru', family_name: 'Fujisawa', alternate_names: ["Hisaishi's"], category: 'artist', language: 'japanese', birthday: '1950-12-06' },
    { name: 'Jean Reno', category: 'voice_actor', language: 'french', birthday: '1948-07-30' },
    { name: 'Kenji Sato', category: 'voice_actor', language: 'japanese', birthday: '1972-02-18' },
    { name: 'Sunny Kim', category: 'writer', language: 'korean', birthday: null },
  ];
  let made: any[];
  let others: number;
  beforeAll(async () => {
    others = expectJson(await send(server, 'GET', '/api/persons/?limit=1'), 200).count;
    made = [];
    for (const d of data) made.push(await make(d));
  });
  const ours = (results: any[]) => results.filter((r) => made.some((m) => m.id === r.id));
  const list = async (query: string) => {
    const first = expectJson(await send(server, 'GET', `/api/persons/?limit=100&${query}`), 200);
    const { results } = await walk(server, `/api/persons/?limit=100&${query}`);
    return { count: first.count, results };
  };
  const names = async (query: string) => ours((await list(query)).results).map((r) => r.name);

  it('list items: the detail without staff_credits; count exact without q and filters, else null', async () => {
    const { count, results } = await list('');
    for (const r of results) expect(Object.keys(r)).toEqual(ITEM_KEYS);
    const { staff_credits: _s, ...hayao } = made[0];
    expect(ours(results).find((r) => r.id === hayao.id)).toEqual(hayao);
    expect(count).toBe(others + data.length);
    expect(results).toHaveLength(count);
    expect((await list('category=director')).count).toBeNull();
    expect((await list('language=english')).count).toBeNull();
    expect((await list('q=kana')).count).toBeNull();
    expect((await list('q=%3F%3F')).count).toBe(count);
  });

  it('q over name, given_name, family_name and alternate_names: word prefixes, case and accents ignored, all terms', async () => {
    expect(await names('q=MIYA')).toEqual(['Hayao Miyazaki']);
    expect(await names('q=mamoru')).toEqual(['Joe Hisaishi', 'Mamoru Hosoda']);
    expect(await names('q=fujisawa')).toEqual(['Joe Hisaishi']);
    expect(await names('q=hisaishis')).toEqual(['Joe Hisaishi']);
    expect(await names('q=renee')).toEqual(['Renée Zellweger']);
    expect(await names(`q=${encodeURIComponent('RENÉE zell')}`)).toEqual(['Renée Zellweger']);
    expect(await names('q=renee%20miyazaki')).toEqual([]);
    expect(await names('q=azawa')).toEqual([]);
    expect(await names(`q=${encodeURIComponent('宮崎')}`)).toEqual(['Hayao Miyazaki']);
    expect(await names(`q=${encodeURIComponent('香菜')}`)).toEqual(['Kana Hanazawa']);
    expect(await names(`q=${encodeURIComponent('守')}`)).toEqual(['Mamoru Hosoda']);
  });

  it.each(CATEGORIES)('category=%s: exactly the persons of that category', async (category) => {
    const { count, results } = await list(`category=${category}`);
    expect(count).toBeNull();
    for (const r of results) expect(r.category).toBe(category);
    expect(ours(results).map((r) => r.name)).toEqual(expectedOrder(made.filter((m) => m.category === category), 'name', false).map((m) => m.name));
  });

  it.each(LANGUAGES)('language=%s: exactly the persons of that language', async (language) => {
    const { results } = await list(`language=${language}`);
    for (const r of results) expect(r.language).toBe(language);
    expect(ours(results).map((r) => r.name)).toEqual(expectedOrder(made.filter((m) => m.language === language), 'name', false).map((m) => m.name));
  });

  it('filters and q combine with AND', async () => {
    expect(await names('category=voice_actor&language=japanese')).toEqual(['Kana Hanazawa', 'Kenji Sato']);
    expect(await names('category=voice_actor&language=japanese&q=kenji')).toEqual(['Kenji Sato']);
    expect(await names('category=director&q=mamoru')).toEqual(['Mamoru Hosoda']);
    expect(await names('category=writer&language=japanese')).toEqual([]);
    expect(await names('language=english&ordering=-birthday')).toEqual(['Crispin Freeman', 'Renée Zellweger']);
  });

  it.each([
    ['category', 'Director'],
    ['category', 'actor'],
    ['language', 'japanese,english'],
    ['language', ''],
    ['category', ''],
  ])('%s=%j → 400', async (param, value) => {
    expectErrors(await send(server, 'GET', `/api/persons/?${param}=${encodeURIComponent(value)}`), 400, 'invalid-query', [param]);
  });

  it('a repeated filter → 400', async () => {
    expectErrors(await send(server, 'GET', '/api/persons/?category=director&category=director'), 400, 'invalid-query', ['category']);
  });

  it.each(['name', '-name', 'birthday', '-birthday', 'favorites', '-favorites', 'created_at', '-created_at'])('ordering=%s: by the key, nulls last, then by id', async (ordering) => {
    const key = ordering.replace(/^-/, '');
    const desc = ordering.startsWith('-');
    const { results } = await list(`ordering=${ordering}`);
    expect(results).toEqual(expectedOrder(results, key, desc));
    const mine = ours(results);
    expect(mine.map((r) => r.id)).toEqual(expectedOrder(made, key, desc).map((r) => r.id));
    if (key === 'birthday') {
      expect(mine.slice(-2).map((r) => r.birthday)).toEqual([null, null]);
      // Freeman and Sato share a birthday: id ascending in both directions.
      const pair = mine.filter((r) => r.birthday === '1972-02-18').map((r) => r.id);
      expect(pair).toEqual([...pair].sort());
    }
  });

  it('the default ordering is name', async () => {
    const { results } = await list('');
    expect(results).toEqual(expectedOrder(results, 'name', false));
  });

  it.each(['members', 'given_name', 'name,birthday', '-'])('ordering=%j → 400', async (ordering) => {
    expectErrors(await send(server, 'GET', `/api/persons/?ordering=${encodeURIComponent(ordering)}`), 400, 'invalid-query', ['ordering']);
  });

  // Filtered pages may be short (bounded work, §1.5): pages are compared as one sequence.
  it.each(['', 'ordering=-birthday', 'category=voice_actor', 'language=japanese&ordering=birthday', 'q=k'])(
    'pagination %s: forwards with limit=2 and back with previous, every record once, in order',
    async (query) => {
      const whole = (await list(query)).results;
      expect(whole.length).toBeGreaterThan(2);
      const { results, pages } = await walk(server, `/api/persons/?limit=2&${query}`);
      expect(results).toEqual(whole);
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
      expect(expectJson(await send(server, 'GET', url), 200).results).toEqual([]);
    },
  );
});

describe('who may write', () => {
  const denied: ['anonymous' | Role, number, 'authentication-required' | 'forbidden'][] = [
    ['anonymous', 401, 'authentication-required'],
    ['member', 403, 'forbidden'],
    ['premium', 403, 'forbidden'],
  ];

  it.each(denied)('%s: every write is refused and changes nothing', async (who, status, type) => {
    const headers = who === 'anonymous' ? {} : users[who];
    const p = await make({ pictures: [{ url: 'https://img.example.org/kept.png' }] });
    const before = await send(server, 'GET', item(p.id));
    const pictures = await picturesOf(p.id);
    const count = expectJson(await send(server, 'GET', '/api/persons/?limit=1'), 200).count;
    expectProblem(await send(server, 'POST', '/api/persons/', { body: valid(), headers }), status, type);
    expectProblem(await send(server, 'POST', '/api/persons/', { body: { language: 'elvish' }, headers }), status, type);
    expectProblem(await send(server, 'PUT', item(p.id), { body: { name: 'X' }, headers }), status, type);
    expectProblem(await send(server, 'PATCH', item(p.id), { body: { pictures: [] }, headers }), status, type);
    expectProblem(await send(server, 'DELETE', item(p.id), { headers }), status, type);
    expectProblem(await send(server, 'PATCH', item('AAAAAAAAAAAAAAAAAAAAAA'), { body: {}, headers }), status, type);
    const after = await send(server, 'GET', item(p.id));
    expect(after.body).toEqual(before.body);
    expect(after.headers.get('etag')).toBe(before.headers.get('etag'));
    expect(await picturesOf(p.id)).toEqual(pictures);
    expect(expectJson(await send(server, 'GET', '/api/persons/?limit=1'), 200).count).toBe(count);
  });

  it.each(['contributor', 'moderator', 'administrator'] as const)('%s may create, replace, patch and delete', async (role) => {
    const headers = users[role];
    const p = expectJson(await send(server, 'POST', '/api/persons/', { body: valid(), headers }), 201);
    expectJson(await send(server, 'PUT', item(p.id), { body: { name: 'Put' }, headers }), 200);
    expectJson(await send(server, 'PATCH', item(p.id), { body: { category: 'writer' }, headers }), 200);
    expect((await send(server, 'DELETE', item(p.id), { headers })).status).toBe(204);
  });

  it('reads are public, signed in or not', async () => {
    const p = await make();
    for (const headers of [{}, users.member]) {
      expect(expectJson(await send(server, 'GET', item(p.id), { headers }), 200)).toEqual(p);
      expectJson(await send(server, 'GET', '/api/persons/', { headers }), 200);
    }
  });
});

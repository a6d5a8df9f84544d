/**
 * Mangas (API.md §3.4, §4.7) and `GET /api/genres/{id}/mangas/` (§4.4): the write shape and every
 * rule of it, references with their names (authors, serializations, genres, themes,
 * demographics), characters and pictures write-only, PUT/PATCH/DELETE with If-Match, the
 * `manga_count` of linked genres, themes, demographics and magazines (exact at once), the list's
 * search, filters, orderings and count rules, `pictures/`, and who may write.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../shared/auth/roles.js';
import { mangaTitle } from '../../shared/db/mangas.js';
import { readRelation } from '../../shared/db/titles.js';
import { expectErrors, expectJson, expectedOrder, expectProblem, ID, send, TIMESTAMP, uniqueName, usersByRole, walk } from '../support/contract.js';
import { useServer } from '../support/server.js';

const server = useServer();
const KEYS = [
  'id', 'created_at', 'updated_at', 'name', 'name_jpn', 'name_rom', 'alternative_names', 'image', 'synopsis', 'background', 'media_type', 'status',
  'chapters', 'volumes', 'published_from', 'published_to', 'authors', 'serializations', 'genres', 'themes', 'demographics', 'website', 'external_ids',
  'score', 'scored_by', 'members', 'favorites', 'rank', 'popularity',
];
const MEDIA_TYPES = ['manga', 'light_novel', 'novel', 'oneshot', 'doujinshi', 'manhwa', 'manhua', 'oel'];
const STATUSES = ['publishing', 'finished', 'upcoming', 'on_hiatus', 'discontinued'];

let users: Record<Role, Record<string, string>>;
let auth: Record<string, string>;
beforeAll(async () => {
  users = await usersByRole(server);
  auth = users.contributor;
});

const post = (body: unknown, path = '/api/mangas/') => send(server, 'POST', path, { body, headers: auth });
const valid = (extra: Record<string, unknown> = {}) => ({ name: uniqueName('Manga'), ...extra });
const make = async (extra: Record<string, unknown> = {}) => expectJson(await post(valid(extra)), 201);
const item = (id: string) => `/api/mangas/${id}/`;
const write = (method: string, id: string, body?: unknown, headers: Record<string, string> = {}) => send(server, method, item(id), { body, headers: { ...auth, ...headers } });
const get = async (path: string) => expectJson(await send(server, 'GET', path), 200);
const stored = async (field: string, value: unknown) => expectJson(await post(valid({ [field]: value })), 201)[field];
const rejected = async (field: string, value: unknown, key = field) => expectErrors(await post(valid({ [field]: value })), 400, 'validation-error', [key]);
const record = async (segment: string, extra: Record<string, unknown> = {}) => expectJson(await post({ name: uniqueName(segment), ...extra }, `/api/${segment}/`), 201);
const count = async (segment: string, id: string) => (await get(`/api/${segment}/${id}/`)).manga_count;
const charactersOf = (id: string) => readRelation(mangaTitle, id, 'characters');
const ids = (records: { id: string }[]) => records.map((r) => r.id);

describe('create and read', () => {
  it('POST {name}: 201 with the detail, Location and ETag; defaults; GET answers the same', async () => {
    const body = valid();
    const res = await post(body);
    const m = expectJson(res, 201);
    expect(Object.keys(m)).toEqual(KEYS);
    expect(m).toEqual({
      id: m.id, created_at: m.created_at, updated_at: m.created_at, name: body.name, name_jpn: '', name_rom: '', alternative_names: [], image: null,
      synopsis: '', background: '', media_type: 'manga', status: 'upcoming', chapters: null, volumes: null, published_from: null, published_to: null,
      authors: [], serializations: [], genres: [], themes: [], demographics: [], website: null, external_ids: {},
      score: null, scored_by: 0, members: 0, favorites: 0, rank: null, popularity: null,
    });
    expect(m.id).toMatch(ID);
    expect(m.created_at).toMatch(TIMESTAMP);
    expect(res.headers.get('location')).toBe(`${server.url}${item(m.id)}`);
    const got = await send(server, 'GET', item(m.id));
    expect(expectJson(got, 200)).toEqual(m);
    expect(got.headers.get('etag')).toBe(res.headers.get('etag'));
    expect(await charactersOf(m.id)).toEqual([]);
  });

  it('every field set: references shown with their names in written order; characters and pictures are write-only', async () => {
    const [g1, g2, t, d, mag] = [await record('genres'), await record('genres'), await record('themes'), await record('demographics'), await record('magazines')];
    const [writer, artist] = [await record('persons'), await record('persons', { category: 'artist' })];
    const [c1, c2] = [await record('characters'), await record('characters')];
    const fields = {
      name_jpn: '進撃の巨人', name_rom: 'Shingeki no Kyojin', alternative_names: ['AoT', 'Attack on Titan'], image: 'https://img.example.org/aot.png',
      synopsis: 'Walls.\nTitans.', background: 'Serialized monthly.', media_type: 'manga', status: 'finished', chapters: 139, volumes: 34,
      published_from: '2009-09-09', published_to: '2021-04-09', website: 'http://aot.example.org/',
    };
    const m = await make({
      ...fields,
      genre_ids: [g2.id, g1.id], theme_ids: [t.id], demographic_ids: [d.id], magazine_ids: [mag.id],
      authors: [{ person_id: artist.id, role: 'art' }, { person_id: writer.id, role: 'story' }],
      characters: [{ character_id: c2.id, role: 'supporting' }, { character_id: c1.id, role: 'main' }],
      pictures: [{ url: 'https://img.example.org/1.png', name: 'Cover' }],
    });
    expect(m).toMatchObject(fields);
    expect(m.genres).toEqual([{ id: g2.id, name: g2.name }, { id: g1.id, name: g1.name }]);
    expect(m.themes).toEqual([{ id: t.id, name: t.name }]);
    expect(m.demographics).toEqual([{ id: d.id, name: d.name }]);
    expect(m.serializations).toEqual([{ id: mag.id, name: mag.name }]);
    expect(m.authors).toEqual([{ id: artist.id, name: artist.name, role: 'art' }, { id: writer.id, name: writer.name, role: 'story' }]);
    expect(Object.keys(m)).toEqual(KEYS);
    expect(await charactersOf(m.id)).toEqual([{ character_id: c2.id, role: 'supporting' }, { character_id: c1.id, role: 'main' }]);
    expect(await get(item(m.id))).toEqual(m);
  });
});

describe('write rules', () => {
  it('name: required, 1–255, trimmed; unique among mangas case-insensitively → 409 with existing_id (also on rename)', async () => {
    expectErrors(await post({}), 400, 'validation-error', ['name']);
    for (const name of [null, '', '  ', 1, 'x'.repeat(256)]) await rejected('name', name);
    expect(await stored('name', '  Berserk Deluxe  ')).toBe('Berserk Deluxe');
    const m = await make();
    expect(expectErrors(await post({ name: ` ${m.name.toUpperCase()} ` }), 409, 'conflict', ['name']).existing_id).toBe(m.id);
    const other = await make();
    expect(expectErrors(await write('PATCH', other.id, { name: m.name.toLowerCase() }), 409, 'conflict', ['name']).existing_id).toBe(m.id);
    // An anime of the same name does not clash (unique among mangas only).
    expectJson(await post({ name: m.name }, '/api/animes/'), 201);
  });

  it('media_type and status: exactly one listed value; defaults manga and upcoming', async () => {
    for (const v of MEDIA_TYPES) expect(await stored('media_type', v)).toBe(v);
    for (const v of STATUSES) expect(await stored('status', v)).toBe(v);
    for (const v of ['tv', 'Manga', null, '', 1]) await rejected('media_type', v);
    for (const v of ['airing', 'Finished', null, '']) await rejected('status', v);
  });

  it('chapters 1–100,000 and volumes 1–1,000: integers or null', async () => {
    for (const v of [1, 100_000, null]) expect(await stored('chapters', v)).toBe(v);
    for (const v of [1, 1_000, null]) expect(await stored('volumes', v)).toBe(v);
    for (const v of [0, 100_001, -1, 1.5, '5', true]) await rejected('chapters', v);
    for (const v of [0, 1_001, 2.5, '3']) await rejected('volumes', v);
  });

  it('published_from / published_to: real dates 1900-01-01 – 2100-12-31; published_to requires published_from and is not before it', async () => {
    for (const d of ['1900-01-01', '2100-12-31', '2000-02-29']) expect(await stored('published_from', d)).toBe(d);
    for (const d of ['1899-12-31', '2101-01-01', '2001-02-29', '2020-1-01', '', 20200101]) await rejected('published_from', d);
    await rejected('published_to', '2100-12-31');
    await rejected('published_to', '2101-01-01');
    expectErrors(await post(valid({ published_from: '2010-05-02', published_to: '2010-05-01' })), 400, 'validation-error', ['published_to']);
    const same = await make({ published_from: '2010-05-02', published_to: '2010-05-02' });
    // PATCH: checked on the resulting record.
    expectErrors(await write('PATCH', same.id, { published_from: '2011-01-01' }), 400, 'validation-error', ['published_to']);
    expectErrors(await write('PATCH', same.id, { published_from: null }), 400, 'validation-error', ['published_to']);
    expect(expectJson(await write('PATCH', same.id, { published_from: null, published_to: null }), 200).published_from).toBeNull();
  });

  it('demographic_ids ≤ 5 and magazine_ids ≤ 10, distinct, of existing records of that kind', async () => {
    const demos = await Promise.all(Array.from({ length: 6 }, () => record('demographics')));
    const mags = await Promise.all(Array.from({ length: 11 }, () => record('magazines')));
    expect((await make({ demographic_ids: ids(demos.slice(0, 5)) })).demographics).toHaveLength(5);
    expect((await make({ magazine_ids: ids(mags.slice(0, 10)) })).serializations).toHaveLength(10);
    await rejected('demographic_ids', ids(demos));
    await rejected('magazine_ids', ids(mags));
    await rejected('demographic_ids', [demos[0]!.id, demos[0]!.id], 'demographic_ids.1');
    await rejected('magazine_ids', [mags[0]!.id, mags[0]!.id], 'magazine_ids.1');
    await rejected('demographic_ids', [mags[0]!.id], 'demographic_ids.0');
    await rejected('magazine_ids', ['nosuchmagazine'], 'magazine_ids.0');
    await rejected('magazine_ids', ['bad id!'], 'magazine_ids.0');
    for (const v of [null, mags[0]!.id]) await rejected('magazine_ids', v);
  });

  it('authors: ≤ 20 AuthorWrite of distinct person_id (any category) with an AuthorRole', async () => {
    const people = await Promise.all(Array.from({ length: 21 }, (_, i) => record('persons', { category: i % 2 ? 'voice_actor' : 'writer' })));
    const twenty = people.slice(0, 20).map((p, i) => ({ person_id: p.id, role: ['story', 'art', 'story_and_art'][i % 3] }));
    expect((await make({ authors: twenty })).authors.map((a: { id: string; role: string }) => ({ person_id: a.id, role: a.role }))).toEqual(twenty);
    await rejected('authors', people.map((p) => ({ person_id: p.id, role: 'story' })));
    await rejected('authors', [{ person_id: people[0]!.id, role: 'story' }, { person_id: people[0]!.id, role: 'art' }], 'authors.1.person_id');
    await rejected('authors', [{ person_id: people[0]!.id, role: 'writer' }], 'authors.0.role');
    await rejected('authors', [{ person_id: people[0]!.id }], 'authors.0.role');
    await rejected('authors', [{ person_id: people[0]!.id, role: 'art', name: 'x' }], 'authors.0.name');
    await rejected('authors', [{ person_id: 'nosuchperson', role: 'art' }], 'authors.0.person_id');
    const character = await record('characters');
    await rejected('authors', [{ person_id: character.id, role: 'art' }], 'authors.0.person_id');
  });

  it('characters: ≤ 500 MangaCharacterWrite of distinct character_id with a CharacterRole', async () => {
    const c = await record('characters');
    await rejected('characters', Array.from({ length: 501 }, (_, i) => ({ character_id: `c${i}`, role: 'main' })));
    await rejected('characters', [{ character_id: c.id, role: 'main' }, { character_id: c.id, role: 'supporting' }], 'characters.1.character_id');
    await rejected('characters', [{ character_id: c.id, role: 'lead' }], 'characters.0.role');
    await rejected('characters', [{ character_id: c.id, role: 'main', voice_actors: [] }], 'characters.0.voice_actors');
    await rejected('characters', [{ character_id: 'nosuchcharacter', role: 'main' }], 'characters.0.character_id');
  });

  it('fields shared with animes: names, texts, URLs, genre and theme ids, pictures', async () => {
    expect(await stored('name_jpn', null)).toBe('');
    await rejected('name_jpn', 'x'.repeat(256));
    await rejected('alternative_names', ['A', 'A'], 'alternative_names.1');
    await rejected('synopsis', 'x'.repeat(10_001));
    await rejected('background', 'x'.repeat(5_001));
    await rejected('image', 'http://img.example.org/a.png');
    expect(await stored('website', 'http://example.org/')).toBe('http://example.org/');
    const theme = await record('themes');
    await rejected('genre_ids', [theme.id], 'genre_ids.0');
    await rejected('theme_ids', Array.from({ length: 21 }, (_, i) => `t${i}`));
    await rejected('pictures', [{ url: 'https://a.org/1.png' }, { url: 'https://a.org/1.png' }], 'pictures.1.url');
  });

  it('unknown and read-only fields → 400; every error is reported together', async () => {
    for (const field of ['id', 'score', 'members', 'genres', 'authors_ids', 'aired_from', 'episodes']) await rejected(field, field === 'score' ? 5 : []);
    const res = await post({ name: '', media_type: 'tv', chapters: 0, volumes: 1.5, demographic_ids: ['x', 'x'], authors: [{ person_id: 'p', role: 'x' }], score: 1 });
    expectErrors(res, 400, 'validation-error', ['name', 'media_type', 'chapters', 'volumes', 'demographic_ids.1', 'authors.0.role', 'score']);
    const refs = await post(valid({ published_to: '2000-01-01', genre_ids: ['nosuchgenre'], authors: [{ person_id: 'nosuchperson', role: 'art' }], characters: [{ character_id: 'nosuchcharacter', role: 'main' }] }));
    expectErrors(refs, 400, 'validation-error', ['published_to', 'genre_ids.0', 'authors.0.person_id', 'characters.0.character_id']);
  });
});

describe('one manga: PUT, PATCH, DELETE', () => {
  it('PUT replaces every writable field: omitted ones take their defaults, relations become []', async () => {
    const [g, d, mag, p, c] = [await record('genres'), await record('demographics'), await record('magazines'), await record('persons'), await record('characters')];
    const m = await make({
      name_jpn: 'ベルセルク', alternative_names: ['B'], synopsis: 's', media_type: 'manhwa', status: 'on_hiatus', chapters: 10, volumes: 2,
      published_from: '1989-08-25', website: 'https://b.example.org/', genre_ids: [g.id], demographic_ids: [d.id], magazine_ids: [mag.id],
      authors: [{ person_id: p.id, role: 'story_and_art' }], characters: [{ character_id: c.id, role: 'main' }], pictures: [{ url: 'https://img.example.org/b.png' }],
    });
    const put = expectJson(await write('PUT', m.id, { name: m.name }), 200);
    expect(put).toEqual({
      ...m, updated_at: put.updated_at, name_jpn: '', alternative_names: [], synopsis: '', media_type: 'manga', status: 'upcoming', chapters: null, volumes: null,
      published_from: null, website: null, genres: [], demographics: [], serializations: [], authors: [],
    });
    expect(put.updated_at > m.updated_at).toBe(true);
    expect(await charactersOf(m.id)).toEqual([]);
    expect((await get(`/api/mangas/${m.id}/pictures/`)).count).toBe(0);
    expect(await get(item(m.id))).toEqual(put);
  });

  it('PATCH changes only the fields given; {} changes nothing; If-Match guards PUT, PATCH and DELETE (412)', async () => {
    const res = await post(valid({ chapters: 5 }));
    const m = expectJson(res, 201);
    const etag = res.headers.get('etag')!;
    expect(expectJson(await write('PATCH', m.id, {}, { 'if-match': etag }), 200)).toEqual(m);
    for (const method of ['PUT', 'PATCH', 'DELETE']) {
      expectProblem(await write(method, m.id, method === 'DELETE' ? undefined : { name: m.name, volumes: 3 }, { 'if-match': '"nope"' }), 412, 'precondition-failed');
    }
    expect(await get(item(m.id))).toEqual(m);
    const patched = await write('PATCH', m.id, { volumes: 3 }, { 'if-match': etag });
    expect(expectJson(patched, 200)).toEqual({ ...m, volumes: 3, updated_at: patched.body.updated_at });
    expect(patched.headers.get('etag')).not.toBe(etag);
    expectProblem(await write('DELETE', m.id, undefined, { 'if-match': etag }), 412, 'precondition-failed');
    expect((await write('DELETE', m.id, undefined, { 'if-match': patched.headers.get('etag')! })).status).toBe(204);
    expectProblem(await send(server, 'GET', item(m.id)), 404, 'not-found');
    for (const method of ['PUT', 'PATCH', 'DELETE']) expectProblem(await write(method, m.id, method === 'DELETE' ? undefined : { name: m.name }), 404, 'not-found');
    expectProblem(await send(server, 'GET', '/api/mangas/nosuchmanga/'), 404, 'not-found');
  });

  it('an anime id is no manga id (404)', async () => {
    const anime = expectJson(await post({ name: uniqueName('Anime') }, '/api/animes/'), 201);
    expectProblem(await send(server, 'GET', item(anime.id)), 404, 'not-found');
    expectProblem(await write('PATCH', anime.id, {}), 404, 'not-found');
  });
});

describe('manga_count of linked records (exact at once)', () => {
  it('genres, themes, demographics and magazines count their mangas on create, replace (links removed) and delete', async () => {
    const [g1, g2, t, d, mag] = [await record('genres'), await record('genres'), await record('themes'), await record('demographics'), await record('magazines')];
    const links = { genre_ids: [g1.id, g2.id], theme_ids: [t.id], demographic_ids: [d.id], magazine_ids: [mag.id] };
    const a = await make(links);
    const b = await make(links);
    for (const [segment, r] of [['genres', g1], ['genres', g2], ['themes', t], ['demographics', d], ['magazines', mag]] as const) expect(await count(segment, r.id), segment).toBe(2);
    expect((await get(`/api/genres/${g1.id}/`)).anime_count).toBe(0);

    expectJson(await write('PUT', a.id, { name: a.name, genre_ids: [g1.id] }), 200);
    expect([await count('genres', g1.id), await count('genres', g2.id), await count('themes', t.id), await count('demographics', d.id), await count('magazines', mag.id)]).toEqual([2, 1, 1, 1, 1]);
    expectJson(await write('PATCH', b.id, { magazine_ids: [] }), 200);
    expect(await count('magazines', mag.id)).toBe(0);

    expect((await write('DELETE', b.id)).status).toBe(204);
    expect([await count('genres', g1.id), await count('genres', g2.id), await count('themes', t.id), await count('demographics', d.id)]).toEqual([1, 0, 0, 0]);
    expect((await write('DELETE', a.id)).status).toBe(204);
    expect(await count('genres', g1.id)).toBe(0);
  });

  it('the manga_count orderings of demographics and magazines follow within seconds', async () => {
    const [d, mag] = [await record('demographics'), await record('magazines')];
    await make({ demographic_ids: [d.id], magazine_ids: [mag.id] });
    await make({ demographic_ids: [d.id], magazine_ids: [mag.id] });
    for (const [segment, r] of [['demographics', d], ['magazines', mag]] as const) {
      for (let i = 0; ; i++) {
        const top = await get(`/api/${segment}/?ordering=-manga_count&limit=100`);
        const mine = top.results.findIndex((x: { id: string }) => x.id === r.id);
        if (mine >= 0 && top.results.slice(0, mine).every((x: { manga_count: number }) => x.manga_count >= 2) && top.results[mine].manga_count === 2) break;
        if (i > 100) throw new Error(`the manga_count ordering of ${segment} did not follow`);
        await new Promise((res) => setTimeout(res, 100));
      }
    }
  });
});

describe('list', () => {
  it('q searches name, name_jpn, name_rom and alternative_names by word prefix; count null with q, exact without', async () => {
    const word = `zq${Math.random().toString(36).slice(2, 8)}`;
    const made = [
      await make({ name: `${word} Alpha` }),
      await make({ name_rom: `${word} Beta` }),
      await make({ alternative_names: [`Gamma ${word}`] }),
      await make({ name_jpn: `${word}の巨人` }),
    ];
    const found = await walk(server, `/api/mangas/?q=${word.slice(0, 5)}&limit=2`);
    expect(ids(found.results).sort()).toEqual(ids(made).sort());
    expect(found.pages[0]!.body.count).toBeNull();
    expect((await walk(server, `/api/mangas/?q=${word}%20alp`)).results.map((r: { name: string }) => r.name)).toEqual([`${word} Alpha`]);
    const all = await walk(server, '/api/mangas/?limit=100');
    expect((await get('/api/mangas/?limit=1')).count).toBe(all.results.length);
    expect((await get('/api/mangas/?q=!!&limit=1')).count).toBe(all.results.length);
  });

  it('each filter: media_type, status, genre, theme, demographic, magazine, author (any role), min_score; combined with AND', async () => {
    const [g, t, d, mag, p, other] = [await record('genres'), await record('themes'), await record('demographics'), await record('magazines'), await record('persons'), await record('persons')];
    const x = await make({ media_type: 'oel', status: 'discontinued', genre_ids: [g.id], theme_ids: [t.id], authors: [{ person_id: p.id, role: 'art' }] });
    const y = await make({ media_type: 'oel', demographic_ids: [d.id], magazine_ids: [mag.id], authors: [{ person_id: other.id, role: 'story' }, { person_id: p.id, role: 'story_and_art' }] });
    const z = await make({ genre_ids: [g.id], demographic_ids: [d.id] });
    const list = async (query: string) => {
      const w = await walk(server, `/api/mangas/?${query}&limit=100`);
      expect(w.pages[0]!.body.count, query).toBeNull();
      return ids(w.results).filter((i) => [x.id, y.id, z.id].includes(i)).sort();
    };
    expect(await list('media_type=oel')).toEqual([x.id, y.id].sort());
    expect(await list('status=discontinued')).toEqual([x.id]);
    expect(await list(`genre=${g.id}`)).toEqual([x.id, z.id].sort());
    expect(await list(`theme=${t.id}`)).toEqual([x.id]);
    expect(await list(`demographic=${d.id}`)).toEqual([y.id, z.id].sort());
    expect(await list(`magazine=${mag.id}`)).toEqual([y.id]);
    expect(await list(`author=${p.id}`)).toEqual([x.id, y.id].sort());
    expect(await list(`author=${other.id}`)).toEqual([y.id]);
    expect(await list(`genre=${g.id}&demographic=${d.id}`)).toEqual([z.id]);
    expect(await list(`media_type=oel&author=${p.id}&status=upcoming`)).toEqual([y.id]);
    // Unscored mangas never match a min_score, not even 0.
    expect(await list('min_score=0')).toEqual([]);
  });

  it('invalid filters and orderings → 400 invalid-query', async () => {
    const [g, p] = [await record('genres'), await record('persons')];
    for (const param of ['genre', 'theme', 'demographic', 'magazine', 'author']) {
      expectErrors(await send(server, 'GET', `/api/mangas/?${param}=nosuchrecord`), 400, 'invalid-query', [param]);
    }
    expectErrors(await send(server, 'GET', `/api/mangas/?theme=${g.id}`), 400, 'invalid-query', ['theme']);
    expectErrors(await send(server, 'GET', `/api/mangas/?genre=${p.id}`), 400, 'invalid-query', ['genre']);
    for (const [param, value] of [['media_type', 'tv'], ['status', 'airing'], ['min_score', '11'], ['min_score', '7.555'], ['ordering', 'aired_from'], ['ordering', 'name,score'], ['season', 'winter'], ['studio', g.id]]) {
      expectErrors(await send(server, 'GET', `/api/mangas/?${param}=${value}`), 400, 'invalid-query', [param!]);
    }
  });

  it('orderings: name (default), published_from with nulls last both ways, created_at, updated_at, and the derived numbers', async () => {
    const g = await record('genres');
    const made = [
      await make({ name: `Órder ${uniqueName('b')}`, genre_ids: [g.id], published_from: '2001-01-01' }),
      await make({ name: `order ${uniqueName('a')}`, genre_ids: [g.id] }),
      await make({ name: `Order ${uniqueName('c')}`, genre_ids: [g.id], published_from: '1999-05-05' }),
    ];
    expectJson(await write('PATCH', made[0]!.id, { synopsis: 'touched' }), 200);
    const current = await Promise.all(made.map((m) => get(item(m.id))));
    for (const key of ['name', 'published_from', 'created_at', 'updated_at', 'score', 'members', 'favorites', 'rank', 'popularity']) {
      for (const descending of [false, true]) {
        const got = await walk(server, `/api/mangas/?genre=${g.id}&ordering=${descending ? '-' : ''}${key}&limit=2`);
        expect(ids(got.results), `${descending ? '-' : ''}${key}`).toEqual(ids(expectedOrder(current, key, descending)));
      }
    }
    expect(ids((await walk(server, `/api/mangas/?genre=${g.id}`)).results)).toEqual(ids(expectedOrder(current, 'name', false)));
  });

  it('sparse fields', async () => {
    const m = await make();
    const page = await get(`/api/mangas/?q=${encodeURIComponent(m.name)}&fields=name,authors`);
    expect(page.results).toEqual([{ id: m.id, name: m.name, authors: [] }]);
    expectErrors(await send(server, 'GET', '/api/mangas/?fields=episodes'), 400, 'invalid-query', ['fields']);
  });
});

describe('pictures/', () => {
  it('lists written pictures by position (default) and created_at, count exact; ids kept by url; 404 for an unknown or deleted manga', async () => {
    const m = await make({ pictures: [{ url: 'https://p.example/1' }, { url: 'https://p.example/2', name: 'two' }, { url: 'https://p.example/3' }] });
    const all = await walk(server, `/api/mangas/${m.id}/pictures/?limit=2`);
    expect(all.results.map((p: { url: string }) => p.url)).toEqual(['https://p.example/1', 'https://p.example/2', 'https://p.example/3']);
    expect(all.pages[0]!.body.count).toBe(3);
    expect(Object.keys(all.results[0])).toEqual(['id', 'name', 'url', 'width', 'height', 'created_at', 'updated_at']);
    expect(all.results[1]).toMatchObject({ name: 'two', width: null, height: null, created_at: m.created_at });
    expect((await walk(server, `/api/mangas/${m.id}/pictures/?ordering=-position`)).results.map((p: { url: string }) => p.url)).toEqual(['https://p.example/3', 'https://p.example/2', 'https://p.example/1']);
    expect((await get(`/api/mangas/${m.id}/pictures/?ordering=-created_at&fields=url`)).results).toHaveLength(3);
    expectJson(await write('PATCH', m.id, { pictures: [{ url: 'https://p.example/4' }, { url: 'https://p.example/2', name: 'deux' }] }), 200);
    const after = (await get(`/api/mangas/${m.id}/pictures/`)).results;
    expect(after.map((p: { url: string }) => p.url)).toEqual(['https://p.example/4', 'https://p.example/2']);
    expect(after[1]).toMatchObject({ id: all.results[1].id, created_at: all.results[1].created_at, name: 'deux' });
    expectErrors(await send(server, 'GET', `/api/mangas/${m.id}/pictures/?ordering=name`), 400, 'invalid-query', ['ordering']);
    expectProblem(await send(server, 'GET', '/api/mangas/nosuchmanga/pictures/'), 404, 'not-found');
    expect((await write('DELETE', m.id)).status).toBe(204);
    expectProblem(await send(server, 'GET', `/api/mangas/${m.id}/pictures/`), 404, 'not-found');
  });
});

describe('GET /api/genres/{id}/mangas/', () => {
  it('the mangas of the genre in the orderings of the manga list (default name), count exact; they leave when unlinked or deleted', async () => {
    const [g, other] = [await record('genres'), await record('genres')];
    const made = [
      await make({ name: `Genre list ${uniqueName('c')}`, genre_ids: [other.id, g.id], published_from: '2003-03-03' }),
      await make({ name: `genre list ${uniqueName('a')}`, genre_ids: [g.id] }),
      await make({ name: `Genre list ${uniqueName('b')}`, genre_ids: [g.id], published_from: '1990-01-01' }),
    ];
    await make({ genre_ids: [other.id] });
    const path = `/api/genres/${g.id}/mangas/`;
    const byName = await walk(server, `${path}?limit=2`);
    expect(ids(byName.results)).toEqual(ids(expectedOrder(made, 'name', false)));
    expect(byName.pages.map((p) => p.body.count)).toEqual([3, 3]);
    expect(byName.results[0]).toEqual(await get(item(byName.results[0].id)));
    expect(ids((await walk(server, `${path}?ordering=-published_from`)).results)).toEqual(ids(expectedOrder(made, 'published_from', true)));
    expect((await get(`${path}?fields=name`)).results[0]).toEqual({ id: byName.results[0].id, name: byName.results[0].name });

    expectJson(await write('PATCH', made[0]!.id, { genre_ids: [other.id] }), 200);
    expect((await write('DELETE', made[1]!.id)).status).toBe(204);
    const left = await get(path);
    expect(ids(left.results)).toEqual([made[2]!.id]);
    expect(left.count).toBe(1);
    expect(left.count).toBe(await count('genres', g.id));
    expect((await get(`/api/genres/${other.id}/mangas/`)).count).toBe(2);
  });

  it('an empty genre gives an empty page; 404 for an unknown or deleted genre or another kind’s id; only ordering is accepted', async () => {
    const g = await record('genres');
    expect(await get(`/api/genres/${g.id}/mangas/`)).toEqual({ count: 0, next: null, previous: null, results: [] });
    const theme = await record('themes');
    expectProblem(await send(server, 'GET', `/api/genres/${theme.id}/mangas/`), 404, 'not-found');
    expectProblem(await send(server, 'GET', '/api/genres/nosuchgenre/mangas/'), 404, 'not-found');
    for (const query of ['ordering=aired_from', 'q=x', 'genre=x', 'offset=2']) {
      expectProblem(await send(server, 'GET', `/api/genres/${g.id}/mangas/?${query}`), 400, 'invalid-query');
    }
    expect((await send(server, 'DELETE', `/api/genres/${g.id}/`, { headers: auth })).status).toBe(204);
    expectProblem(await send(server, 'GET', `/api/genres/${g.id}/mangas/`), 404, 'not-found');
  });

  it('a signed-in caller gets the same page', async () => {
    const g = await record('genres');
    const m = await make({ genre_ids: [g.id] });
    const page = expectJson(await send(server, 'GET', `/api/genres/${g.id}/mangas/`, { headers: users.member }), 200);
    expect(page).toMatchObject({ count: 1, results: [{ id: m.id }] });
  });
});

describe('who may write', () => {
  it('anonymous → 401, a member → 403 on every write; nothing changes', async () => {
    const g = await record('genres');
    const m = await make({ genre_ids: [g.id] });
    const body = { name: uniqueName('Denied'), genre_ids: [g.id] };
    for (const [method, path] of [['POST', '/api/mangas/'], ['PUT', item(m.id)], ['PATCH', item(m.id)], ['DELETE', item(m.id)]] as const) {
      expectProblem(await send(server, method, path, { body }), 401, 'authentication-required');
      expectProblem(await send(server, method, path, { body, headers: users.member }), 403, 'forbidden');
    }
    expect(await get(item(m.id))).toEqual(m);
    expect((await walk(server, `/api/mangas/?q=${encodeURIComponent(body.name)}`)).results).toEqual([]);
    expect(await count('genres', g.id)).toBe(1);
    // Every writer role may write.
    for (const role of ['contributor', 'moderator', 'administrator'] as const) {
      expectJson(await send(server, 'PATCH', item(m.id), { body: { synopsis: role }, headers: users[role] }), 200);
    }
  });
});

/**
 * Animes (API.md §3.3, §4.1.1): the write shape, derived fields, references and the counts of
 * the records they link, the list's filters, search and orderings.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrors, expectJson, expectProblem, send, uniqueName, walk } from '../support/contract.js';
import { useServer } from '../support/server.js';

const server = useServer();
let auth: Record<string, string>;
beforeAll(async () => {
  auth = (await server.user('contributor')).auth;
});

const post = (path: string, body: Record<string, unknown>) => send(server, 'POST', path, { body, headers: auth });
const anime = (extra: Record<string, unknown> = {}) => ({ name: uniqueName('Anime'), ...extra });
async function taxonomy(segment: string, extra: Record<string, unknown> = {}) {
  return expectJson(await post(`/api/${segment}/`, { name: uniqueName(segment), ...extra }), 201);
}
const get = async (path: string) => expectJson(await send(server, 'GET', path), 200);

describe('create and read', () => {
  it('applies defaults and derives season, year and trailer_url', async () => {
    const body = anime({
      aired_from: '2013-04-07',
      videos: [
        { title: 'PV', url: 'https://video.example/pv' },
        { title: 'Trailer', url: 'https://video.example/t', kind: 'trailer' },
      ],
    });
    const res = await post('/api/animes/', body);
    const a = expectJson(res, 201);
    expect(res.headers.get('location')).toMatch(new RegExp(`/api/animes/${a.id}/$`));
    expect(a).toMatchObject({
      name: body.name,
      name_jpn: '',
      alternative_names: [],
      media_type: 'tv',
      status: 'upcoming',
      season: 'spring',
      year: 2013,
      broadcast: null,
      next_episode: null,
      genres: [],
      trailer_url: 'https://video.example/t',
      score: null,
      scored_by: 0,
      members: 0,
      rank: null,
    });
    expect(Object.keys(a)).not.toContain('videos');
    expect(await get(`/api/animes/${a.id}/`)).toEqual(a);
  });

  it('names are unique case-insensitively → 409 with existing_id', async () => {
    const a = expectJson(await post('/api/animes/', anime()), 201);
    const res = await post('/api/animes/', { name: ` ${a.name.toUpperCase()} ` });
    expect(expectErrors(res, 409, 'conflict', ['name']).existing_id).toBe(a.id);
  });

  it('checks cross-field rules and references, all errors at once', async () => {
    const studio = await taxonomy('producers', { type: 'licensor' });
    const res = await post('/api/animes/', anime({ aired_to: '2020-01-01', genre_ids: ['nope'], studio_ids: [studio.id], characters: [{ character_id: 'x', role: 'main' }] }));
    expectErrors(res, 400, 'validation-error', ['aired_to', 'genre_ids.0', 'studio_ids.0', 'characters.0.character_id']);
  });

  it('broadcast needs a time on weekdays and a known time zone', async () => {
    expectErrors(await post('/api/animes/', anime({ broadcast: { day: 'monday' } })), 400, 'validation-error', ['broadcast.time']);
    expectErrors(await post('/api/animes/', anime({ broadcast: { day: 'other', timezone: 'Mars/Base' } })), 400, 'validation-error', ['broadcast.timezone']);
    const a = expectJson(await post('/api/animes/', anime({ broadcast: { day: 'monday', time: '23:30' } })), 201);
    expect(a.broadcast).toEqual({ day: 'monday', time: '23:30', timezone: 'Asia/Tokyo' });
  });
});

describe('links and counts', () => {
  it('keeps genres in written order with names, and anime_count exact on create, replace and delete', async () => {
    const [g1, g2] = [await taxonomy('genres'), await taxonomy('genres')];
    const studio = await taxonomy('producers', { type: 'studio' });
    const a = expectJson(await post('/api/animes/', anime({ genre_ids: [g2.id, g1.id], studio_ids: [studio.id], producer_ids: [studio.id] })), 201);
    expect(a.genres).toEqual([{ id: g2.id, name: g2.name }, { id: g1.id, name: g1.name }]);
    expect((await get(`/api/genres/${g1.id}/`)).anime_count).toBe(1);
    expect((await get(`/api/producers/${studio.id}/`)).anime_count).toBe(1);
    // A studio still credited cannot change type.
    expectErrors(await send(server, 'PATCH', `/api/producers/${studio.id}/`, { body: { type: 'network' }, headers: auth }), 409, 'conflict', ['type']);

    const put = expectJson(await send(server, 'PUT', `/api/animes/${a.id}/`, { body: { name: a.name, genre_ids: [g1.id] }, headers: auth }), 200);
    expect(put.genres).toEqual([{ id: g1.id, name: g1.name }]);
    expect(put.studios).toEqual([]);
    expect((await get(`/api/genres/${g2.id}/`)).anime_count).toBe(0);
    expect((await get(`/api/producers/${studio.id}/`)).anime_count).toBe(0);
    expectJson(await send(server, 'PATCH', `/api/producers/${studio.id}/`, { body: { type: 'network' }, headers: auth }), 200);

    expect((await send(server, 'DELETE', `/api/animes/${a.id}/`, { headers: auth })).status).toBe(204);
    expect((await get(`/api/genres/${g1.id}/`)).anime_count).toBe(0);
    expectProblem(await send(server, 'GET', `/api/animes/${a.id}/`), 404, 'not-found');
    expectProblem(await send(server, 'DELETE', `/api/animes/${a.id}/`, { headers: auth }), 404, 'not-found');
  });

  it('PATCH {} changes nothing; If-Match guards writes', async () => {
    const res = await post('/api/animes/', anime());
    const a = expectJson(res, 201);
    const etag = res.headers.get('etag')!;
    const same = await send(server, 'PATCH', `/api/animes/${a.id}/`, { body: {}, headers: { ...auth, 'if-match': etag } });
    expect(expectJson(same, 200)).toEqual(a);
    expectProblem(await send(server, 'PATCH', `/api/animes/${a.id}/`, { body: { synopsis: 'x' }, headers: { ...auth, 'if-match': '"nope"' } }), 412, 'precondition-failed');
    const changed = expectJson(await send(server, 'PATCH', `/api/animes/${a.id}/`, { body: { synopsis: 'x' }, headers: { ...auth, 'if-match': etag } }), 200);
    expect(changed.synopsis).toBe('x');
    expect(changed.updated_at > a.updated_at).toBe(true);
  });
});

describe('list', () => {
  it('filters by genre and year, searches by word prefix, orders by name', async () => {
    const genre = await taxonomy('genres');
    const word = `zq${Math.random().toString(36).slice(2, 8)}`;
    const made = [];
    for (const [i, year] of [2001, 2002, 2001].entries()) {
      made.push(expectJson(await post('/api/animes/', anime({ name: `${word} ${i}`, genre_ids: [genre.id], aired_from: `${year}-01-10`, name_jpn: '進撃の巨人' })), 201));
    }
    const byGenre = await walk(server, `/api/animes/?genre=${genre.id}&limit=2`);
    expect(byGenre.results.map((r: { id: string }) => r.id)).toEqual(made.map((m) => m.id));
    expect(byGenre.pages[0]!.body.count).toBeNull();
    const byYear = await walk(server, `/api/animes/?genre=${genre.id}&year=2001&ordering=-name`);
    expect(byYear.results.map((r: { name: string }) => r.name)).toEqual([`${word} 2`, `${word} 0`]);
    const searched = await walk(server, `/api/animes/?q=${word.slice(0, 4)}`);
    expect(searched.results.map((r: { id: string }) => r.id)).toEqual(made.map((m) => m.id));
    const cjk = await walk(server, `/api/animes/?q=${encodeURIComponent('巨人')}&genre=${genre.id}`);
    expect(cjk.results).toHaveLength(3);
    expectErrors(await send(server, 'GET', '/api/animes/?genre=unknownid'), 400, 'invalid-query', ['genre']);
  });

  it('count is exact without filters', async () => {
    const page = await get('/api/animes/?limit=1');
    const all = await walk(server, '/api/animes/?limit=100');
    expect(page.count).toBe(all.results.length);
  });
});

describe('videos/ and pictures/', () => {
  it('lists written videos by position (default), created_at and kind, count exact; 404 for an unknown anime', async () => {
    const videos = [
      { title: 'A', url: 'https://v.example/a', kind: 'promo' },
      { title: 'B', url: 'https://v.example/b', kind: 'trailer' },
      { title: 'C', url: 'https://v.example/c' },
    ];
    const a = expectJson(await post('/api/animes/', anime({ videos })), 201);
    const all = await walk(server, `/api/animes/${a.id}/videos/?limit=2`);
    expect(all.results.map((v: { title: string }) => v.title)).toEqual(['A', 'B', 'C']);
    expect(all.pages[0]!.body.count).toBe(3);
    expect(Object.keys(all.results[0]).sort()).toEqual(['created_at', 'id', 'kind', 'title', 'updated_at', 'url']);
    expect((await walk(server, `/api/animes/${a.id}/videos/?ordering=-position`)).results.map((v: { title: string }) => v.title)).toEqual(['C', 'B', 'A']);
    const trailers = await get(`/api/animes/${a.id}/videos/?kind=trailer`);
    expect(trailers.count).toBe(1);
    expect(trailers.results[0].title).toBe('B');
    expectProblem(await send(server, 'GET', '/api/animes/unknownanimeid/videos/'), 404, 'not-found');
    expectErrors(await send(server, 'GET', `/api/animes/${a.id}/videos/?kind=bogus`), 400, 'invalid-query', ['kind']);
  });

  it('pictures keep id and created_at by url across writes; removed ones are gone; a deleted anime → 404', async () => {
    const a = expectJson(await post('/api/animes/', anime({ pictures: [{ url: 'https://p.example/1' }, { url: 'https://p.example/2', name: 'two' }] })), 201);
    const before = (await get(`/api/animes/${a.id}/pictures/`)).results;
    expect(before.map((p: { name: string; width: null }) => [p.name, p.width])).toEqual([['', null], ['two', null]]);
    const patch = await send(server, 'PATCH', `/api/animes/${a.id}/`, { body: { pictures: [{ url: 'https://p.example/3' }, { url: 'https://p.example/2', name: 'deux' }] }, headers: auth });
    expectJson(patch, 200);
    const after = (await get(`/api/animes/${a.id}/pictures/`)).results;
    expect(after.map((p: { url: string }) => p.url)).toEqual(['https://p.example/3', 'https://p.example/2']);
    expect(after[1]).toMatchObject({ id: before[1].id, created_at: before[1].created_at, name: 'deux' });
    expect(after[1].updated_at > before[1].updated_at).toBe(true);
    expect(after.map((p: { id: string }) => p.id)).not.toContain(before[0].id);
    expect((await send(server, 'DELETE', `/api/animes/${a.id}/`, { headers: auth })).status).toBe(204);
    expectProblem(await send(server, 'GET', `/api/animes/${a.id}/pictures/`), 404, 'not-found');
  });
});

describe('taxonomy counts on their lists', () => {
  it('a genre page shows its anime_count at once; the anime_count ordering follows within seconds', async () => {
    const g = await taxonomy('genres');
    expectJson(await post('/api/animes/', anime({ genre_ids: [g.id] })), 201);
    expectJson(await post('/api/animes/', anime({ genre_ids: [g.id] })), 201);
    const page = await get(`/api/genres/?q=${encodeURIComponent(g.name)}`);
    expect(page.results.find((r: { id: string }) => r.id === g.id).anime_count).toBe(2);
    for (let i = 0; ; i++) {
      const top = await get('/api/genres/?ordering=-anime_count&limit=100');
      const mine = top.results.findIndex((r: { id: string }) => r.id === g.id);
      const before = top.results.slice(0, Math.max(mine, 0));
      if (mine >= 0 && before.every((r: { anime_count: number }) => r.anime_count >= 2)) break;
      if (i > 100) throw new Error('the anime_count ordering did not follow');
      await new Promise((r) => setTimeout(r, 100));
    }
  });
});

describe('who may write', () => {
  it('anonymous → 401, a member → 403 on every write; nothing changes', async () => {
    const a = expectJson(await post('/api/animes/', anime()), 201);
    const member = (await server.user('member')).auth;
    const body = { name: uniqueName('Denied') };
    for (const [method, path] of [['POST', '/api/animes/'], ['PUT', `/api/animes/${a.id}/`], ['PATCH', `/api/animes/${a.id}/`], ['DELETE', `/api/animes/${a.id}/`]] as const) {
      expectProblem(await send(server, method, path, { body }), 401, 'authentication-required');
      expectProblem(await send(server, method, path, { body, headers: member }), 403, 'forbidden');
    }
    expect(await get(`/api/animes/${a.id}/`)).toEqual(a);
    expect((await walk(server, `/api/animes/?q=${encodeURIComponent(body.name)}`)).results).toEqual([]);
  });
});

/**
 * The animes of a genre (API.md §4.4 `GET /api/genres/{id}/animes/`) and of a producer (§4.11
 * `GET /api/producers/{id}/animes/`): the orderings of `GET /api/animes/` with their defaults,
 * the producer's `role` filter and `producer_roles` (in the order studio, producer, licensor),
 * exact counts, pages, 404 for an unknown or deleted record, and animes leaving the lists when a
 * write removes the link or the anime is deleted.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { contractOrder } from '../support/list-rules.js';
import { expectErrors, expectJson, expectProblem, send, uniqueName, walk } from '../support/contract.js';
import { useServer } from '../support/server.js';

const server = useServer();
let auth: Record<string, string>;
beforeAll(async () => {
  auth = (await server.user('contributor')).auth;
});

const post = async (segment: string, body: Record<string, unknown>) => expectJson(await send(server, 'POST', `/api/${segment}/`, { body, headers: auth }), 201);
const anime = (extra: Record<string, unknown>) => post('animes', { name: uniqueName('Linked anime'), ...extra });
const get = async (path: string) => expectJson(await send(server, 'GET', path), 200);
const ids = (page: { results: { id: string }[] }) => page.results.map((r) => r.id);

describe('GET /api/genres/{id}/animes/', () => {
  it('the animes having the genre, by name (default) or any anime ordering; exact count = anime_count; pages; fields', async () => {
    const g = await post('genres', { name: uniqueName('Genre') });
    const other = await post('genres', { name: uniqueName('Genre') });
    const a = await anime({ name: uniqueName('Zeta'), genre_ids: [g.id], aired_from: '2001-01-01' });
    const b = await anime({ name: uniqueName('alpha'), genre_ids: [other.id, g.id], aired_from: '2010-05-01' });
    const c = await anime({ name: uniqueName('Mid'), genre_ids: [g.id] });
    await anime({ genre_ids: [other.id] });
    await anime({});

    const page = await get(`/api/genres/${g.id}/animes/`);
    expect(Object.keys(page)).toEqual(['count', 'next', 'previous', 'results']);
    expect(page.count).toBe(3);
    expect((await get(`/api/genres/${g.id}/`)).anime_count).toBe(3);
    const byName = contractOrder([a, b, c], (x) => x.name, 'text', false);
    expect(ids(page)).toEqual(byName.map((x) => x.id));
    expect(page.results.find((r: { id: string }) => r.id === b.id)).toEqual(await get(`/api/animes/${b.id}/`));
    // aired_from descending, nulls last; created_at.
    expect(ids(await get(`/api/genres/${g.id}/animes/?ordering=-aired_from`))).toEqual([b.id, a.id, c.id]);
    expect(ids(await get(`/api/genres/${g.id}/animes/?ordering=aired_from`))).toEqual([a.id, b.id, c.id]);
    expect(ids(await get(`/api/genres/${g.id}/animes/?ordering=created_at`))).toEqual([a.id, b.id, c.id]);
    const { results, pages } = await walk(server, `/api/genres/${g.id}/animes/?limit=1&ordering=-created_at`);
    expect(results.map((r) => r.id)).toEqual([c.id, b.id, a.id]);
    expect(pages.every((p) => p.body.count === 3)).toBe(true);
    expect((await get(`/api/genres/${g.id}/animes/?fields=name`)).results[0]).toEqual({ id: byName[0]!.id, name: byName[0]!.name });
  });

  it('an anime leaves the list after a PUT that drops the genre and after its deletion; the count follows', async () => {
    const g = await post('genres', { name: uniqueName('Genre') });
    const a = await anime({ genre_ids: [g.id] });
    const b = await anime({ genre_ids: [g.id] });
    const c = await anime({ genre_ids: [g.id] });
    expectJson(await send(server, 'PUT', `/api/animes/${a.id}/`, { body: { name: a.name }, headers: auth }), 200);
    let page = await get(`/api/genres/${g.id}/animes/`);
    expect(page.count).toBe(2);
    expect(ids(page).sort()).toEqual([b.id, c.id].sort());
    expect((await send(server, 'DELETE', `/api/animes/${b.id}/`, { headers: auth })).status).toBe(204);
    page = await get(`/api/genres/${g.id}/animes/`);
    expect(page).toMatchObject({ count: 1, next: null, previous: null });
    expect(ids(page)).toEqual([c.id]);
  });

  it('empty genre → empty page; unknown or deleted genre → 404; bad ordering or unknown parameter → 400', async () => {
    const g = await post('genres', { name: uniqueName('Genre') });
    expect(await get(`/api/genres/${g.id}/animes/`)).toEqual({ count: 0, next: null, previous: null, results: [] });
    expectProblem(await send(server, 'GET', '/api/genres/nosuchgenre/animes/'), 404, 'not-found');
    const t = await post('themes', { name: uniqueName('Theme') });
    expectProblem(await send(server, 'GET', `/api/genres/${t.id}/animes/`), 404, 'not-found');
    expectErrors(await send(server, 'GET', `/api/genres/${g.id}/animes/?ordering=manga_count`), 400, 'invalid-query', ['ordering']);
    expectErrors(await send(server, 'GET', `/api/genres/${g.id}/animes/?role=studio`), 400, 'invalid-query', ['role']);
    expect((await send(server, 'DELETE', `/api/genres/${g.id}/`, { headers: auth })).status).toBe(204);
    expectProblem(await send(server, 'GET', `/api/genres/${g.id}/animes/`), 404, 'not-found');
  });
});

describe('GET /api/producers/{id}/animes/', () => {
  it('animes crediting the producer in any role, with producer_roles in the order studio, producer, licensor; by -aired_from by default', async () => {
    const s = await post('producers', { name: uniqueName('Studio'), type: 'studio' });
    const l = await post('producers', { name: uniqueName('Licensor'), type: 'licensor' });
    const p = await post('producers', { name: uniqueName('Sponsor'), type: 'sponsor' });
    const a1 = await anime({ studio_ids: [s.id], producer_ids: [p.id, s.id], aired_from: '2005-01-01' });
    const a2 = await anime({ producer_ids: [p.id], licensor_ids: [l.id], aired_from: '2015-01-01' });
    const a3 = await anime({ licensor_ids: [l.id], producer_ids: [l.id] });
    const a4 = await anime({ studio_ids: [s.id], aired_from: '2020-02-02' });

    const studio = await get(`/api/producers/${s.id}/animes/`);
    expect(studio.count).toBe(2);
    expect(studio.results.map((r: { id: string; producer_roles: string[] }) => [r.id, r.producer_roles])).toEqual([
      [a4.id, ['studio']],
      [a1.id, ['studio', 'producer']],
    ]);
    const { producer_roles: roles, ...anime1 } = studio.results[1];
    expect(roles).toEqual(['studio', 'producer']);
    expect(anime1).toEqual(await get(`/api/animes/${a1.id}/`));
    expect(Object.keys(studio.results[1]).at(-1)).toBe('producer_roles');

    const licensor = await get(`/api/producers/${l.id}/animes/`);
    expect(licensor.results.map((r: { id: string; producer_roles: string[] }) => [r.id, r.producer_roles])).toEqual([
      [a2.id, ['licensor']],
      [a3.id, ['producer', 'licensor']],
    ]);
    expect(ids(await get(`/api/producers/${p.id}/animes/`))).toEqual([a2.id, a1.id]);
    expect(ids(await get(`/api/producers/${p.id}/animes/?ordering=aired_from`))).toEqual([a1.id, a2.id]);
    expect(ids(await get(`/api/producers/${s.id}/animes/?ordering=name`))).toEqual(contractOrder([a1, a4], (x) => x.name, 'text', false).map((x) => x.id));
    expect((await get(`/api/producers/${s.id}/animes/?fields=producer_roles`)).results[0]).toEqual({ id: a4.id, producer_roles: ['studio'] });
  });

  it('role: only animes crediting it in that role, with exact counts per role', async () => {
    const s = await post('producers', { name: uniqueName('Studio'), type: 'studio' });
    const a1 = await anime({ studio_ids: [s.id], producer_ids: [s.id], aired_from: '2005-01-01' });
    const a2 = await anime({ studio_ids: [s.id], aired_from: '2006-01-01' });
    const a3 = await anime({ producer_ids: [s.id], aired_from: '2007-01-01' });
    const list = (q: string) => get(`/api/producers/${s.id}/animes/${q}`);
    expect(await list('')).toMatchObject({ count: 3 });
    expect(ids(await list(''))).toEqual([a3.id, a2.id, a1.id]);
    expect(await list('?role=studio')).toMatchObject({ count: 2 });
    expect(ids(await list('?role=studio'))).toEqual([a2.id, a1.id]);
    expect(await list('?role=producer')).toMatchObject({ count: 2 });
    expect(ids(await list('?role=producer'))).toEqual([a3.id, a1.id]);
    expect(await list('?role=licensor')).toEqual({ count: 0, next: null, previous: null, results: [] });
    // producer_roles lists every role of the anime, whatever the filter.
    expect((await list('?role=producer')).results[1].producer_roles).toEqual(['studio', 'producer']);
    const { results, pages } = await walk(server, `/api/producers/${s.id}/animes/?role=producer&limit=1`);
    expect(results.map((r) => r.id)).toEqual([a3.id, a1.id]);
    expect(pages.every((p) => p.body.count === 2)).toBe(true);

    // A PUT that drops one credit: the anime leaves that role's list only.
    expectJson(await send(server, 'PUT', `/api/animes/${a1.id}/`, { body: { name: a1.name, aired_from: '2005-01-01', studio_ids: [s.id] }, headers: auth }), 200);
    expect(ids(await list('?role=producer'))).toEqual([a3.id]);
    expect((await list('?role=producer')).count).toBe(1);
    expect(ids(await list('?role=studio'))).toEqual([a2.id, a1.id]);
    expect((await list('?role=studio')).results[1].producer_roles).toEqual(['studio']);
    // A PATCH that drops every credit, then a deletion.
    expectJson(await send(server, 'PATCH', `/api/animes/${a3.id}/`, { body: { producer_ids: [] }, headers: auth }), 200);
    expect((await send(server, 'DELETE', `/api/animes/${a2.id}/`, { headers: auth })).status).toBe(204);
    expect(await list('')).toMatchObject({ count: 1 });
    expect(ids(await list(''))).toEqual([a1.id]);
    expect(await list('?role=producer')).toMatchObject({ count: 0, results: [] });
    expect((await get(`/api/producers/${s.id}/`)).anime_count).toBe(1);
  });

  it('unknown or deleted producer → 404; bad role or ordering → 400', async () => {
    const s = await post('producers', { name: uniqueName('Studio'), type: 'studio' });
    expectProblem(await send(server, 'GET', '/api/producers/nosuchproducer/animes/'), 404, 'not-found');
    for (const q of ['role=Studio', 'role=author', 'role=', 'role=studio&role=producer']) {
      expectErrors(await send(server, 'GET', `/api/producers/${s.id}/animes/?${q}`), 400, 'invalid-query', ['role']);
    }
    expectErrors(await send(server, 'GET', `/api/producers/${s.id}/animes/?ordering=established`), 400, 'invalid-query', ['ordering']);
    expectErrors(await send(server, 'GET', `/api/producers/${s.id}/animes/?q=x`), 400, 'invalid-query', ['q']);
    await anime({ studio_ids: [s.id] });
    expect((await send(server, 'DELETE', `/api/producers/${s.id}/`, { headers: auth })).status).toBe(204);
    expectProblem(await send(server, 'GET', `/api/producers/${s.id}/animes/`), 404, 'not-found');
  });
});

/**
 * External ids and where to watch (API.md §8.2): `external_ids` on animes and mangas (integers,
 * a MangaDex UUID), each (kind, site, value) unique among the kind's records (409 naming the
 * holder; a PATCH that gives one up frees it, so does a deletion), the lookup filters
 * (`mal_id=…`) combined with the others, and an anime's `streaming` links. The recount checks
 * every claim against the records.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectJson, expectProblem, send, uniqueName } from '../support/contract.js';
import { expectRecount } from '../support/recount.js';
import { useServer } from '../support/server.js';

const server = useServer();
type Obj = Record<string, any>;
let auth: Record<string, string>;
const post = (segment: string, body: Obj) => send(server, 'POST', `/api/${segment}/`, { body, headers: auth });
const created = async (segment: string, body: Obj) => expectJson(await post(segment, body), 201) as Obj;
const get = async (path: string) => expectJson(await send(server, 'GET', path), 200) as Obj;
const ids = (page: Obj) => (page.results as Obj[]).map((r) => r.id);
/** A site id no other test uses. */
const fresh = () => 100_000_000 + Math.floor(Math.random() * 900_000_000);

beforeAll(async () => {
  auth = (await server.user('contributor')).auth;
});
afterAll(async () => {
  await expectRecount();
}, 120_000);

describe('external_ids and streaming of animes', () => {
  it('are stored and shown; default {} and []', async () => {
    const [mal, anilist] = [fresh(), fresh()];
    const streaming = [{ site: 'Crunchyroll', url: 'https://www.crunchyroll.com/series/x' }, { site: 'Netflix', url: 'https://www.netflix.com/title/1' }];
    const a = await created('animes', { name: uniqueName('Ext'), external_ids: { mal, anilist }, streaming });
    expect(a.external_ids).toEqual({ mal, anilist });
    expect(a.streaming).toEqual(streaming);
    expect((await get(`/api/animes/${a.id}/`)).external_ids).toEqual({ mal, anilist });
    const plain = await created('animes', { name: uniqueName('Ext plain') });
    expect([plain.external_ids, plain.streaming]).toEqual([{}, []]);
  });

  it('a site id another anime holds → 409 under external_ids.<site> with existing_id; a manga may hold it', async () => {
    const mal = fresh();
    const a = await created('animes', { name: uniqueName('Holder'), external_ids: { mal } });
    const clash = expectProblem(await post('animes', { name: uniqueName('Clash'), external_ids: { mal, kitsu: fresh() } }), 409, 'conflict');
    expect(Object.keys(clash.errors)).toEqual(['external_ids.mal']);
    expect(clash.existing_id).toBe(a.id);
    await created('mangas', { name: uniqueName('Same id, another kind'), external_ids: { mal } });
  });

  it('a PATCH replaces the object: the ids it gives up are free at once; a deletion frees them too', async () => {
    const [mal, anidb] = [fresh(), fresh()];
    const a = await created('animes', { name: uniqueName('Giver'), external_ids: { mal, anidb } });
    const patched = expectJson(await send(server, 'PATCH', `/api/animes/${a.id}/`, { body: { external_ids: { anidb } }, headers: auth }), 200);
    expect(patched.external_ids).toEqual({ anidb });
    const taker = await created('animes', { name: uniqueName('Taker'), external_ids: { mal } });
    expect((await get(`/api/animes/?mal_id=${mal}`)).results.map((r: Obj) => r.id)).toEqual([taker.id]);
    expect((await send(server, 'DELETE', `/api/animes/${a.id}/`, { headers: auth })).status).toBe(204);
    await created('animes', { name: uniqueName('After deletion'), external_ids: { anidb } });
  });

  it.each([
    [{ external_ids: { myanimelist: 1 } }, 'external_ids.myanimelist'],
    [{ external_ids: { mal: '12' } }, 'external_ids.mal'],
    [{ external_ids: { mal: 0 } }, 'external_ids.mal'],
    [{ external_ids: { anilist: 1_000_000_001 } }, 'external_ids.anilist'],
    [{ external_ids: { mangadex: '1f1b2c3d-0000-4000-8000-000000000000' } }, 'external_ids.mangadex'],
    [{ streaming: [{ site: 'A', url: 'https://a.example/1' }, { site: 'B', url: 'https://a.example/1' }] }, 'streaming.1.url'],
    [{ streaming: [{ site: 'A', url: 'http://a.example/1' }] }, 'streaming.0.url'],
    [{ streaming: [{ site: '', url: 'https://a.example/1' }] }, 'streaming.0.site'],
  ])('%j → 400 under %s', async (body, field) => {
    const problem = expectProblem(await post('animes', { name: uniqueName('Bad'), ...body }), 400, 'validation-error');
    expect(Object.keys(problem.errors)).toEqual([field]);
  });

  it('more than 20 streaming links → 400', async () => {
    const streaming = Array.from({ length: 21 }, (_, i) => ({ site: 'S', url: `https://s.example/${i}` }));
    expect(Object.keys(expectProblem(await post('animes', { name: uniqueName('Many'), streaming }), 400, 'validation-error').errors)).toEqual(['streaming']);
  });
});

describe('mangas', () => {
  it('hold a MangaDex UUID (kept in lower case, found in any case); anidb is not a manga site', async () => {
    const uuid = crypto.randomUUID();
    const m = await created('mangas', { name: uniqueName('Dex'), external_ids: { mangadex: uuid.toUpperCase(), anilist: fresh() } });
    expect(m.external_ids.mangadex).toBe(uuid);
    expect(ids(await get(`/api/mangas/?mangadex_id=${uuid.toUpperCase()}`))).toEqual([m.id]);
    const problem = expectProblem(await post('mangas', { name: uniqueName('Dex bad'), external_ids: { anidb: 1 } }), 400, 'validation-error');
    expect(Object.keys(problem.errors)).toEqual(['external_ids.anidb']);
    expect(Object.keys(expectProblem(await post('mangas', { name: uniqueName('Dex dup'), external_ids: { mangadex: uuid } }), 409, 'conflict').errors)).toEqual(['external_ids.mangadex']);
  });
});

describe('lookup filters', () => {
  let a: Obj;
  const [mal, bangumi] = [fresh(), fresh()];
  beforeAll(async () => {
    a = await created('animes', { name: uniqueName('Looked up'), media_type: 'movie', external_ids: { mal, bangumi } });
  });

  it('mal_id and bangumi_id find the anime, alone or together, with count null', async () => {
    const page = await get(`/api/animes/?mal_id=${mal}`);
    expect([ids(page), page.count]).toEqual([[a.id], null]);
    expect(ids(await get(`/api/animes/?bangumi_id=${bangumi}&mal_id=${mal}`))).toEqual([a.id]);
  });

  it('combine with every other parameter: a filter it fails, another id, q', async () => {
    expect(ids(await get(`/api/animes/?mal_id=${mal}&media_type=movie&q=looked`))).toEqual([a.id]);
    expect(ids(await get(`/api/animes/?mal_id=${mal}&media_type=tv`))).toEqual([]);
    expect(ids(await get(`/api/animes/?mal_id=${mal}&bangumi_id=${fresh()}`))).toEqual([]);
    expect(ids(await get(`/api/animes/?mal_id=${mal}&ids=${a.id}`))).toEqual([a.id]);
  });

  it('an id nothing holds: an empty page; a malformed one: 400 under the parameter', async () => {
    expect(ids(await get(`/api/animes/?anilist_id=${fresh()}`))).toEqual([]);
    for (const [param, value] of [['mal_id', 'abc'], ['mal_id', '0'], ['kitsu_id', '10000000000'], ['mangadex_id', 'nope']] as const) {
      const path = param === 'mangadex_id' ? '/api/mangas/' : '/api/animes/';
      expect(Object.keys(expectProblem(await send(server, 'GET', `${path}?${param}=${value}`), 400, 'invalid-query').errors), `${param}=${value}`).toEqual([param]);
    }
  });
});

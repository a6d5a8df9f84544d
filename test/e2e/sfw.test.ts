/**
 * `sfw=true` (API.md §8.3) everywhere titles are listed: the anime and manga lists, their
 * sub-lists of titles, seasons, the schedule, top lists, random picks and recommendations leave
 * out every title rated `rx` or with an explicit genre or theme; `sfw=false` or absent changes
 * nothing; any other value is a 400. A genre's `explicit` shows in lists at once when its write
 * returns (the tombstone shards name the explicit genres and themes in the genre's own
 * transaction: the recount checks them), and a deleted explicit genre no longer excludes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunSummary } from '../../shared/domain/recommendations-job.js';
import { expectJson, expectProblem, send, uniqueName } from '../support/contract.js';
import { runJob } from '../support/jobs.js';
import { expectRecount } from '../support/recount.js';
import { useServer } from '../support/server.js';

const server = useServer();
type Obj = Record<string, any>;
let editor: Record<string, string>;
const post = async (path: string, body: Obj, auth = editor) => expectJson(await send(server, 'POST', path, { body, headers: auth }), 201) as Obj;
const patch = async (path: string, body: Obj) => expectJson(await send(server, 'PATCH', path, { body, headers: editor }), 200) as Obj;
const get = async (path: string, auth: Record<string, string> = {}) => expectJson(await send(server, 'GET', path, { headers: auth }), 200) as Obj;

/** The ids of every page of a list, following `next` (results may nest the title, as the schedule's do). */
async function allIds(path: string, auth: Record<string, string> = {}): Promise<string[]> {
  const out: string[] = [];
  let url: string | null = path;
  for (let n = 0; url && n < 200; n++) {
    const page = await get(url.replace(server.url, ''), auth);
    out.push(...(page.results as Obj[]).map((r) => (r.anime?.id ?? r.id) as string));
    url = page.next;
  }
  return out;
}

const tag = uniqueName('Sfw').replace(/\W/g, '');
let genre: Obj;
let safeGenre: Obj;
let theme: Obj;
/** Animes: rated rx, with the explicit genre, with the explicit theme, and two safe ones (one with the safe genre). */
const a: Record<'rx' | 'genre' | 'theme' | 'safe' | 'safe2', Obj> = {} as never;
const m: Record<'genre' | 'safe', Obj> = {} as never;
const explicitAnimes = () => [a.rx.id, a.genre.id, a.theme.id];

beforeAll(async () => {
  editor = (await server.user('contributor')).auth;
  genre = await post('/api/genres/', { name: `${tag} Hentai`, explicit: true });
  safeGenre = await post('/api/genres/', { name: `${tag} Comedy` });
  theme = await post('/api/themes/', { name: `${tag} Erotica`, explicit: true });
  const airing = { status: 'airing', aired_from: '2026-10-05', broadcast: { day: 'monday', time: '12:00', timezone: 'Asia/Tokyo' } };
  a.rx = await post('/api/animes/', { ...airing, name: `${tag} rated`, rating: 'rx', genre_ids: [safeGenre.id] });
  a.genre = await post('/api/animes/', { ...airing, name: `${tag} genre`, rating: 'r', genre_ids: [genre.id, safeGenre.id] });
  a.theme = await post('/api/animes/', { ...airing, name: `${tag} theme`, theme_ids: [theme.id] });
  a.safe = await post('/api/animes/', { ...airing, name: `${tag} safe`, rating: 'pg13', genre_ids: [safeGenre.id] });
  a.safe2 = await post('/api/animes/', { ...airing, name: `${tag} safe two` });
  m.genre = await post('/api/mangas/', { name: `${tag} manga genre`, genre_ids: [genre.id] });
  m.safe = await post('/api/mangas/', { name: `${tag} manga safe`, genre_ids: [safeGenre.id] });
}, 120_000);

afterAll(async () => {
  await expectRecount();
}, 120_000);

describe('genres and themes', () => {
  it('show `explicit` (default false); a value that is not a boolean is a 400; demographics have none', async () => {
    expect([genre.explicit, safeGenre.explicit, theme.explicit]).toEqual([true, false, true]);
    expect((await get(`/api/genres/${safeGenre.id}/`)).explicit).toBe(false);
    const bad = await send(server, 'POST', '/api/genres/', { body: { name: uniqueName('Bad'), explicit: 'yes' }, headers: editor });
    expect(Object.keys(expectProblem(bad, 400, 'validation-error').errors)).toEqual(['explicit']);
    const demographic = await send(server, 'POST', '/api/demographics/', { body: { name: uniqueName('Demo'), explicit: true }, headers: editor });
    expect(Object.keys(expectProblem(demographic, 400, 'validation-error').errors)).toEqual(['explicit']);
  });
});

describe('the anime and manga lists', () => {
  it('sfw=true leaves out rx, explicit genres and themes; false or absent leave everything; count null', async () => {
    const all = [a.rx.id, a.genre.id, a.theme.id, a.safe.id, a.safe2.id].sort();
    expect((await allIds(`/api/animes/?q=${tag}`)).sort()).toEqual(all);
    expect((await allIds(`/api/animes/?q=${tag}&sfw=false`)).sort()).toEqual(all);
    expect((await allIds(`/api/animes/?q=${tag}&sfw=true&limit=2`)).sort()).toEqual([a.safe.id, a.safe2.id].sort());
    expect((await get('/api/animes/?sfw=true')).count).toBeNull();
    expect(await allIds(`/api/mangas/?q=${tag}&sfw=true`)).toEqual([m.safe.id]);
    // Every other filter still applies.
    expect(await allIds(`/api/animes/?q=${tag}&sfw=true&genre=${safeGenre.id}`)).toEqual([a.safe.id]);
  });

  it.each(['yes', '1', 'TRUE', ''])('sfw=%s → 400 under errors.sfw', async (value) => {
    const res = await send(server, 'GET', `/api/animes/?sfw=${value}`);
    expect(Object.keys(expectProblem(res, 400, 'invalid-query').errors)).toEqual(['sfw']);
  });
});

describe('sub-lists, seasons and the schedule', () => {
  it('a genre’s and a producer’s animes, a genre’s mangas: sfw=true leaves the explicit out, count exact', async () => {
    const page = await get(`/api/genres/${safeGenre.id}/animes/?sfw=true`);
    expect(page.results.map((r: Obj) => r.id)).toEqual([a.safe.id]);
    expect(page.count).toBe(1);
    expect((await get(`/api/genres/${safeGenre.id}/animes/`)).count).toBe(3);
    expect((await get(`/api/genres/${genre.id}/mangas/?sfw=true`)).results).toEqual([]);
  });

  it('the season and the schedule', async () => {
    const season = await allIds('/api/seasons/2026/fall/?sfw=true&limit=100');
    expect(season).toContain(a.safe.id);
    for (const id of explicitAnimes()) expect(season).not.toContain(id);
    expect(await allIds('/api/seasons/2026/fall/?limit=100')).toEqual(expect.arrayContaining(explicitAnimes()));
    const schedule = await allIds('/api/schedules/?sfw=true&limit=100');
    expect(schedule).toEqual(expect.arrayContaining([a.safe.id, a.safe2.id]));
    for (const id of explicitAnimes()) expect(schedule).not.toContain(id);
    expect(await allIds('/api/schedules/?limit=100')).toEqual(expect.arrayContaining(explicitAnimes()));
  });
});

describe('random picks, top lists and recommendations', () => {
  it('random/anime/?sfw=true never draws an explicit anime', async () => {
    for (let i = 0; i < 40; i++) {
      const drawn = await get('/api/random/anime/?sfw=true');
      expect(explicitAnimes()).not.toContain(drawn.id);
      expect(drawn.rating).not.toBe('rx');
    }
    expect((await send(server, 'GET', '/api/random/anime/?sfw=maybe')).status).toBe(400);
  });

  it('top lists and recommendations leave the explicit titles out', async () => {
    // Three members list every anime high: each gets members (top by popularity) and votes (recommendations).
    const members = await Promise.all([0, 1, 2, 3].map(async () => (await server.user('member')).auth));
    const titles = [a.safe, a.rx, a.genre, a.theme, a.safe2];
    for (const auth of members.slice(0, 3)) for (const t of titles) await post('/api/playlists/animelist/animes/', { anime_id: t.id, score: 9, status: 'completed' }, auth);
    await post('/api/playlists/animelist/animes/', { anime_id: a.safe.id, score: 9, status: 'completed' }, members[3]);
    await runJob('rankings', new Date());
    await runJob<RunSummary>('recommendations', new Date());

    const top = await allIds('/api/top/animes/?filter=bypopularity&limit=100');
    expect(top).toEqual(expect.arrayContaining(explicitAnimes()));
    const safeTop = await allIds('/api/top/animes/?filter=bypopularity&limit=100&sfw=true');
    expect(safeTop).toEqual(expect.arrayContaining([a.safe.id, a.safe2.id]));
    for (const id of explicitAnimes()) expect(safeTop).not.toContain(id);

    const recs = (await get(`/api/animes/${a.safe.id}/recommendations/`)).results.map((r: Obj) => r.id);
    expect(recs).toEqual(expect.arrayContaining([...explicitAnimes(), a.safe2.id]));
    const safeRecs = await get(`/api/animes/${a.safe.id}/recommendations/?sfw=true`);
    expect(safeRecs.results.map((r: Obj) => r.id)).toEqual([a.safe2.id]);
    expect(safeRecs.count).toBe(1);

    const mine = (await get('/api/recommendations/anime/', members[3])).results.map((r: Obj) => r.id);
    expect(mine).toEqual(expect.arrayContaining([...explicitAnimes(), a.safe2.id]));
    expect((await get('/api/recommendations/anime/?sfw=true', members[3])).results.map((r: Obj) => r.id)).toEqual([a.safe2.id]);
    const popular = await allIds('/api/recommendations/anime/?sfw=true&limit=100');
    for (const id of explicitAnimes()) expect(popular).not.toContain(id);
  }, 120_000);
});

describe('a genre’s explicit flag changes', () => {
  it('marking a genre explicit excludes its titles when the write returns; unmarking and deleting bring them back', async () => {
    const list = () => allIds(`/api/animes/?q=${tag}&sfw=true`);
    await patch(`/api/genres/${safeGenre.id}/`, { explicit: true });
    expect(await list()).toEqual([a.safe2.id]);
    await patch(`/api/genres/${safeGenre.id}/`, { explicit: false });
    expect((await list()).sort()).toEqual([a.safe.id, a.safe2.id].sort());
    // The explicit theme is deleted: its anime is no longer explicit (its own rating is not rx).
    expect((await send(server, 'DELETE', `/api/themes/${theme.id}/`, { headers: editor })).status).toBe(204);
    expect((await list()).sort()).toEqual([a.safe.id, a.safe2.id, a.theme.id].sort());
  });
});

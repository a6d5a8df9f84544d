/**
 * API.md §5.1, clarification of 2026-11-29 (decision K1): filters and orderings by a title's
 * `score`, `scored_by`, `members` and `favorites` — `min_score`, `ordering=score|members|favorites`
 * of the anime list, of a genre's animes, of a season and of the schedule — compare the values of
 * the last rankings run, while every response shows the current numbers. Two animes whose numbers
 * swap after a run: shown at once, ordered and filtered by the swap only after the next run.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { makeAccount, type Account } from '../support/accounts.js';
import { expectJson, send, uniqueName } from '../support/contract.js';
import { runJob } from '../support/jobs.js';
import { useServer } from '../support/server.js';

const server = useServer();
type Auth = Record<string, string>;
let editor: Auth;
let genre: string;
let high: { id: string; name: string };
let low: { id: string; name: string };
const readers: Account[] = [];
const items = new Map<string, string>();

const get = async (path: string) => expectJson(await send(server, 'GET', path), 200);
const ids = (page: { results: { id?: string; anime?: { id: string } }[] }) => page.results.map((r) => r.anime?.id ?? r.id);
const broadcast = { day: 'monday', time: '12:00', timezone: 'Asia/Tokyo' };

async function add(reader: Account, anime: string, body: Record<string, unknown>) {
  const item = expectJson(await send(server, 'POST', '/api/playlists/animelist/animes/', { body: { anime_id: anime, ...body }, headers: reader.auth }), 201);
  items.set(`${reader.id}/${anime}`, item.id);
}
async function change(reader: Account, anime: string, body: Record<string, unknown>) {
  expectJson(await send(server, 'PATCH', `/api/playlists/animelist/animes/${items.get(`${reader.id}/${anime}`)}/`, { body, headers: reader.auth }), 200);
}

/** The orders and filters that compare the job's numbers, each as the ids it lists (only `high` and `low` exist). */
async function listed() {
  return {
    score: ids(await get('/api/animes/?ordering=-score')),
    members: ids(await get('/api/animes/?ordering=-members')),
    favorites: ids(await get('/api/animes/?ordering=-favorites')),
    minScore: ids(await get('/api/animes/?min_score=8')),
    genre: ids(await get(`/api/genres/${genre}/animes/?ordering=-score`)),
    seasonScore: ids(await get('/api/seasons/2001/spring/?ordering=-score')),
    seasonMembers: ids(await get('/api/seasons/2001/spring/?ordering=-members')),
    schedule: ids(await get('/api/schedules/?ordering=-score')),
  };
}
const everywhere = (first: string, second: string, minScore: string[]) => ({
  score: [first, second],
  members: [first, second],
  favorites: [first, second],
  minScore,
  genre: [first, second],
  seasonScore: [first, second],
  seasonMembers: [first, second],
  schedule: [first, second],
});

beforeAll(async () => {
  editor = (await server.user('contributor')).auth;
  genre = expectJson(await send(server, 'POST', '/api/genres/', { body: { name: uniqueName('Genre') }, headers: editor }), 201).id;
  const anime = async () =>
    expectJson(
      await send(server, 'POST', '/api/animes/', {
        body: { name: uniqueName('Swap'), genre_ids: [genre], aired_from: '2001-04-10', status: 'airing', broadcast },
        headers: editor,
      }),
      201,
    );
  [high, low] = [await anime(), await anime()];
  for (let i = 0; i < 5; i++) readers.push(await makeAccount());
  // Before the run: `high` scores 9 from four members, one favourite; `low` 5 from three, none.
  for (const r of readers.slice(0, 4)) await add(r, high.id, { score: 9, is_favorite: r === readers[0] });
  for (const r of readers.slice(0, 3)) await add(r, low.id, { score: 5 });
});

describe('filters and orderings by derived numbers use the last rankings run', () => {
  it('after a run they follow its numbers; numbers that change later show at once but order only after the next run', { timeout: 120_000 }, async () => {
    await runJob('rankings', new Date());
    expect(await listed()).toEqual(everywhere(high.id, low.id, [high.id]));

    // The numbers swap: `low` now scores 10 from five members with three favourites, `high` 2.
    for (const r of readers.slice(0, 4)) await change(r, high.id, { score: 2, is_favorite: false });
    for (const r of readers.slice(0, 3)) await change(r, low.id, { score: 10, is_favorite: true });
    for (const r of readers.slice(3)) await add(r, low.id, { score: 10 });
    // Every response shows the current numbers (immediate, §5.1) …
    expect(await get(`/api/animes/${high.id}/`)).toMatchObject({ score: 2, scored_by: 4, members: 4, favorites: 0 });
    expect(await get(`/api/animes/${low.id}/`)).toMatchObject({ score: 10, scored_by: 5, members: 5, favorites: 3 });
    const shown = (await get('/api/animes/?ordering=-score')).results;
    expect(shown.map((a: { score: number }) => a.score)).toEqual([2, 10]);
    // … while every filter and ordering still compares the run's.
    expect(await listed()).toEqual(everywhere(high.id, low.id, [high.id]));

    await runJob('rankings', new Date());
    expect(await listed()).toEqual(everywhere(low.id, high.id, [low.id]));
  });
});

/**
 * The README's examples of the typed client (client/example.ts), run against the local server:
 * sign in, search the animes and add the first match to the caller's anime list; find an anime by
 * its MyAnimeList id and read held animes by `ids` with `sfw`; search with typos by relevance.
 */
import { describe, expect, it } from 'vitest';
import { followChanges, fromMyAnimeList, planToWatch, searchAsTyped } from '../../client/example.js';
import { eventually } from '../support/eventually.js';
import { makeAccount } from '../support/accounts.js';
import { expectJson, send } from '../support/contract.js';
import { useServer } from '../support/server.js';

const server = useServer();

describe('the typed client example', () => {
  it('signs in, finds the anime and puts it on the list', async () => {
    const editor = await makeAccount({ role: 'contributor' });
    const fan = await makeAccount();
    const anime = expectJson(await send(server, 'POST', '/api/animes/', { body: { name: 'Sousou no Frieren', episodes: 28 }, headers: editor.auth }), 201);
    await send(server, 'POST', '/api/animes/', { body: { name: 'Frieren the Slayer' }, headers: editor.auth });

    const { anime: found, item } = await planToWatch(server.url, fan.email, fan.password, 'sousou frieren');
    expect(found).toEqual({ id: anime.id, name: 'Sousou no Frieren', episodes: 28 });
    expect(item.anime.id).toBe(anime.id);
    expect(item.status).toBe('plan_to_watch');

    const list = expectJson(await send(server, 'GET', '/api/playlists/animelist/animes/', { headers: fan.auth }), 200);
    expect(list.results.map((i: { id: string }) => i.id)).toEqual([item.id]);
    await expect(planToWatch(server.url, fan.email, 'not the password', 'frieren')).rejects.toThrow(/sign-in failed/);
    await expect(planToWatch(server.url, fan.email, fan.password, 'no such title')).rejects.toThrow(/no anime matches/);
  });

  it('finds an anime by its MyAnimeList id and reads held animes by ids, explicit ones and deleted ones absent', async () => {
    const editor = await makeAccount({ role: 'contributor' });
    const mal = 100_000_000 + Math.floor(Math.random() * 900_000_000);
    const post = async (body: object) => expectJson(await send(server, 'POST', '/api/animes/', { body, headers: editor.auth }), 201);
    const [a, rx, gone] = [await post({ name: `Client ${mal}`, external_ids: { mal } }), await post({ name: `Client rx ${mal}`, rating: 'rx' }), await post({ name: `Client gone ${mal}` })];
    expect((await send(server, 'DELETE', `/api/animes/${gone.id}/`, { headers: editor.auth })).status).toBe(204);
    const { anime, current } = await fromMyAnimeList(server.url, mal, [a.id, rx.id, gone.id]);
    expect(anime).toEqual({ id: a.id, name: a.name, external_ids: { mal } });
    expect(current.map((r) => r.id)).toEqual([a.id]);
    await expect(fromMyAnimeList(server.url, 0, [a.id])).rejects.toThrow(/lookup failed/);
  });

  it('searches with a typo and words written together, the best match first', async () => {
    const editor = await makeAccount({ role: 'contributor' });
    // A word no other test writes, of 9 letters: two typos allowed.
    const word = Array.from({ length: 9 }, () => String.fromCharCode(97 + Math.floor(Math.random() * 26))).join('');
    const post = async (name: string) => expectJson(await send(server, 'POST', '/api/animes/', { body: { name }, headers: editor.auth }), 201);
    await post(`The ${word} Gaiden`);
    await post(`${word} Re:Birth`);
    const typo = word.slice(0, 3) + word[4] + word[3] + word.slice(5); // two neighbours swapped
    // Both through the typo only: one rank, in the order of members then id.
    expect((await searchAsTyped(server.url, typo)).sort()).toEqual([`${word} Re:Birth`, `The ${word} Gaiden`].sort());
    expect(await searchAsTyped(server.url, `${word} rebirth`)).toEqual([`${word} Re:Birth`]);
    // Exact: the name that starts with the word first.
    expect(await searchAsTyped(server.url, word)).toEqual([`${word} Re:Birth`, `The ${word} Gaiden`]);
  });

  it('keeps a copy of the animes and mangas current by following the change feed', async () => {
    const editor = await makeAccount({ role: 'contributor' });
    const since = new Date().toISOString();
    const post = async (path: string, name: string) => expectJson(await send(server, 'POST', path, { body: { name }, headers: editor.auth }), 201);
    const [a, m, g] = [await post('/api/animes/', `Mirror ${since}`), await post('/api/mangas/', `Mirror ${since}`), await post('/api/genres/', `Mirror ${since}`)];
    const copy = new Map<string, any>();
    // Entries show within seconds of their writes (eventually: polls until the copy has them).
    let position = await eventually(async () => {
      const p = await followChanges(server.url, copy, { since });
      expect(copy.get(`manga/${m.id}`)).toEqual(m);
      return p;
    });
    expect(copy.get(`anime/${a.id}`)).toMatchObject({ id: a.id, name: a.name });
    expect(copy.has(`genre/${g.id}`)).toBe(false);
    expectJson(await send(server, 'PATCH', `/api/animes/${a.id}/`, { body: { synopsis: 'Mirrored.' }, headers: editor.auth }), 200);
    expect((await send(server, 'DELETE', `/api/mangas/${m.id}/`, { headers: editor.auth })).status).toBe(204);
    position = await eventually(async () => {
      const p = await followChanges(server.url, copy, position);
      expect(copy.has(`manga/${m.id}`)).toBe(false);
      return p;
    });
    expect(copy.get(`anime/${a.id}`).synopsis).toBe('Mirrored.');
    // Caught up: the same position again.
    expect(await followChanges(server.url, copy, position)).toEqual(position);
  });
});

/**
 * The README's example of the typed client (client/example.ts), run against the local server:
 * it signs in, searches the animes and adds the first match to the caller's anime list.
 */
import { describe, expect, it } from 'vitest';
import { planToWatch } from '../../client/example.js';
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
});

/**
 * What follows list items when what they name changes (API.md §4.1.1, §4.21; the relations
 * consumer, shared/domain/playlist-effects.ts), with the consumer's steps shortened to one page
 * (CASCADE_STEP_MS) so that a title on 110 lists needs continuations, as 100,000 would:
 *  - a title deleted: its items are hidden at once and then leave every list, with the counts;
 *  - a title renamed: the lists' `name` ordering follows;
 *  - an account deleted: its lists go, and with them what they added to their titles' numbers.
 */
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { tableName } from '../../shared/db/client.js';
import { db } from '../../shared/db/sdk.js';
import { makeAccount, PASSWORD } from '../support/accounts.js';
import { expectJson, send, uniqueName } from '../support/contract.js';
import { eventually } from '../support/eventually.js';
import { useServer } from '../support/server.js';

process.env.CASCADE_STEP_MS = '1';
const server = useServer();
type Auth = Record<string, string>;
const ITEMS = '/api/playlists/animelist/animes/';
let editor: Auth;
beforeAll(async () => {
  editor = (await server.user('contributor')).auth;
});
const anime = async (name = uniqueName('Cascade')) => expectJson(await send(server, 'POST', '/api/animes/', { body: { name }, headers: editor }), 201);
const add = async (auth: Auth, body: Record<string, unknown>) => expectJson(await send(server, 'POST', body.manga_id ? '/api/playlists/mangalist/mangas/' : ITEMS, { body, headers: auth }), 201);
const get = async (auth: Auth, path: string) => expectJson(await send(server, 'GET', path, { headers: auth }), 200);
const partition = async (pk: string) => (await db().send(new QueryCommand({ TableName: tableName(), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk }, ConsistentRead: true }))).Items ?? [];

describe('list cascades', () => {
  it('a title on 110 lists is deleted: hidden at once, then gone from every list with the counts (in several steps)', { timeout: 240_000 }, async () => {
    const doomed = await anime();
    const kept = await anime();
    const users = await Promise.all(Array.from({ length: 110 }, async () => (await server.user('member')).auth));
    for (let i = 0; i < users.length; i += 20) {
      await Promise.all(users.slice(i, i + 20).map((auth, j) => add(auth, { anime_id: doomed.id, status: (i + j) % 2 ? 'watching' : 'completed', score: 7 })));
    }
    await add(users[0]!, { anime_id: kept.id, status: 'watching' });
    expect((await partition(`ANIME#${doomed.id}#L`)).length).toBe(110);

    expect((await send(server, 'DELETE', `/api/animes/${doomed.id}/`, { headers: editor })).status).toBe(204);
    // At once: the item is out of the page and its count.
    const page = await get(users[0]!, ITEMS);
    expect(page.results.map((r: { anime: { id: string } }) => r.anime.id)).toEqual([kept.id]);
    expect(page.count).toBe(1);
    // Then: every list without it, counts included; nothing left of it; no cascade pending.
    await eventually(async () => expect(await partition(`ANIME#${doomed.id}#L`)).toEqual([]), 120_000);
    await eventually(async () => expect((await db().send(new GetCommand({ TableName: tableName(), Key: { pk: `CASCADE#DELETED-ANIME#${doomed.id}`, sk: 'R' } }))).Item).toBeUndefined(), 30_000);
    expect((await get(users[0]!, '/api/playlists/animelist/')).counts).toMatchObject({ watching: 1, completed: 0, total: 1 });
    for (const auth of users.slice(1, 6)) expect((await get(auth, '/api/playlists/animelist/')).counts.total).toBe(0);
    expect(await get(users[0]!, ITEMS)).toMatchObject({ count: 1 });
  });

  it("a title renamed: its lists' name ordering follows", async () => {
    const me = (await server.user('member')).auth;
    const [a, b] = [await anime(`${uniqueName('Aaa')}`), await anime(`${uniqueName('Mmm')}`)];
    await add(me, { anime_id: a.id });
    await add(me, { anime_id: b.id });
    const names = async () => (await get(me, `${ITEMS}?ordering=name`)).results.map((r: { anime: { id: string } }) => r.anime.id);
    expect(await names()).toEqual([a.id, b.id]);
    expectJson(await send(server, 'PATCH', `/api/animes/${a.id}/`, { body: { name: uniqueName('Zzz') }, headers: editor }), 200);
    await eventually(async () => expect(await names()).toEqual([b.id, a.id]));
  });

  it("an account deleted: its lists go, and what they added to their titles' numbers", async () => {
    const account = await makeAccount();
    const [a, b] = [await anime(), await anime()];
    const m = expectJson(await send(server, 'POST', '/api/mangas/', { body: { name: uniqueName('Gone reader') }, headers: editor }), 201);
    const other = (await server.user('member')).auth;
    await add(account.auth, { anime_id: a.id, score: 10, is_favorite: true, status: 'completed' });
    await add(account.auth, { anime_id: b.id, score: 4 });
    await add(account.auth, { manga_id: m.id, score: 8 });
    await add(other, { anime_id: a.id, score: 6 });
    expect(await get(other, `/api/animes/${a.id}/`)).toMatchObject({ members: 2, scored_by: 2, score: 8, favorites: 1 });

    expect((await send(server, 'DELETE', '/api/users/me/', { body: { current_password: PASSWORD }, headers: account.auth })).status).toBe(204);
    await eventually(async () => expect(await get(other, `/api/animes/${a.id}/`)).toMatchObject({ members: 1, scored_by: 1, score: 6, favorites: 0 }));
    // One list after the other (one page per step here): the manga's numbers may follow later.
    await eventually(async () => expect(await get(other, `/api/animes/${b.id}/stats/`)).toMatchObject({ total: 0, scored_by: 0, score: null }));
    await eventually(async () => expect(await get(other, `/api/mangas/${m.id}/`)).toMatchObject({ members: 0, score: null }));
    await eventually(async () => {
      for (const pk of [`ANIMELIST#${account.id}`, `ANIMELIST#${account.id}#V`, `MANGALIST#${account.id}`, `MANGALIST#${account.id}#V`, `ANIME#${a.id}#L`]) {
        expect((await partition(pk)).filter((i) => i.sk === account.id || pk.includes(account.id))).toEqual([]);
      }
    });
  });
});

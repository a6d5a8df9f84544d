/**
 * The stream consumers never stall (issue 18 §1; docs/decisions.md Z1–Z3). The sequence that made
 * the relations consumer livelock — an anime and a manga linked to six taxonomy records, then the
 * six deleted back to back — now leaves every view correct within seconds: the titles lose the
 * references, the tombstones are cleared, nothing is retried more than once or given up, and the
 * views that follow (a character cast in a new anime, a person's voices, an activation e-mail) are
 * in step as soon as the consumers catch up.
 */
import { beforeAll, expect, it } from 'vitest';
import { getItems } from '../../shared/db/batch.js';
import { TOMBSTONE_SHARDS } from '../../shared/db/tombstones.js';
import { PASSWORD, uniqueUsername, addressOf } from '../support/accounts.js';
import { expectJson, send, uniqueName } from '../support/contract.js';
import { expectRecount } from '../support/recount.js';
import { useServer, waitForEmail } from '../support/server.js';

const server = useServer();
let auth: Record<string, string>;
beforeAll(async () => {
  auth = (await server.user('contributor')).auth;
});

type Obj = Record<string, any>;
const post = async (path: string, body: Obj) => expectJson(await send(server, 'POST', path, { body, headers: auth }), 201);
const del = async (path: string) => expect((await send(server, 'DELETE', path, { headers: auth })).status).toBe(204);
const get = async (path: string) => expectJson(await send(server, 'GET', path), 200);

it('deleting six taxonomy records linked to one anime and one manga, back to back, converges within seconds (the livelock of issue 18)', async () => {
  const streams = server.background!.streams!;
  const G = await post('/api/genres/', { name: uniqueName('Genre') });
  const T = await post('/api/themes/', { name: uniqueName('Theme') });
  const D = await post('/api/demographics/', { name: uniqueName('Demographic') });
  const M = await post('/api/magazines/', { name: uniqueName('Magazine') });
  const S = await post('/api/producers/', { name: uniqueName('Studio'), type: 'studio' });
  const L = await post('/api/producers/', { name: uniqueName('Licensor'), type: 'licensor' });
  const anime = await post('/api/animes/', { name: uniqueName('Anime'), genre_ids: [G.id], theme_ids: [T.id], studio_ids: [S.id], producer_ids: [S.id], licensor_ids: [L.id] });
  const manga = await post('/api/mangas/', { name: uniqueName('Manga'), genre_ids: [G.id], theme_ids: [T.id], demographic_ids: [D.id], magazine_ids: [M.id] });
  await streams.caughtUp();
  const before = streams.stats();

  for (const [path, r] of [['genres', G], ['themes', T], ['demographics', D], ['magazines', M], ['producers', S], ['producers', L]] as const) await del(`/api/${path}/${r.id}/`);
  // What follows must not wait for the cleanup: a new cast, a registration.
  const character = await post('/api/characters/', { name: uniqueName('Character') });
  const person = await post('/api/persons/', { name: uniqueName('Voice') });
  const cast = await post('/api/animes/', { name: uniqueName('Cast'), characters: [{ character_id: character.id, role: 'main', voice_actors: [{ person_id: person.id, language: 'japanese' }] }] });
  const username = uniqueUsername('Consumer');
  expect((await send(server, 'POST', '/api/users/', { body: { username, email: addressOf(username), password: PASSWORD, re_password: PASSWORD } })).status).toBe(201);

  const started = Date.now();
  await streams.caughtUp();
  expect(Date.now() - started).toBeLessThan(20_000);

  // The references are gone from both titles, and the deleted records from every view.
  expect(await get(`/api/animes/${anime.id}/`)).toMatchObject({ genres: [], themes: [], studios: [], producers: [], licensors: [] });
  expect(await get(`/api/mangas/${manga.id}/`)).toMatchObject({ genres: [], themes: [], demographics: [], serializations: [] });
  const shards = await getItems(Array.from({ length: TOMBSTONE_SHARDS }, (_, n) => ({ pk: 'DELETED', sk: String(n) })));
  for (const shard of shards) for (const [kind, ids] of Object.entries(shard ?? {})) if (ids instanceof Set) expect(ids.size, `pending ${kind}`).toBe(0);
  // The views after it are in step.
  expect((await get(`/api/characters/?anime=${cast.id}`)).results.map((c: Obj) => c.id)).toEqual([character.id]);
  expect((await get(`/api/persons/${person.id}/voices/`)).results).toEqual([expect.objectContaining({ character: expect.objectContaining({ id: character.id }), language: 'japanese' })]);
  await waitForEmail(addressOf(username), { subject: 'Activate your account', timeoutMs: 10_000 });

  // No record was given up, none retried more than once (a record is retried when a write it
  // depends on raced another; here nothing races).
  expect(streams.deadLetters()).toEqual([]);
  const after = streams.stats();
  for (const [name, s] of Object.entries(after)) {
    expect(s.givenUp, name).toBe(before[name]!.givenUp);
    expect(s.maxDeliveries, name).toBeLessThanOrEqual(2);
  }
  await expectRecount(streams);
}, 120_000);

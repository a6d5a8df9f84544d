/**
 * Relations that stay true (API.md §1.8): every reverse view after create, replace, patch,
 * rename and delete of either side; deletions disappear at once (tombstones), renames and
 * reverse views follow through the relations consumer (polled here, well within 60 s); the
 * consumer clears every tombstone once the references are gone.
 */
import { readHead } from '../../shared/db/index-deltas.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { getItems } from '../../shared/db/batch.js';
import { tableName } from '../../shared/db/client.js';
import { db } from '../../shared/db/sdk.js';
import { newsTitle } from '../../shared/db/news.js';
import { personTitle } from '../../shared/db/persons.js';
import { commit } from '../../shared/db/records.js';
import { stageJournal } from '../../shared/db/staged.js';
import { loadTitle, titleWrite, type TitleDef } from '../../shared/db/titles.js';
import { TOMBSTONE_SHARDS } from '../../shared/db/tombstones.js';
import { makeAccount, PASSWORD } from '../support/accounts.js';
import { expectJson, expectProblem, send, uniqueName } from '../support/contract.js';
import { eventually } from '../support/eventually.js';
import { useServer } from '../support/server.js';

const server = useServer();
let auth: Record<string, string>;
beforeAll(async () => {
  auth = (await server.user('contributor')).auth;
});

type Obj = Record<string, any>;
const post = async (path: string, body: Obj) => expectJson(await send(server, 'POST', path, { body, headers: auth }), 201);
const put = async (path: string, body: Obj) => expectJson(await send(server, 'PUT', path, { body, headers: auth }), 200);
const patch = async (path: string, body: Obj) => expectJson(await send(server, 'PATCH', path, { body, headers: auth }), 200);
const del = async (path: string) => expect((await send(server, 'DELETE', path, { headers: auth })).status).toBe(204);
const get = async (path: string) => expectJson(await send(server, 'GET', path), 200);
const ids = (list: { id: string }[]) => list.map((x) => x.id);

/** No deletion is still pending in any tombstone shard. */
async function tombstonesCleared(): Promise<void> {
  const shards = await getItems(Array.from({ length: TOMBSTONE_SHARDS }, (_, n) => ({ pk: 'DELETED', sk: String(n) })));
  for (const s of shards) for (const [k, v] of Object.entries(s ?? {})) if (v instanceof Set) expect(v.size, `pending ${k}`).toBe(0);
}

async function people() {
  const [c1, c2, p1, p2, p3] = await Promise.all([
    post('/api/characters/', { name: uniqueName('Alpha') }),
    post('/api/characters/', { name: uniqueName('Beta') }),
    post('/api/persons/', { name: uniqueName('Voice One') }),
    post('/api/persons/', { name: uniqueName('Voice Two') }),
    post('/api/persons/', { name: uniqueName('Director') }),
  ]);
  return { c1, c2, p1, p2, p3 };
}

function castOf(p: Awaited<ReturnType<typeof people>>) {
  return [
    { character_id: p.c1.id, role: 'main', voice_actors: [{ person_id: p.p1.id, language: 'japanese' }, { person_id: p.p2.id, language: 'english' }] },
    { character_id: p.c2.id, role: 'supporting', voice_actors: [{ person_id: p.p1.id, language: 'japanese' }] },
  ];
}

describe('reverse views follow the anime', () => {
  it('create → character animes/voices, person staff_credits and voices/, the character filters', async () => {
    const p = await people();
    const a = await post('/api/animes/', { name: uniqueName('Relations'), aired_from: '2020-04-01', characters: castOf(p), staff: [{ person_id: p.p3.id, positions: ['Director'] }] });
    await eventually(async () => {
      const c1 = await get(`/api/characters/${p.c1.id}/`);
      expect(c1.animes).toEqual([{ id: a.id, name: a.name, role: 'main' }]);
      expect(c1.mangas).toEqual([]);
      const byPerson = [p.p1, p.p2].sort((x, y) => (x.id < y.id ? -1 : 1));
      expect(c1.voices.map((v: Obj) => v.person.id)).toEqual(byPerson.map((x) => x.id));
      expect(c1.voices.find((v: Obj) => v.person.id === p.p2.id)).toEqual({ person: { id: p.p2.id, name: p.p2.name }, language: 'english', anime: { id: a.id, name: a.name } });
      expect((await get(`/api/persons/${p.p3.id}/`)).staff_credits).toEqual([{ anime: { id: a.id, name: a.name }, positions: ['Director'] }]);
      const voices = await get(`/api/persons/${p.p1.id}/voices/?ordering=character_name`);
      expect(voices.count).toBe(2);
      expect(voices.results.map((v: Obj) => v.character.id)).toEqual([p.c1.id, p.c2.id]);
      expect(voices.results[0]).toEqual({
        character: { id: p.c1.id, name: p.c1.name, image: null },
        anime: { id: a.id, name: a.name, image: null, media_type: 'tv', status: 'upcoming', episodes: null, score: null },
        role: 'main',
        language: 'japanese',
      });
      expect(ids((await get(`/api/characters/?anime=${a.id}`)).results).sort()).toEqual([p.c1.id, p.c2.id].sort());
      expect(ids((await get(`/api/characters/?anime=${a.id}&role=main`)).results)).toEqual([p.c1.id]);
      expect(ids((await get(`/api/characters/?anime=${a.id}&role=supporting`)).results)).toEqual([p.c2.id]);
    });
    expect((await get(`/api/persons/${p.p1.id}/voices/?role=supporting`)).results.map((v: Obj) => v.character.id)).toEqual([p.c2.id]);
    expect((await get(`/api/persons/${p.p2.id}/voices/?language=japanese`)).count).toBe(0);
    expect((await get(`/api/characters/?role=supporting&q=${encodeURIComponent(p.c2.name)}`)).results.map((c: Obj) => c.id)).toContain(p.c2.id);
  });

  it('the forward sub-resources: characters/ with voice actors in written order, staff/, orderings, role filter, exact count', async () => {
    const p = await people();
    const a = await post('/api/animes/', { name: uniqueName('Forward'), characters: castOf(p), staff: [{ person_id: p.p3.id, positions: ['Director', 'Storyboard'] }, { person_id: p.p1.id, positions: ['Sound'] }] });
    const cast = await get(`/api/animes/${a.id}/characters/`);
    expect(cast.count).toBe(2);
    expect(cast.results[0]).toMatchObject({ id: p.c1.id, name: p.c1.name, role: 'main', voice_actors: [{ id: p.p1.id, name: p.p1.name, image: null, language: 'japanese' }, { id: p.p2.id, name: p.p2.name, image: null, language: 'english' }] });
    expect(Object.keys(cast.results[0])).toEqual(['id', 'created_at', 'updated_at', 'name', 'name_kanji', 'nicknames', 'about', 'image', 'favorites', 'members', 'role', 'voice_actors']);
    expect(ids((await get(`/api/animes/${a.id}/characters/?ordering=-position`)).results)).toEqual([p.c2.id, p.c1.id]);
    expect(ids((await get(`/api/animes/${a.id}/characters/?ordering=-name`)).results)).toEqual([p.c2.id, p.c1.id]);
    const supporting = await get(`/api/animes/${a.id}/characters/?role=supporting`);
    expect([supporting.count, ids(supporting.results)]).toEqual([1, [p.c2.id]]);
    const page = await get(`/api/animes/${a.id}/characters/?limit=1`);
    expect(ids(page.results)).toEqual([p.c1.id]);
    expect(ids((await get(page.next.replace(server.url, ''))).results)).toEqual([p.c2.id]);
    const staff = await get(`/api/animes/${a.id}/staff/`);
    expect(staff.count).toBe(2);
    expect(staff.results.map((s: Obj) => [s.id, s.positions])).toEqual([[p.p3.id, ['Director', 'Storyboard']], [p.p1.id, ['Sound']]]);
    expect(ids((await get(`/api/animes/${a.id}/staff/?ordering=-position`)).results)).toEqual([p.p1.id, p.p3.id]);
    expect((await send(server, 'GET', '/api/animes/AAAAAAAAAAAAAAAAAAAAAA/characters/')).status).toBe(404);
    expect((await send(server, 'GET', `/api/animes/${a.id}/characters/?role=hero`)).status).toBe(400);
    expect((await send(server, 'GET', '/api/persons/AAAAAAAAAAAAAAAAAAAAAA/voices/')).status).toBe(404);
  });

  it('replace (relations removed) and patch (a role changed) → the reverse views follow', async () => {
    const p = await people();
    const a = await post('/api/animes/', { name: uniqueName('Replaced'), characters: castOf(p), staff: [{ person_id: p.p3.id, positions: ['Director'] }] });
    await eventually(async () => expect((await get(`/api/characters/${p.c2.id}/`)).animes).toHaveLength(1));
    await put(`/api/animes/${a.id}/`, { name: a.name, characters: [{ character_id: p.c1.id, role: 'main' }] });
    // What the write set shows at once on the anime's own sub-resources.
    expect(ids((await get(`/api/animes/${a.id}/characters/`)).results)).toEqual([p.c1.id]);
    expect((await get(`/api/animes/${a.id}/staff/`)).count).toBe(0);
    await eventually(async () => {
      expect((await get(`/api/characters/${p.c2.id}/`)).animes).toEqual([]);
      expect((await get(`/api/characters/${p.c1.id}/`)).voices).toEqual([]);
      expect((await get(`/api/persons/${p.p3.id}/`)).staff_credits).toEqual([]);
      expect((await get(`/api/persons/${p.p1.id}/voices/`)).count).toBe(0);
      expect(ids((await get(`/api/characters/?anime=${a.id}`)).results)).toEqual([p.c1.id]);
    });
    await patch(`/api/animes/${a.id}/`, { characters: [{ character_id: p.c1.id, role: 'supporting' }] });
    await eventually(async () => {
      expect((await get(`/api/characters/${p.c1.id}/`)).animes).toEqual([{ id: a.id, name: a.name, role: 'supporting' }]);
      expect((await get(`/api/characters/?anime=${a.id}&role=main`)).results).toEqual([]);
      expect(ids((await get(`/api/characters/?anime=${a.id}&role=supporting`)).results)).toEqual([p.c1.id]);
    });
  });

  it('derived arrays are ordered by the title name, then the ids shown', async () => {
    const p = await people();
    const base = uniqueName('Order');
    const b = await post('/api/animes/', { name: `${base} b`, characters: [{ character_id: p.c1.id, role: 'main' }], staff: [{ person_id: p.p3.id, positions: ['Director'] }] });
    const a = await post('/api/animes/', { name: `${base} A`, characters: [{ character_id: p.c1.id, role: 'supporting' }], staff: [{ person_id: p.p3.id, positions: ['Producer'] }] });
    await eventually(async () => {
      expect((await get(`/api/characters/${p.c1.id}/`)).animes.map((x: Obj) => x.id)).toEqual([a.id, b.id]);
      expect((await get(`/api/persons/${p.p3.id}/`)).staff_credits.map((x: Obj) => x.anime.id)).toEqual([a.id, b.id]);
    });
  });
});

describe('renames show everywhere the name is embedded', () => {
  it('anime, character, person, genre and producer renames', async () => {
    const p = await people();
    const g = await post('/api/genres/', { name: uniqueName('Genre') });
    const s = await post('/api/producers/', { name: uniqueName('Studio'), type: 'studio' });
    const a = await post('/api/animes/', { name: uniqueName('Before'), genre_ids: [g.id], studio_ids: [s.id], characters: castOf(p), staff: [{ person_id: p.p3.id, positions: ['Director'] }] });
    await eventually(async () => expect((await get(`/api/persons/${p.p1.id}/voices/`)).count).toBe(2));
    const [name, cName, pName, gName, sName] = [uniqueName('After'), uniqueName('Gamma'), uniqueName('Renamed Voice'), uniqueName('Genre2'), uniqueName('Studio2')];
    await patch(`/api/animes/${a.id}/`, { name });
    await patch(`/api/characters/${p.c1.id}/`, { name: cName });
    await patch(`/api/persons/${p.p1.id}/`, { name: pName });
    await patch(`/api/genres/${g.id}/`, { name: gName });
    await patch(`/api/producers/${s.id}/`, { name: sName });
    // Read with the view: at once.
    expect((await get(`/api/animes/${a.id}/characters/`)).results[0]).toMatchObject({ name: cName, voice_actors: [{ name: pName }, {}] });
    expect((await get(`/api/characters/${p.c1.id}/`)).voices.find((v: Obj) => v.person.id === p.p1.id).person.name).toBe(pName);
    await eventually(async () => {
      const anime = await get(`/api/animes/${a.id}/`);
      expect([anime.genres, anime.studios]).toEqual([[{ id: g.id, name: gName }], [{ id: s.id, name: sName }]]);
      expect((await get(`/api/animes/?q=${encodeURIComponent(name)}`)).results[0].genres).toEqual([{ id: g.id, name: gName }]);
      expect((await get(`/api/characters/${p.c1.id}/`)).animes).toEqual([{ id: a.id, name, role: 'main' }]);
      expect((await get(`/api/persons/${p.p3.id}/`)).staff_credits[0].anime).toEqual({ id: a.id, name });
      const voices = await get(`/api/persons/${p.p2.id}/voices/?ordering=character_name`);
      expect(voices.results[0].character.name).toBe(cName);
    });
    // A rename changes no client-visible date of the titles that embed it.
    expect((await get(`/api/animes/${a.id}/`)).updated_at).toBe((await get(`/api/animes/${a.id}/`)).updated_at);
  });
});

describe('deletions disappear at once, and the references are removed for good', () => {
  it('a deleted genre and studio leave the anime at once; a PATCH of the anime is not refused for them', async () => {
    const g = await post('/api/genres/', { name: uniqueName('Doomed') });
    const keep = await post('/api/genres/', { name: uniqueName('Kept') });
    const s = await post('/api/producers/', { name: uniqueName('Doomed Studio'), type: 'studio' });
    const a = await post('/api/animes/', { name: uniqueName('Keeper'), genre_ids: [g.id, keep.id], studio_ids: [s.id], producer_ids: [s.id] });
    await del(`/api/genres/${g.id}/`);
    await del(`/api/producers/${s.id}/`);
    const now = await get(`/api/animes/${a.id}/`);
    expect([now.genres, now.studios, now.producers]).toEqual([[{ id: keep.id, name: keep.name }], [], []]);
    expect((await get(`/api/animes/?q=${encodeURIComponent(a.name)}`)).results[0].genres).toEqual([{ id: keep.id, name: keep.name }]);
    expect((await patch(`/api/animes/${a.id}/`, { episodes: 12 })).genres).toEqual([{ id: keep.id, name: keep.name }]);
    expect((await send(server, 'GET', `/api/animes/?genre=${g.id}`)).status).toBe(400);
    await eventually(tombstonesCleared);
    expect((await get(`/api/animes/${a.id}/`)).genres).toEqual([{ id: keep.id, name: keep.name }]);
    expect((await get(`/api/genres/${keep.id}/`)).anime_count).toBe(1);
  });

  it('a deleted character leaves the cast, its voice actors’ voices/ and the character filters at once', async () => {
    const p = await people();
    const a = await post('/api/animes/', { name: uniqueName('Cast'), characters: castOf(p) });
    await eventually(async () => expect((await get(`/api/persons/${p.p1.id}/voices/`)).count).toBe(2));
    await del(`/api/characters/${p.c1.id}/`);
    const cast = await get(`/api/animes/${a.id}/characters/`);
    expect([cast.count, ids(cast.results)]).toEqual([1, [p.c2.id]]);
    const voices = await get(`/api/persons/${p.p1.id}/voices/`);
    expect([voices.count, voices.results.map((v: Obj) => v.character.id)]).toEqual([1, [p.c2.id]]);
    expect((await get(`/api/persons/${p.p2.id}/voices/`)).count).toBe(0);
    expect(ids((await get(`/api/characters/?anime=${a.id}`)).results)).toEqual([p.c2.id]);
    await eventually(tombstonesCleared);
    expect(ids((await get(`/api/animes/${a.id}/characters/`)).results)).toEqual([p.c2.id]);
    expect((await get(`/api/persons/${p.p2.id}/voices/`)).count).toBe(0);
  });

  it('a deleted person leaves the staff, every voice_actors entry and the characters’ voices at once', async () => {
    const p = await people();
    const a = await post('/api/animes/', { name: uniqueName('Staffed'), characters: castOf(p), staff: [{ person_id: p.p1.id, positions: ['Sound'] }, { person_id: p.p3.id, positions: ['Director'] }] });
    await eventually(async () => expect((await get(`/api/characters/${p.c2.id}/`)).voices).toHaveLength(1));
    await del(`/api/persons/${p.p1.id}/`);
    expect(ids((await get(`/api/animes/${a.id}/staff/`)).results)).toEqual([p.p3.id]);
    expect((await get(`/api/animes/${a.id}/staff/`)).count).toBe(1);
    const cast = await get(`/api/animes/${a.id}/characters/`);
    expect(cast.results.map((c: Obj) => c.voice_actors.map((v: Obj) => v.id))).toEqual([[p.p2.id], []]);
    expect((await get(`/api/characters/${p.c2.id}/`)).voices).toEqual([]);
    expect((await get(`/api/characters/${p.c1.id}/`)).voices.map((v: Obj) => v.person.id)).toEqual([p.p2.id]);
    await eventually(tombstonesCleared);
    expect((await get(`/api/animes/${a.id}/staff/`)).count).toBe(1);
    expect((await get(`/api/characters/${p.c2.id}/`)).voices).toEqual([]);
  });

  it('a deleted anime leaves every character’s and person’s views at once (§4.1.1)', async () => {
    const p = await people();
    const a = await post('/api/animes/', { name: uniqueName('Gone'), characters: castOf(p), staff: [{ person_id: p.p3.id, positions: ['Director'] }] });
    await eventually(async () => expect((await get(`/api/persons/${p.p3.id}/`)).staff_credits).toHaveLength(1));
    await del(`/api/animes/${a.id}/`);
    const c1 = await get(`/api/characters/${p.c1.id}/`);
    expect([c1.animes, c1.voices]).toEqual([[], []]);
    expect((await get(`/api/persons/${p.p3.id}/`)).staff_credits).toEqual([]);
    expect((await get(`/api/persons/${p.p1.id}/voices/`)).count).toBe(0);
    expect((await send(server, 'GET', `/api/animes/${a.id}/characters/`)).status).toBe(404);
    await eventually(tombstonesCleared);
    await eventually(async () => expect((await send(server, 'GET', `/api/characters/?anime=${a.id}`)).status).toBe(400));
    expect((await get(`/api/characters/${p.c1.id}/`)).animes).toEqual([]);
  });
});

describe('concurrency', () => {
  it('concurrent writes to two animes that share a character: both appearances are kept', async () => {
    const p = await people();
    const [a1, a2] = await Promise.all([
      post('/api/animes/', { name: uniqueName('Twin A'), characters: [{ character_id: p.c1.id, role: 'main', voice_actors: [{ person_id: p.p1.id, language: 'japanese' }] }] }),
      post('/api/animes/', { name: uniqueName('Twin B'), characters: [{ character_id: p.c1.id, role: 'supporting', voice_actors: [{ person_id: p.p1.id, language: 'japanese' }] }] }),
    ]);
    await Promise.all([
      patch(`/api/animes/${a1.id}/`, { characters: [{ character_id: p.c1.id, role: 'supporting' }, { character_id: p.c2.id, role: 'main' }] }),
      patch(`/api/animes/${a2.id}/`, { characters: [{ character_id: p.c1.id, role: 'main' }, { character_id: p.c2.id, role: 'supporting' }] }),
    ]);
    await eventually(async () => {
      const c1 = await get(`/api/characters/${p.c1.id}/`);
      expect(c1.animes.map((x: Obj) => [x.id, x.role]).sort()).toEqual([[a1.id, 'supporting'], [a2.id, 'main']].sort());
      expect(ids((await get(`/api/characters/?anime=${a1.id}&role=main`)).results)).toEqual([p.c2.id]);
      expect(ids((await get(`/api/characters/?anime=${a2.id}&role=main`)).results)).toEqual([p.c1.id]);
      expect(ids((await get(`/api/characters/?role=main&q=${encodeURIComponent(p.c1.name)}`)).results)).toEqual([p.c1.id]);
      expect((await get(`/api/persons/${p.p1.id}/voices/`)).count).toBe(0);
    });
  });
});

describe('mangas', () => {
  it('characters/, a character’s mangas, persons/{id}/mangas/; renames and deletions of either side', async () => {
    const p = await people();
    const mag = await post('/api/magazines/', { name: uniqueName('Weekly') });
    const demo = await post('/api/demographics/', { name: uniqueName('Shounen') });
    const m = await post('/api/mangas/', {
      name: uniqueName('Manga'),
      published_from: '2001-01-01',
      magazine_ids: [mag.id],
      demographic_ids: [demo.id],
      authors: [{ person_id: p.p1.id, role: 'story' }, { person_id: p.p2.id, role: 'art' }],
      characters: [{ character_id: p.c1.id, role: 'main' }, { character_id: p.c2.id, role: 'supporting' }],
    });
    const older = await post('/api/mangas/', { name: uniqueName('Older'), published_from: '1990-01-01', authors: [{ person_id: p.p1.id, role: 'story_and_art' }] });
    const cast = await get(`/api/mangas/${m.id}/characters/?ordering=-position`);
    expect([cast.count, ids(cast.results)]).toEqual([2, [p.c2.id, p.c1.id]]);
    expect(Object.keys(cast.results[0]).at(-1)).toBe('role');
    expect(ids((await get(`/api/persons/${p.p1.id}/mangas/`)).results)).toEqual([m.id, older.id]);
    const story = await get(`/api/persons/${p.p1.id}/mangas/?role=story`);
    expect([story.count, ids(story.results), story.results[0].author_role]).toEqual([1, [m.id], 'story']);
    expect((await get(`/api/persons/${p.p1.id}/mangas/?ordering=name`)).count).toBe(2);
    await eventually(async () => {
      expect((await get(`/api/characters/${p.c1.id}/`)).mangas).toEqual([{ id: m.id, name: m.name, role: 'main' }]);
      expect(ids((await get(`/api/characters/?manga=${m.id}&role=supporting`)).results)).toEqual([p.c2.id]);
    });
    const renamed = uniqueName('Renamed Author');
    await patch(`/api/persons/${p.p2.id}/`, { name: renamed });
    await eventually(async () => expect((await get(`/api/mangas/${m.id}/`)).authors).toEqual([{ id: p.p1.id, name: p.p1.name, role: 'story' }, { id: p.p2.id, name: renamed, role: 'art' }]));
    await del(`/api/persons/${p.p1.id}/`);
    await del(`/api/magazines/${mag.id}/`);
    const now = await get(`/api/mangas/${m.id}/`);
    expect([now.authors.map((a: Obj) => a.id), now.serializations, now.demographics]).toEqual([[p.p2.id], [], [{ id: demo.id, name: demo.name }]]);
    await del(`/api/mangas/${m.id}/`);
    expect((await get(`/api/characters/${p.c1.id}/`)).mangas).toEqual([]);
    expect((await get(`/api/persons/${p.p2.id}/mangas/`)).count).toBe(0);
    await eventually(tombstonesCleared);
    expect((await get(`/api/demographics/${demo.id}/`)).manga_count).toBe(0);
  });
});

describe('news relations', () => {
  it('an article’s animes and mangas follow renames and deletions; mangas/{id}/news/', async () => {
    const moderator = (await server.user('moderator')).auth;
    const a = await post('/api/animes/', { name: uniqueName('Newsworthy') });
    const m = await post('/api/mangas/', { name: uniqueName('Newsworthy Manga') });
    const article = expectJson(await send(server, 'POST', '/api/news/', { body: { name: uniqueName('Headline'), content: 'Text.', anime_ids: [a.id], manga_ids: [m.id] }, headers: moderator }), 201);
    const mangaNews = await get(`/api/mangas/${m.id}/news/`);
    expect([mangaNews.count, ids(mangaNews.results)]).toEqual([1, [article.id]]);
    expect((await send(server, 'GET', '/api/mangas/AAAAAAAAAAAAAAAAAAAAAA/news/')).status).toBe(404);
    const renamed = uniqueName('Renamed Manga');
    await patch(`/api/mangas/${m.id}/`, { name: renamed });
    await eventually(async () => expect((await get(`/api/news/${article.id}/`)).mangas).toEqual([{ id: m.id, name: renamed }]));
    await del(`/api/animes/${a.id}/`);
    expect((await get(`/api/news/${article.id}/`)).animes).toEqual([]);
    expect((await get(`/api/news/?q=${encodeURIComponent(article.name)}`)).results[0].animes).toEqual([]);
    await eventually(tombstonesCleared);
    expect((await get(`/api/news/${article.id}/`)).animes).toEqual([]);
    expect((await send(server, 'GET', `/api/news/?anime=${a.id}`)).status).toBe(400);
  });

  it('a deleted account’s articles show author: null at once, then stored so; an account without articles leaves no tombstone', async () => {
    const writer = await makeAccount({ role: 'moderator' });
    const other = await makeAccount({ role: 'moderator' });
    const article = expectJson(await send(server, 'POST', '/api/news/', { body: { name: uniqueName('Farewell'), content: 'Text.' }, headers: writer.auth }), 201);
    const kept = expectJson(await send(server, 'POST', '/api/news/', { body: { name: uniqueName('Staying'), content: 'Text.' }, headers: other.auth }), 201);
    expect(article.author).toEqual({ id: writer.id, username: writer.username });
    expect((await send(server, 'DELETE', '/api/users/me/', { body: { current_password: PASSWORD }, headers: writer.auth })).status).toBe(204);
    // At once: the detail, the list and the anime-less list items.
    expect((await get(`/api/news/${article.id}/`)).author).toBeNull();
    expect((await get(`/api/news/?q=${encodeURIComponent(article.name)}`)).results[0].author).toBeNull();
    // Then stored without it, the tombstone cleared; the other moderator's article is untouched.
    await eventually(async () => expect(((await getItems([{ pk: `NEWS#${article.id}`, sk: 'R' }]))[0]?.rec as Obj).author).toBeNull());
    await eventually(tombstonesCleared);
    expect((await get(`/api/news/${article.id}/`)).author).toBeNull();
    expect((await get(`/api/news/${kept.id}/`)).author).toEqual({ id: other.id, username: other.username });
    // Deleting an account that wrote nothing marks nothing deleted.
    const reader = await makeAccount({ role: 'member' });
    expect((await send(server, 'DELETE', '/api/users/me/', { body: { current_password: PASSWORD }, headers: reader.auth })).status).toBe(204);
    await tombstonesCleared();
  });
});

describe('bad input on the relation sub-resources', () => {
  it('unknown parents → 404; bad filters and orderings → 400 invalid-query', async () => {
    const none = 'AAAAAAAAAAAAAAAAAAAAAA';
    for (const path of [`/api/animes/${none}/staff/`, `/api/mangas/${none}/characters/`, `/api/persons/${none}/mangas/`, `/api/persons/${none}/voices/`]) {
      expect((await send(server, 'GET', path)).status, path).toBe(404);
    }
    const p = await people();
    const a = await post('/api/animes/', { name: uniqueName('Bad input') });
    for (const path of [
      `/api/animes/${a.id}/staff/?ordering=favorites`,
      `/api/animes/${a.id}/characters/?ordering=bogus`,
      `/api/persons/${p.p1.id}/mangas/?role=writer`,
      `/api/persons/${p.p1.id}/mangas/?ordering=score`,
      `/api/persons/${p.p1.id}/voices/?language=klingon`,
      `/api/persons/${p.p1.id}/voices/?role=hero`,
      `/api/characters/?manga=${none}`,
    ]) {
      expectProblem(await send(server, 'GET', path), 400, 'invalid-query');
    }
  });
});

describe('journals left behind', () => {
  /** A rename whose record commits while its journal (index items) is never applied: the writer died. */
  async function interruptedRename(def: TitleDef<any>, id: string, name: string) {
    const before = (await loadTitle(def, id))!;
    const plan = titleWrite(def, before, { after: { ...before.record, name, updated_at: new Date().toISOString() }, relations: before.relations, links: [], deltaHead: await readHead(def.entity.kind) });
    await stageJournal(plan.rest, plan.pk, plan.rev, plan.write);
    await commit(plan.main);
  }
  const journal = async (pk: string) =>
    (await db().send(new QueryCommand({ TableName: tableName(), KeyConditionExpression: 'pk = :pk AND begins_with(sk, :j)', ExpressionAttributeValues: { ':pk': pk, ':j': 'J#' }, ConsistentRead: true }))).Items ?? [];

  it('the relations consumer finishes them for persons and news: the new name is searchable without another write', async () => {
    const moderator = (await server.user('moderator')).auth;
    const person = await post('/api/persons/', { name: uniqueName('Forgotten') });
    const article = expectJson(await send(server, 'POST', '/api/news/', { body: { name: uniqueName('Forgotten headline'), content: 'Text.' }, headers: moderator }), 201);
    const word = `jj${person.id.slice(0, 6).toLowerCase().replace(/[^a-z]/g, 'q')}`;
    await interruptedRename(personTitle, person.id, `Remembered ${word}`);
    await interruptedRename(newsTitle, article.id, `Remembered ${word}`);
    await eventually(async () => {
      expect(await journal(`PERSON#${person.id}`)).toEqual([]);
      expect(await journal(`NEWS#${article.id}`)).toEqual([]);
    });
    expect(ids((await get(`/api/persons/?q=${word}`)).results)).toEqual([person.id]);
    expect(ids((await get(`/api/news/?q=${word}`)).results)).toEqual([article.id]);
  });
});

/**
 * The caller's anime and manga lists (API.md §3.11, §4.10) and the numbers they feed (§5.1,
 * §3.13): lists created by their first use; items visible to their owner only; the write rules;
 * list `counts` and the titles' `members`, `scored_by`, `score`, `favorites` and statistics exact
 * when each edit returns; the items' page (status, orderings, exact count); titles deleted since.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrors, expectJson, expectProblem, ID, send, TIMESTAMP, uniqueName, type Sent } from '../support/contract.js';
import { useServer } from '../support/server.js';

const server = useServer();
type Auth = Record<string, string>;
let editor: Auth;
let admin: Auth;
beforeAll(async () => {
  editor = (await server.user('contributor')).auth;
  admin = (await server.user('administrator')).auth;
});
const member = async (): Promise<Auth> => (await server.user('member')).auth;
const call = (auth: Auth, method: string, path: string, body?: unknown, headers: Auth = {}) => send(server, method, path, { body, headers: { ...auth, ...headers } });
const anime = async (extra: Record<string, unknown> = {}) => expectJson(await call(editor, 'POST', '/api/animes/', { name: uniqueName('Listed'), ...extra }), 201);
const manga = async (extra: Record<string, unknown> = {}) => expectJson(await call(editor, 'POST', '/api/mangas/', { name: uniqueName('Read'), ...extra }), 201);
const ITEMS = '/api/playlists/animelist/animes/';
const add = (auth: Auth, body: Record<string, unknown>) => call(auth, 'POST', ITEMS, body);
const added = async (auth: Auth, body: Record<string, unknown>) => expectJson(await add(auth, body), 201);
const stats = async (id: string) => expectJson(await send(server, 'GET', `/api/animes/${id}/stats/`), 200);
const detail = async (id: string) => expectJson(await send(server, 'GET', `/api/animes/${id}/`), 200);

async function pages(auth: Auth, path: string): Promise<{ results: any[]; count: number | null; responses: Sent[] }> {
  const results: any[] = [];
  const responses: Sent[] = [];
  let url: string | null = path;
  while (url !== null) {
    const res: Sent = await call(auth, 'GET', url);
    const body = expectJson(res, 200);
    responses.push(res);
    results.push(...body.results);
    url = body.next;
    if (responses.length > 50) throw new Error('too many pages');
  }
  return { results, count: responses[0]!.body.count, responses };
}

const ITEM_KEYS = ['id', 'anime', 'status', 'score', 'episodes_watched', 'is_rewatching', 'times_rewatched', 'rewatch_value', 'start_date', 'finish_date', 'priority', 'tags', 'notes', 'is_favorite', 'created_at', 'updated_at'];

describe('the list', () => {
  it('is created blank by its first use, private, with exact counts; PATCH changes name, is_public, banner', async () => {
    const me = await member();
    const first = await call(me, 'GET', '/api/playlists/animelist/');
    const list = expectJson(first, 200);
    expect(first.headers.get('cache-control')).toBe('private, no-store');
    expect(first.headers.get('etag')).toBeTruthy();
    expect(Object.keys(list)).toEqual(['id', 'owner', 'name', 'is_public', 'banner', 'counts', 'created_at', 'updated_at']);
    expect(list).toMatchObject({ name: '', is_public: true, banner: null, counts: { watching: 0, completed: 0, on_hold: 0, dropped: 0, plan_to_watch: 0, total: 0 } });
    expect(list.id).toMatch(ID);
    // The same list on a second read.
    expect(expectJson(await call(me, 'GET', '/api/playlists/animelist/'), 200)).toEqual(list);
    // The manga list is another list.
    const mangaList = expectJson(await call(me, 'GET', '/api/playlists/mangalist/'), 200);
    expect(mangaList.counts).toEqual({ reading: 0, completed: 0, on_hold: 0, dropped: 0, plan_to_read: 0, total: 0 });
    expect(mangaList.id).not.toBe(list.id);

    const patched = expectJson(await call(me, 'PATCH', '/api/playlists/animelist/', { name: 'Watched with friends', is_public: false, banner: 'https://img.example.org/b.png' }), 200);
    expect(patched).toMatchObject({ id: list.id, name: 'Watched with friends', is_public: false, banner: 'https://img.example.org/b.png', created_at: list.created_at });
    expect(patched.updated_at > list.updated_at).toBe(true);
    // {} changes nothing; a stale If-Match → 412; bad values → 400.
    expect(expectJson(await call(me, 'PATCH', '/api/playlists/animelist/', {}), 200)).toEqual(patched);
    expectProblem(await call(me, 'PATCH', '/api/playlists/animelist/', { name: 'x' }, { 'if-match': first.headers.get('etag')! }), 412, 'precondition-failed');
    expectErrors(await call(me, 'PATCH', '/api/playlists/animelist/', { name: 'x'.repeat(101), banner: 'http://img.example.org/b.png', counts: {} }), 400, 'validation-error', ['name', 'banner', 'counts']);
  });

  it("the owner's public about view shows a public list's counts; null for a list not created or not public (§3.12)", async () => {
    const me = await server.user('member');
    const about = async () => expectJson(await send(server, 'GET', `/api/users/${me.username}/about/`), 200);
    expect(await about()).toMatchObject({ anime_list: null, manga_list: null });
    const [a, b] = [await anime(), await anime()];
    await added(me.auth, { anime_id: a.id, status: 'watching' });
    await added(me.auth, { anime_id: b.id, status: 'completed', score: 8 });
    expect(await about()).toMatchObject({ anime_list: { watching: 1, completed: 1, on_hold: 0, dropped: 0, plan_to_watch: 0, total: 2 }, manga_list: null });
    // The manga list exists once used; a list made private disappears from the view.
    expectJson(await call(me.auth, 'GET', '/api/playlists/mangalist/'), 200);
    expectJson(await call(me.auth, 'PATCH', '/api/playlists/animelist/', { is_public: false }), 200);
    expect(await about()).toMatchObject({ anime_list: null, manga_list: { reading: 0, completed: 0, on_hold: 0, dropped: 0, plan_to_read: 0, total: 0 } });
  });

  it('a PATCH is the first use too; anonymous callers get 401; PUT is 405', async () => {
    const me = await member();
    const patched = expectJson(await call(me, 'PATCH', '/api/playlists/mangalist/', { name: 'Shelf' }), 200);
    expect(patched.name).toBe('Shelf');
    for (const [method, path] of [
      ['GET', '/api/playlists/animelist/'],
      ['PATCH', '/api/playlists/animelist/'],
      ['GET', ITEMS],
      ['POST', ITEMS],
      ['GET', `${ITEMS}AAAAAAAAAAAAAAAAAAAAAA/`],
    ] as const) {
      expectProblem(await send(server, method, path, { body: method === 'GET' ? undefined : {} }), 401, 'authentication-required');
    }
    expect((await call(me, 'PUT', '/api/playlists/animelist/', {})).status).toBe(405);
    expect((await call(me, 'PUT', `${ITEMS}AAAAAAAAAAAAAAAAAAAAAA/`, {})).status).toBe(405);
  });

  it('a refused PATCH (400, 412) is no first use: the first accepted one creates the list, with its values (found by the fuzz test)', async () => {
    const me = await member();
    expectErrors(await call(me, 'PATCH', '/api/playlists/animelist/', { is_public: [true] }), 400, 'validation-error', ['is_public']);
    expectProblem(await call(me, 'PATCH', '/api/playlists/mangalist/', { name: 'x' }, { 'if-match': '"stale"' }), 412, 'precondition-failed');
    for (const path of ['/api/playlists/animelist/', '/api/playlists/mangalist/']) {
      // Had the refused PATCH created the list, this one would change it (updated_at after created_at).
      const list = expectJson(await call(me, 'PATCH', path, { name: 'First' }), 200);
      expect(list).toMatchObject({ name: 'First', is_public: true, banner: null });
      expect(list.updated_at).toBe(list.created_at);
      expect(expectJson(await call(me, 'GET', path), 200)).toEqual(list);
    }
  });
});

describe('items', () => {
  it('are created with defaults, a card, a Location and an ETag; a title on the list twice → 409 with the existing id', async () => {
    const me = await member();
    const a = await anime({ episodes: 12, media_type: 'movie' });
    const res = await add(me, { anime_id: a.id });
    const item = expectJson(res, 201);
    expect(Object.keys(item)).toEqual(ITEM_KEYS);
    expect(item).toMatchObject({ status: 'plan_to_watch', score: 0, episodes_watched: 0, is_rewatching: false, times_rewatched: 0, rewatch_value: null, start_date: null, finish_date: null, priority: 'low', tags: [], notes: '', is_favorite: false });
    expect(item.anime).toEqual({ id: a.id, name: a.name, image: null, media_type: 'movie', status: 'upcoming', episodes: 12, score: null });
    expect(item.created_at).toMatch(TIMESTAMP);
    expect(res.headers.get('location')).toBe(`${server.url}${ITEMS}${item.id}/`);
    expect(res.headers.get('etag')).toBeTruthy();
    expect(expectJson(await call(me, 'GET', `${ITEMS}${item.id}/`), 200)).toEqual(item);
    const again = expectProblem(await add(me, { anime_id: a.id, status: 'watching' }), 409, 'conflict');
    expect(again.existing_id).toBe(item.id);
    expect(again.errors).toHaveProperty('anime_id');
  });

  it('refuse bad values, unknown titles and fields, progress past the title, dates out of order; anime_id cannot change', async () => {
    const me = await member();
    const a = await anime({ episodes: 12 });
    expectErrors(await add(me, {}), 400, 'validation-error', ['anime_id']);
    expectErrors(await add(me, { anime_id: 'AAAAAAAAAAAAAAAAAAAAAA' }), 400, 'validation-error', ['anime_id']);
    expectErrors(
      await add(me, { anime_id: a.id, status: 'reading', score: 11, episodes_watched: -1, times_rewatched: 1001, rewatch_value: 'huge', priority: 'urgent', tags: ['a', 'A'], notes: 'x'.repeat(2001), start_date: '1899-12-31', is_favorite: 'yes', extra: 1 }),
      400,
      'validation-error',
      ['status', 'score', 'episodes_watched', 'times_rewatched', 'rewatch_value', 'priority', 'tags.1', 'notes', 'start_date', 'is_favorite', 'extra'],
    );
    expectErrors(await add(me, { anime_id: a.id, episodes_watched: 13 }), 400, 'validation-error', ['episodes_watched']);
    expectErrors(await add(me, { anime_id: a.id, start_date: '2024-02-02', finish_date: '2024-02-01' }), 400, 'validation-error', ['finish_date']);
    const item = await added(me, { anime_id: a.id, episodes_watched: 12, start_date: '2024-02-01' });
    const path = `${ITEMS}${item.id}/`;
    expectErrors(await call(me, 'PATCH', path, { anime_id: a.id }), 400, 'validation-error', ['anime_id']);
    expectErrors(await call(me, 'PATCH', path, { finish_date: '2024-01-31' }), 400, 'validation-error', ['finish_date']);
    expectErrors(await call(me, 'PATCH', path, { episodes_watched: 13 }), 400, 'validation-error', ['episodes_watched']);
    // The bound applies to a progress field sent in the request: the title's count may have shrunk since.
    await call(editor, 'PATCH', `/api/animes/${a.id}/`, { episodes: 10 });
    expect(expectJson(await call(me, 'PATCH', path, { notes: 'still 12' }), 200).episodes_watched).toBe(12);
    expectErrors(await call(me, 'PATCH', path, { episodes_watched: 11 }), 400, 'validation-error', ['episodes_watched']);
    // An unknown count bounds nothing.
    const open = await anime();
    expect((await added(me, { anime_id: open.id, episodes_watched: 5000 })).episodes_watched).toBe(5000);
  });

  it('a progress field is checked against the title whenever it is sent, even at its stored value; one not sent is not checked (§3.11)', async () => {
    const me = await member();
    const a = await anime({ episodes: 12 });
    const item = await added(me, { anime_id: a.id, episodes_watched: 10 });
    const path = `${ITEMS}${item.id}/`;
    expectJson(await call(editor, 'PATCH', `/api/animes/${a.id}/`, { episodes: 5 }), 200);
    expectErrors(await call(me, 'PATCH', path, { episodes_watched: 10 }), 400, 'validation-error', ['episodes_watched']);
    expectErrors(await call(me, 'PATCH', path, { episodes_watched: 10, notes: 'same count' }), 400, 'validation-error', ['episodes_watched']);
    expect(expectJson(await call(me, 'PATCH', path, {}), 200).episodes_watched).toBe(10);
    expect(expectJson(await call(me, 'PATCH', path, { score: 8 }), 200)).toMatchObject({ episodes_watched: 10, score: 8 });
    expect(expectJson(await call(me, 'PATCH', path, { episodes_watched: 5 }), 200).episodes_watched).toBe(5);

    const m = await manga({ chapters: 100, volumes: 10 });
    const mangas = '/api/playlists/mangalist/mangas/';
    const mi = expectJson(await call(me, 'POST', mangas, { manga_id: m.id, chapters_read: 90, volumes_read: 9 }), 201);
    const mpath = `${mangas}${mi.id}/`;
    expectJson(await call(editor, 'PATCH', `/api/mangas/${m.id}/`, { chapters: 50, volumes: 5 }), 200);
    expectErrors(await call(me, 'PATCH', mpath, { chapters_read: 90 }), 400, 'validation-error', ['chapters_read']);
    expectErrors(await call(me, 'PATCH', mpath, { volumes_read: 9 }), 400, 'validation-error', ['volumes_read']);
    expectErrors(await call(me, 'PATCH', mpath, { chapters_read: 90, volumes_read: 9 }), 400, 'validation-error', ['chapters_read', 'volumes_read']);
    expect(expectJson(await call(me, 'PATCH', mpath, { notes: 'not sent, not checked' }), 200)).toMatchObject({ chapters_read: 90, volumes_read: 9 });
  });

  it('PATCH changes only what is sent ({} nothing), with If-Match; DELETE removes it (then 404)', async () => {
    const me = await member();
    const a = await anime();
    const created = await add(me, { anime_id: a.id });
    const item = expectJson(created, 201);
    const path = `${ITEMS}${item.id}/`;
    expect(expectJson(await call(me, 'PATCH', path, {}), 200)).toEqual(item);
    const patched = expectJson(await call(me, 'PATCH', path, { status: 'watching', tags: ['Rewatch later'], notes: 'Great opening' }), 200);
    expect(patched).toMatchObject({ ...item, status: 'watching', tags: ['Rewatch later'], notes: 'Great opening', updated_at: patched.updated_at });
    expect(patched.updated_at > item.updated_at).toBe(true);
    expectProblem(await call(me, 'PATCH', path, { score: 7 }, { 'if-match': created.headers.get('etag')! }), 412, 'precondition-failed');
    expectProblem(await call(me, 'DELETE', path, undefined, { 'if-match': created.headers.get('etag')! }), 412, 'precondition-failed');
    expect((await call(me, 'DELETE', path)).status).toBe(204);
    for (const method of ['GET', 'PATCH', 'DELETE']) expectProblem(await call(me, method, path, method === 'PATCH' ? { score: 1 } : undefined), 404, 'not-found');
    // The title can be added again (a new item).
    expect((await added(me, { anime_id: a.id })).id).not.toBe(item.id);
  });

  it("another user's item is indistinguishable from none, for every caller (administrators included)", async () => {
    const owner = await member();
    const other = await member();
    const a = await anime();
    const item = await added(owner, { anime_id: a.id, score: 9 });
    const path = `${ITEMS}${item.id}/`;
    for (const auth of [other, admin]) {
      expectProblem(await call(auth, 'GET', path), 404, 'not-found');
      expectProblem(await call(auth, 'PATCH', path, { score: 1 }), 404, 'not-found');
      expectProblem(await call(auth, 'DELETE', path), 404, 'not-found');
      expect(expectJson(await call(auth, 'GET', ITEMS), 200).results.map((r: any) => r.id)).not.toContain(item.id);
      // The other's manga path does not reach it either.
      expectProblem(await call(auth, 'GET', `/api/playlists/mangalist/mangas/${item.id}/`), 404, 'not-found');
    }
    expect(expectJson(await call(owner, 'GET', path), 200).score).toBe(9);
    expectProblem(await call(owner, 'GET', `/api/playlists/mangalist/mangas/${item.id}/`), 404, 'not-found');
    expectProblem(await call(owner, 'GET', `${ITEMS}not*an*id/`), 404, 'not-found');
  });
});

describe('the numbers they feed', () => {
  it('list counts, members, scored_by, score, favorites and statistics are exact after each edit', async () => {
    const a = await anime();
    const users = await Promise.all([1, 2, 3, 4].map(() => member()));
    const items = [
      await added(users[0]!, { anime_id: a.id, status: 'watching', score: 8, is_favorite: true }),
      await added(users[1]!, { anime_id: a.id, status: 'completed', score: 7 }),
      await added(users[2]!, { anime_id: a.id, status: 'completed', score: 8 }),
      await added(users[3]!, { anime_id: a.id }),
    ];
    // (8 + 7 + 8) / 3 = 7.666… → 7.67
    expect(items[3].anime.score).toBe(7.67);
    let s = await stats(a.id);
    expect(s).toEqual({
      anime_id: a.id,
      watching: 1,
      completed: 2,
      on_hold: 0,
      dropped: 0,
      plan_to_watch: 1,
      total: 4,
      scored_by: 3,
      score: 7.67,
      scores: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((score) => ({ score, votes: score === 7 ? 1 : score === 8 ? 2 : 0, percentage: score === 7 ? 33.3 : score === 8 ? 66.7 : 0 })),
    });
    expect(await detail(a.id)).toMatchObject({ members: 4, scored_by: 3, score: 7.67, favorites: 1 });
    const listed = expectJson(await send(server, 'GET', `/api/animes/?q=${encodeURIComponent(a.name)}`), 200).results.find((r: any) => r.id === a.id);
    expect(listed).toMatchObject({ members: 4, scored_by: 3, score: 7.67, favorites: 1 });
    expect(expectJson(await call(users[1]!, 'GET', '/api/playlists/animelist/'), 200).counts).toMatchObject({ completed: 1, total: 1 });

    // Changes: a score removed, a status moved, a favourite withdrawn, an item deleted.
    await call(users[1]!, 'PATCH', `${ITEMS}${items[1].id}/`, { score: 0, status: 'dropped' });
    await call(users[0]!, 'PATCH', `${ITEMS}${items[0].id}/`, { is_favorite: false, score: 10 });
    expect((await call(users[2]!, 'DELETE', `${ITEMS}${items[2].id}/`)).status).toBe(204);
    s = await stats(a.id);
    expect(s).toMatchObject({ watching: 1, completed: 0, dropped: 1, plan_to_watch: 1, total: 3, scored_by: 1, score: 10 });
    expect(s.scores[9]).toEqual({ score: 10, votes: 1, percentage: 100 });
    expect(await detail(a.id)).toMatchObject({ members: 3, scored_by: 1, score: 10, favorites: 0 });
    expect(expectJson(await call(users[1]!, 'GET', '/api/playlists/animelist/'), 200).counts).toMatchObject({ completed: 0, dropped: 1, total: 1 });
    expect(expectJson(await call(users[2]!, 'GET', '/api/playlists/animelist/'), 200).counts.total).toBe(0);
  });

  it('a catalogue edit of the title keeps its counters; its ETag follows them', async () => {
    const a = await anime();
    const me = await member();
    await added(me, { anime_id: a.id, score: 6 });
    const before = await send(server, 'GET', `/api/animes/${a.id}/`);
    const edited = expectJson(await call(editor, 'PATCH', `/api/animes/${a.id}/`, { synopsis: 'A story.' }, { 'if-match': before.headers.get('etag')! }), 200);
    expect(edited).toMatchObject({ synopsis: 'A story.', members: 1, scored_by: 1, score: 6 });
    expect(await stats(a.id)).toMatchObject({ total: 1, score: 6 });
    const etag = (await send(server, 'GET', `/api/animes/${a.id}/`)).headers.get('etag');
    await added(await member(), { anime_id: a.id, score: 8 });
    const after = await send(server, 'GET', `/api/animes/${a.id}/`);
    expect(after.body.score).toBe(7);
    expect(after.headers.get('etag')).not.toBe(etag);
  });

  it('statistics: 404 for an unknown title; an unlisted title has zeros and a null score', async () => {
    expectProblem(await send(server, 'GET', '/api/animes/AAAAAAAAAAAAAAAAAAAAAA/stats/'), 404, 'not-found');
    expectProblem(await send(server, 'GET', '/api/mangas/AAAAAAAAAAAAAAAAAAAAAA/stats/'), 404, 'not-found');
    const m = await manga();
    const s = expectJson(await send(server, 'GET', `/api/mangas/${m.id}/stats/`), 200);
    expect(s).toEqual({ manga_id: m.id, reading: 0, completed: 0, on_hold: 0, dropped: 0, plan_to_read: 0, total: 0, scored_by: 0, score: null, scores: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((score) => ({ score, votes: 0, percentage: 0 })) });
  });
});

describe('the items page', () => {
  it('filters by status, orders by every key both ways (ties by id), pages with an exact count', async () => {
    const me = await member();
    const titles = await Promise.all(['Delta', 'alpha', 'Charlie', 'bravo', 'Echo'].map((n) => anime({ name: uniqueName(n) })));
    const specs = [
      { status: 'watching', score: 5, start_date: '2024-03-01' },
      { status: 'completed', score: 9, start_date: null },
      { status: 'watching', score: 5, start_date: '2023-01-01', finish_date: '2023-02-01' },
      { status: 'dropped', score: 0, start_date: '2024-01-01' },
      { status: 'watching', score: 7 },
    ];
    const items: any[] = [];
    for (const [i, spec] of specs.entries()) items.push(await added(me, { anime_id: titles[i]!.id, ...spec }));
    const all = await pages(me, `${ITEMS}?limit=2`);
    expect(all.count).toBe(5);
    // Default: the most recently updated first.
    expect(all.results.map((r) => r.id)).toEqual([...items].reverse().map((r) => r.id));
    expect(all.responses[0]!.headers.get('cache-control')).toBe('private, no-store');
    const watching = await pages(me, `${ITEMS}?status=watching&ordering=score&limit=2`);
    expect(watching.count).toBe(3);
    const byScore = [items[0], items[2]].sort((x, y) => (x.id < y.id ? -1 : 1));
    expect(watching.results.map((r) => r.id)).toEqual([...byScore.map((r) => r.id), items[4].id]);
    const byName = await pages(me, `${ITEMS}?ordering=-name`);
    const names = byName.results.map((r) => r.anime.name.toLowerCase());
    expect(names).toEqual([...names].sort().reverse());
    // Nulls last in both directions.
    for (const o of ['start_date', '-start_date', 'finish_date', '-finish_date']) {
      const key = o.replace('-', '');
      const got = (await pages(me, `${ITEMS}?ordering=${o}`)).results.map((r) => r[key]);
      const set = got.filter((v) => v !== null);
      expect(got.slice(set.length).every((v) => v === null), o).toBe(true);
      expect(set, o).toEqual([...set].sort()[o.startsWith('-') ? 'reverse' : 'slice']());
    }
    const sparse = expectJson(await call(me, 'GET', `${ITEMS}?fields=status,anime&limit=1`), 200);
    expect(Object.keys(sparse.results[0]).sort()).toEqual(['anime', 'id', 'status']);
    expectProblem(await call(me, 'GET', `${ITEMS}?status=reading`), 400, 'invalid-query');
    expectProblem(await call(me, 'GET', `${ITEMS}?ordering=members`), 400, 'invalid-query');
  });

  it('leaves out the items of a title deleted since, at once', async () => {
    const me = await member();
    const [a, b] = await Promise.all([anime(), anime()]);
    const gone = await added(me, { anime_id: a.id, score: 3 });
    await added(me, { anime_id: b.id });
    expect((await call(editor, 'DELETE', `/api/animes/${a.id}/`)).status).toBe(204);
    const page = await pages(me, ITEMS);
    expect(page.results.map((r) => r.anime.id)).toEqual([b.id]);
    expect(page.count).toBe(1);
    expectProblem(await call(me, 'GET', `${ITEMS}${gone.id}/`), 404, 'not-found');
    expectProblem(await call(me, 'PATCH', `${ITEMS}${gone.id}/`, { score: 4 }), 404, 'not-found');
    expectErrors(await add(me, { anime_id: a.id }), 400, 'validation-error', ['anime_id']);
  });
});

describe('manga lists', () => {
  it('bound chapters and volumes by the manga, count by manga statuses and feed the manga numbers', async () => {
    const me = await member();
    const m = await manga({ chapters: 100, volumes: 10 });
    const path = '/api/playlists/mangalist/mangas/';
    // Shape errors first (as for titles, decision 90), then the bounds.
    expectErrors(await call(me, 'POST', path, { manga_id: m.id, chapters_read: 101, status: 'watching' }), 400, 'validation-error', ['status']);
    expectErrors(await call(me, 'POST', path, { manga_id: m.id, chapters_read: 101, volumes_read: 11 }), 400, 'validation-error', ['chapters_read', 'volumes_read']);
    const item = expectJson(await call(me, 'POST', path, { manga_id: m.id, status: 'reading', chapters_read: 100, score: 9, is_rereading: true, times_reread: 2, reread_value: 'high' }), 201);
    expect(Object.keys(item)).toEqual(['id', 'manga', 'status', 'score', 'chapters_read', 'volumes_read', 'is_rereading', 'times_reread', 'reread_value', 'start_date', 'finish_date', 'priority', 'tags', 'notes', 'is_favorite', 'created_at', 'updated_at']);
    expect(item.manga).toEqual({ id: m.id, name: m.name, image: null, media_type: 'manga', status: 'upcoming', chapters: 100, volumes: 10, score: 9 });
    expect(expectJson(await call(me, 'GET', '/api/playlists/mangalist/'), 200).counts).toMatchObject({ reading: 1, total: 1 });
    expect(expectJson(await send(server, 'GET', `/api/mangas/${m.id}/`), 200)).toMatchObject({ members: 1, scored_by: 1, score: 9 });
  });
});

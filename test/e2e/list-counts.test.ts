/**
 * A deleted title leaves its owners' list `counts` at once (API.md §5.1, clarified 2026-11-29;
 * §3.11 "exact immediately"; docs/decisions.md C3, V1): right after the `DELETE` of a title
 * returns, and until the relations consumer's cascade has removed its items, every response that
 * shows a list's counts (the list, its `PATCH`, the owner's public `about` view) leaves them out;
 * once the cascade has run, the same numbers, not one less. The stream consumers of this file
 * do not run until the test starts them, so "right after the 204" is the state before the cascade
 * whatever the machine's speed.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startStreamPoller, type StreamPoller } from '../../infra/local/streams.js';
import { countsWithoutDeleted } from '../../shared/db/playlists.js';
import { Deleted } from '../../shared/db/tombstones.js';
import { ANIME_LIST, MANGA_LIST } from '../../shared/domain/playlists.js';
import { expectJson, send, uniqueName } from '../support/contract.js';
import { expectRecount } from '../support/recount.js';
import { useServer } from '../support/server.js';

const server = useServer({ background: false });
type Auth = Record<string, string>;
let poller: StreamPoller | undefined;
afterAll(async () => {
  await poller?.stop();
});

const call = (auth: Auth, method: string, path: string, body?: unknown, headers: Auth = {}) => send(server, method, path, { body, headers: { ...auth, ...headers } });
const title = async (auth: Auth, kind: 'animes' | 'mangas') => expectJson(await call(auth, 'POST', `/api/${kind}/`, { name: uniqueName('Counted') }), 201);
const ANIMES = '/api/playlists/animelist/';
const MANGAS = '/api/playlists/mangalist/';

describe('list counts after a title is deleted', () => {
  it('leave the deleted anime and manga out right after the 204, and show the same numbers once the cascade has run', { timeout: 120_000 }, async () => {
    const editor = (await server.user('contributor')).auth;
    const me = await server.user('member');
    const other = await server.user('member');
    const [gone, kept] = [await title(editor, 'animes'), await title(editor, 'animes')];
    const [goneManga, keptManga] = [await title(editor, 'mangas'), await title(editor, 'mangas')];
    expectJson(await call(me.auth, 'POST', `${ANIMES}animes/`, { anime_id: gone.id, status: 'watching', score: 9 }), 201);
    expectJson(await call(me.auth, 'POST', `${ANIMES}animes/`, { anime_id: kept.id, status: 'completed' }), 201);
    expectJson(await call(me.auth, 'POST', `${MANGAS}mangas/`, { manga_id: goneManga.id, status: 'reading' }), 201);
    expectJson(await call(me.auth, 'POST', `${MANGAS}mangas/`, { manga_id: keptManga.id }), 201);
    // Another member lists only the kept anime: a pending deletion changes nothing of theirs.
    expectJson(await call(other.auth, 'POST', `${ANIMES}animes/`, { anime_id: kept.id, status: 'on_hold' }), 201);
    const counts = async (auth: Auth, path: string) => expectJson(await call(auth, 'GET', path), 200).counts;
    expect(await counts(me.auth, ANIMES)).toEqual({ watching: 1, completed: 1, on_hold: 0, dropped: 0, plan_to_watch: 0, total: 2 });
    expect(await counts(me.auth, MANGAS)).toEqual({ reading: 1, completed: 0, on_hold: 0, dropped: 0, plan_to_read: 1, total: 2 });

    expect((await call(editor, 'DELETE', `/api/animes/${gone.id}/`)).status).toBe(204);
    expect((await call(editor, 'DELETE', `/api/mangas/${goneManga.id}/`)).status).toBe(204);

    // At once (the cascade has not run: no consumer is running yet).
    const animeCounts = { watching: 0, completed: 1, on_hold: 0, dropped: 0, plan_to_watch: 0, total: 1 };
    const mangaCounts = { reading: 0, completed: 0, on_hold: 0, dropped: 0, plan_to_read: 1, total: 1 };
    const now = async () => {
      const list = await call(me.auth, 'GET', ANIMES);
      expect(expectJson(list, 200).counts).toEqual(animeCounts);
      expect(await counts(me.auth, MANGAS)).toEqual(mangaCounts);
      expect(expectJson(await call(me.auth, 'GET', `${ANIMES}animes/`), 200).count).toBe(1);
      const about = expectJson(await send(server, 'GET', `/api/users/${me.username}/about/`), 200);
      expect(about).toMatchObject({ anime_list: animeCounts, manga_list: mangaCounts });
      // The PATCH shows the same counts, and the GET's ETag is current.
      const patched = expectJson(await call(me.auth, 'PATCH', ANIMES, { name: uniqueName('Mine') }, { 'if-match': list.headers.get('etag')! }), 200);
      expect(patched.counts).toEqual(animeCounts);
      expect(await counts(other.auth, ANIMES)).toEqual({ watching: 0, completed: 0, on_hold: 1, dropped: 0, plan_to_watch: 0, total: 1 });
    };
    await now();

    // The consumers run: the cascade removes the items with their counts; the numbers stay.
    poller = await startStreamPoller({ endpoint: process.env.AWS_ENDPOINT_URL_DYNAMODB!, table: process.env.TABLE_NAME! });
    const items = await expectRecount(poller);
    expect([...items.keys()].filter((k) => k.includes(gone.id) || k.includes(goneManga.id))).toEqual([]);
    await now();
    // Both at once — counts read before the cascade, the tombstone still naming the title when the
    // claims are read after it (its cascade done, the tombstone not cleared yet) — subtract nothing twice.
    const stale = { watching: 1, completed: 1, on_hold: 0, dropped: 0, plan_to_watch: 0 };
    const pending = new Deleted({ ANIME: new Set([gone.id]), MANGA: new Set([goneManga.id]) });
    expect(await countsWithoutDeleted(ANIME_LIST, me.id, stale, pending)).toMatchObject({ watching: 0, completed: 1 });
    expect(await countsWithoutDeleted(MANGA_LIST, me.id, { reading: 1, plan_to_read: 1 }, pending)).toMatchObject({ reading: 0, plan_to_read: 1 });
  });
});

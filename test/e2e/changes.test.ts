/**
 * `GET /api/changes/` (API.md §8.5) through the service: one entry per committed write of a
 * catalogue or taxonomy record, in commit order, visible within 5 seconds of the write's response
 * (the stream poller numbers them, as the sequencer's mapping does on AWS); none for a write that
 * changes nothing, for derived numbers (list items, reviews) or reverse
 * views; `next` always present and polled from the same point when caught up; `kind` (repeated
 * or comma-separated) and `since`; bounded pages that skip other kinds' entries; 410 for a
 * cursor older than the 30 days kept; 400s for bad parameters.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { setClock } from '../../shared/clock.js';
import { expectErrors, expectJson, expectProblem, send, TIMESTAMP, uniqueName } from '../support/contract.js';
import { useServer } from '../support/server.js';

const server = useServer();
let editor: Record<string, string>;
let member: Record<string, string>;
let moderator: Record<string, string>;

interface Entry {
  kind: string;
  id: string;
  change: string;
  at: string;
}

/** Every entry from `path` on until the feed is caught up, and the `next` that resumes after them. */
async function follow(path: string): Promise<{ entries: Entry[]; next: string }> {
  const entries: Entry[] = [];
  let url = path;
  for (let i = 0; i < 1000; i++) {
    const res = await send(server, 'GET', url);
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body)).toEqual(['results', 'next']);
    expect(res.headers.get('cache-control')).toBe('no-store');
    entries.push(...res.body.results);
    if (res.body.results.length === 0 && res.body.next === url) return { entries, next: url };
    url = res.body.next;
    // A caught-up page's `next` starts where it started: polled again, it answers the same.
    if (res.body.results.length === 0) {
      const again = await send(server, 'GET', url);
      if (again.body.results.length === 0) return { entries, next: url };
    }
  }
  throw new Error('the feed never caught up');
}

const post = async (path: string, body: Record<string, unknown>) => expectJson(await send(server, 'POST', path, { body, headers: editor }), 201);

/**
 * Polls from `next` until `n` entries came (failing after §8.5's 5 seconds), then checks that
 * no more follow: the entries, the `next` after them and how long the last took.
 */
async function entriesFrom(next: string, n: number): Promise<{ entries: Entry[]; next: string; ms: number }> {
  const from = Date.now();
  const entries: Entry[] = [];
  let url = next;
  while (entries.length < n) {
    if (Date.now() - from > 5_000) throw new Error(`${entries.length} of ${n} entries after 5 s: ${JSON.stringify(entries)}`);
    const res = await send(server, 'GET', url);
    expect(res.status, res.text).toBe(200);
    entries.push(...res.body.results);
    url = res.body.next;
    if (res.body.results.length === 0) await new Promise((r) => setTimeout(r, 50));
  }
  const ms = Date.now() - from;
  const after = await follow(url);
  return { entries: [...entries, ...after.entries], next: after.next, ms };
}

/** The `next` after the entry of the last write, `id` (within 5 s), from the start of the file's feed. */
async function through(id: string): Promise<string> {
  const from = Date.now();
  for (;;) {
    const { entries, next } = await follow(start);
    if (entries.some((e) => e.id === id)) return next;
    if (Date.now() - from > 5_000) throw new Error(`no entry for ${id} after 5 s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

let start: string;
beforeAll(async () => {
  editor = (await server.user('contributor')).auth;
  member = (await server.user('member')).auth;
  moderator = (await server.user('moderator')).auth;
  start = (await follow('/api/changes/')).next;
});
afterEach(() => setClock(null));

describe('GET /api/changes/', () => {
  it("one entry per committed write, in commit order, each within 5 s of its write's response", async () => {
    let { next } = await follow(start);
    const genre = await post('/api/genres/', { name: uniqueName('Feed genre') });
    // Visible within 5 s of the write's response (entriesFrom fails after that).
    let got = await entriesFrom(next, 1);
    expect(got.entries.map((e) => [e.kind, e.id, e.change])).toEqual([['genre', genre.id, 'created']]);
    expect(got.entries[0]!.at).toMatch(TIMESTAMP);
    next = got.next;

    const anime = await post('/api/animes/', { name: uniqueName('Feed anime'), genre_ids: [genre.id] });
    expectJson(await send(server, 'PATCH', `/api/animes/${anime.id}/`, { body: { synopsis: 'Changed.' }, headers: editor }), 200);
    // A write that changes nothing makes no entry.
    expectJson(await send(server, 'PATCH', `/api/animes/${anime.id}/`, { body: { synopsis: 'Changed.' }, headers: editor }), 200);
    expectJson(await send(server, 'PATCH', `/api/genres/${genre.id}/`, { body: { description: 'Now described.' }, headers: editor }), 200);
    const character = await post('/api/characters/', { name: uniqueName('Feed character') });
    const person = await post('/api/persons/', { name: uniqueName('Feed person') });
    const news = expectJson(await send(server, 'POST', '/api/news/', { body: { name: uniqueName('Feed news'), content: 'Words.', anime_ids: [anime.id] }, headers: moderator }), 201);
    const theme = await post('/api/themes/', { name: uniqueName('Feed theme') });
    const demographic = await post('/api/demographics/', { name: uniqueName('Feed demographic') });
    const magazine = await post('/api/magazines/', { name: uniqueName('Feed magazine') });
    const producer = await post('/api/producers/', { name: uniqueName('Feed studio'), type: 'studio' });
    const manga = await post('/api/mangas/', { name: uniqueName('Feed manga'), demographic_ids: [demographic.id], magazine_ids: [magazine.id] });
    expect((await send(server, 'DELETE', `/api/themes/${theme.id}/`, { headers: editor })).status).toBe(204);
    expect((await send(server, 'DELETE', `/api/characters/${character.id}/`, { headers: editor })).status).toBe(204);

    got = await entriesFrom(next, 13);
    const want = [
      ['anime', anime.id, 'created'],
      ['anime', anime.id, 'updated'],
      ['genre', genre.id, 'updated'],
      ['character', character.id, 'created'],
      ['person', person.id, 'created'],
      ['news', news.id, 'created'],
      ['theme', theme.id, 'created'],
      ['demographic', demographic.id, 'created'],
      ['magazine', magazine.id, 'created'],
      ['producer', producer.id, 'created'],
      ['manga', manga.id, 'created'],
      ['theme', theme.id, 'deleted'],
      ['character', character.id, 'deleted'],
    ];
    expect(got.entries.map((e) => [e.kind, e.id, e.change])).toEqual(want);
    const times = got.entries.map((e) => e.at);
    expect([...times].sort()).toEqual(times);
  });

  it('no entry for derived numbers: list items and reviews', async () => {
    const anime = await post('/api/animes/', { name: uniqueName('Listed feed anime') });
    const next = await through(anime.id);
    expectJson(await send(server, 'POST', '/api/playlists/animelist/animes/', { body: { anime_id: anime.id, status: 'completed', score: 9, is_favorite: true }, headers: member }), 201);
    expectJson(await send(server, 'POST', `/api/animes/${anime.id}/reviews/create/`, { body: { comment: 'A long enough review of this anime, for the feed test.', rating: 9 }, headers: member }), 201);
    const detail = expectJson(await send(server, 'GET', `/api/animes/${anime.id}/`), 200);
    expect(detail.members).toBe(1);
    // A write after them: its entry is the first that comes.
    const marker = await post('/api/genres/', { name: uniqueName('Marker genre') });
    expect((await entriesFrom(next, 1)).entries.map((e) => e.id)).toEqual([marker.id]);
  });

  it('`kind`, repeated or comma-separated; bounded pages that move past other kinds', async () => {
    const first = await post('/api/genres/', { name: uniqueName('Kinds first') });
    const next = await through(first.id);
    const a = await post('/api/genres/', { name: uniqueName('Kinds genre') });
    const b = await post('/api/themes/', { name: uniqueName('Kinds theme') });
    const c = await post('/api/magazines/', { name: uniqueName('Kinds magazine') });
    const all = await entriesFrom(next, 3);
    expect(all.entries.map((e) => e.id)).toEqual([a.id, b.id, c.id]);
    // A first page with `since`: from the first entry at or after it.
    const genreAt = all.entries[0]!.at;
    const fromSince = await follow(`/api/changes/?since=${encodeURIComponent(genreAt)}&kind=genre&kind=magazine`);
    expect(fromSince.entries.map((e) => e.id)).toEqual([a.id, c.id]);
    const comma = await follow(`/api/changes/?since=${encodeURIComponent(genreAt)}&kind=theme,magazine&limit=1`);
    expect(comma.entries.map((e) => e.id)).toEqual([b.id, c.id]);
    // Pages of one entry: each `next` moves on.
    const page = expectJson(await send(server, 'GET', `/api/changes/?since=${encodeURIComponent(genreAt)}&limit=1`), 200);
    expect(page.results.map((e: Entry) => e.id)).toEqual([a.id]);
    expect(page.next).toContain('limit=1');
    const second = expectJson(await send(server, 'GET', page.next), 200);
    expect(second.results.map((e: Entry) => e.id)).toEqual([b.id]);
  });

  it('a cursor older than the 30 days kept → 410; a first request then starts at the retention', async () => {
    const genre = await post('/api/genres/', { name: uniqueName('Old genre') });
    const before = { next: await through(genre.id) };
    setClock(new Date(Date.now() + 31 * 86_400_000));
    expectProblem(await send(server, 'GET', start), 410, 'gone');
    // Caught up at the end: nothing was missed, so the cursor still works.
    expect(expectJson(await send(server, 'GET', before.next), 200).results).toEqual([]);
    const fresh = expectJson(await send(server, 'GET', '/api/changes/'), 200);
    expect(fresh.results).toEqual([]);
  });

  it('400s: unknown kind, bad since, limit, repeated parameters other than kind, a cursor of another query', async () => {
    expectErrors(await send(server, 'GET', '/api/changes/?kind=user'), 400, 'invalid-query', ['kind']);
    expectErrors(await send(server, 'GET', '/api/changes/?kind=anime,'), 400, 'invalid-query', ['kind']);
    expectErrors(await send(server, 'GET', '/api/changes/?since=yesterday'), 400, 'invalid-query', ['since']);
    expectErrors(await send(server, 'GET', '/api/changes/?since=2026-02-30T00:00:00Z'), 400, 'invalid-query', ['since']);
    expectErrors(await send(server, 'GET', '/api/changes/?since=2026-01-01T00:00:00Z&since=2026-01-02T00:00:00Z'), 400, 'invalid-query', ['since']);
    expectErrors(await send(server, 'GET', '/api/changes/?limit=101'), 400, 'invalid-query', ['limit']);
    expectErrors(await send(server, 'GET', '/api/changes/?offset=3'), 400, 'invalid-query', ['offset']);
    const page = expectJson(await send(server, 'GET', '/api/changes/?kind=genre'), 200);
    const cursor = new URL(page.next).searchParams.get('cursor')!;
    expectErrors(await send(server, 'GET', `/api/changes/?kind=anime&cursor=${encodeURIComponent(cursor)}`), 400, 'invalid-query', ['cursor']);
    expect(expectJson(await send(server, 'GET', `/api/changes/?since=2026-01-01T09:00:00%2B09:00`), 200).next).toContain('since=');
  });
});

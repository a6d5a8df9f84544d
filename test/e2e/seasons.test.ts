/**
 * Seasons (API.md §4.16, §5.2): the animes whose `aired_from` falls in a season, with the
 * envelope's `year` and `season`; `media_type` and `status` filters (count `null`), the four
 * orderings both ways (`-members` by default), pages, `fields`; 404 for bad path values and 400
 * for bad query values; `now` and `upcoming` by the UTC date of a fixed clock; changes of
 * `aired_from`, `status` and deletions at once. And `next_episode` (§5.3) in every anime
 * representation, daylight-saving change included.
 */
import { readHead } from '../../shared/db/index-deltas.js';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { animeTitle, type AnimeRecord } from '../../shared/db/animes.js';
import { tableName } from '../../shared/db/client.js';
import { db } from '../../shared/db/sdk.js';
import { recordKeyOfKind } from '../../shared/db/records.js';
import { commitStaged } from '../../shared/db/staged.js';
import { loadTitle, statAttribute, titleWrite } from '../../shared/db/titles.js';
import { setClock } from '../../shared/clock.js';
import { contractOrder } from '../support/list-rules.js';
import { expectErrors, expectJson, expectProblem, send, uniqueName, walk } from '../support/contract.js';
import { useServer } from '../support/server.js';

const server = useServer();
let auth: Record<string, string>;
beforeAll(async () => {
  auth = (await server.user('contributor')).auth;
  setClock('2025-11-03T12:00:00.000Z');
});
afterAll(() => setClock(null));

const ENVELOPE = ['count', 'next', 'previous', 'results', 'year', 'season'];
const create = async (extra: Record<string, unknown>) => expectJson(await send(server, 'POST', '/api/animes/', { body: { name: uniqueName('Season anime'), ...extra }, headers: auth }), 201);
const patch = async (id: string, body: Record<string, unknown>) => expectJson(await send(server, 'PATCH', `/api/animes/${id}/`, { body, headers: auth }), 200);
const get = async (path: string) => expectJson(await send(server, 'GET', path), 200);
const ids = (page: { results: { id: string }[] }) => page.results.map((r) => r.id);

/**
 * Sets derived numbers as list items and a rankings run would leave them: the counters of the
 * record item (`st_*`, what every representation shows, written by list edits) and the index's
 * values (what orderings use, refreshed by the rankings job) — the title write with the numbers.
 */
async function setNumbers(id: string, numbers: Pick<AnimeRecord, 'members' | 'score'>, counters: Record<string, number>): Promise<void> {
  const before = (await loadTitle(animeTitle, id))!;
  const plan = titleWrite(animeTitle, before, { after: { ...before.record, ...numbers }, relations: before.relations, links: [], deltaHead: await readHead('ANIME') });
  await commitStaged(plan.main, plan.rest, plan.pk, plan.rev, plan.write);
  const names = Object.keys(counters);
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: recordKeyOfKind('ANIME', id),
      UpdateExpression: `SET ${names.map((_, i) => `#k${i} = :v${i}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(names.map((n, i) => [`#k${i}`, statAttribute(n)])),
      ExpressionAttributeValues: Object.fromEntries(names.map((n, i) => [`:v${i}`, counters[n]])),
    }),
  );
}

describe('GET /api/seasons/{year}/{season}/', () => {
  let fall: any[];
  beforeAll(async () => {
    // Fall 1995 (October–December) and its neighbours.
    fall = [
      await create({ name: uniqueName('Beta'), aired_from: '1995-10-01', media_type: 'tv', status: 'finished' }),
      await create({ name: uniqueName('alpha'), aired_from: '1995-12-31', media_type: 'movie', status: 'finished' }),
      await create({ name: uniqueName('Gamma'), aired_from: '1995-11-15', media_type: 'tv', status: 'airing' }),
      await create({ name: uniqueName('Delta'), aired_from: '1995-10-20', media_type: 'ova', status: 'upcoming' }),
    ];
    await create({ aired_from: '1995-09-30' });
    await create({ aired_from: '1996-01-01' });
    await create({});
    const numbers: [Pick<AnimeRecord, 'members' | 'score'>, Record<string, number>][] = [
      [{ members: 10, score: 7.5 }, { watching: 10, s7: 1, s8: 1 }],
      [{ members: 30, score: null }, { completed: 30 }],
      [{ members: 20, score: 8.25 }, { watching: 20, s8: 3, s9: 1 }],
      [{ members: 20, score: 6 }, { plan_to_watch: 20, s6: 1 }],
    ];
    for (const [i, [n, counters]] of numbers.entries()) await setNumbers(fall[i].id, n, counters);
    fall = await Promise.all(fall.map((a) => get(`/api/animes/${a.id}/`)));
  });

  it('the animes of the season by -members (default), with year and season in the envelope; items are the Anime representation; count exact', async () => {
    const res = await send(server, 'GET', '/api/seasons/1995/fall/');
    const page = expectJson(res, 200);
    expect(Object.keys(page)).toEqual(ENVELOPE);
    expect(page).toMatchObject({ count: 4, next: null, previous: null, year: 1995, season: 'fall' });
    expect(ids(page)).toEqual(contractOrder(fall, (a) => a.members, 'count', true).map((a) => a.id));
    for (const a of fall) expect(page.results.find((r: { id: string }) => r.id === a.id)).toEqual(a);
    expect(res.headers.get('cache-control')).toBe('public, max-age=60');
    expect(res.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    // Neighbouring seasons hold the others.
    expect((await get('/api/seasons/1995/summer/')).count).toBe(1);
    expect((await get('/api/seasons/1996/winter/')).count).toBe(1);
  });

  it.each([
    ['members', 'count'],
    ['score', 'count'],
    ['name', 'text'],
    ['aired_from', 'plain'],
  ] as const)('ordering=%s (a %s key), both directions: by the key (nulls last), then by id', async (key, type) => {
    for (const descending of [false, true]) {
      const page = await get(`/api/seasons/1995/fall/?ordering=${descending ? '-' : ''}${key}`);
      expect(ids(page)).toEqual(contractOrder(fall, (a) => a[key], type, descending).map((a) => a.id));
      expect(page.count).toBe(4);
    }
  });

  it('media_type and status filters (AND): exact matches, count null; a filter nothing matches is an empty page', async () => {
    const tv = await get('/api/seasons/1995/fall/?media_type=tv&ordering=name');
    expect(tv.count).toBeNull();
    expect(ids(tv)).toEqual(contractOrder(fall.filter((a) => a.media_type === 'tv'), (a) => a.name, 'text', false).map((a) => a.id));
    expect(ids(await get('/api/seasons/1995/fall/?status=finished&media_type=movie'))).toEqual([fall[1].id]);
    expect(await get('/api/seasons/1995/fall/?media_type=music')).toEqual({ count: null, next: null, previous: null, results: [], year: 1995, season: 'fall' });
  });

  it('pages: every anime once, in order, count on each page; previous goes back; a cursor is bound to its query', async () => {
    const { results, pages } = await walk(server, '/api/seasons/1995/fall/?limit=1&ordering=name', ['year', 'season']);
    expect(results.map((r) => r.id)).toEqual(contractOrder(fall, (a) => a.name, 'text', false).map((a) => a.id));
    expect(pages.every((p) => p.body.count === 4 && p.body.year === 1995 && p.body.season === 'fall')).toBe(true);
    const second = pages[1]!.body;
    expect(ids(await get(new URL(second.previous).pathname + new URL(second.previous).search))).toEqual([results[0].id]);
    const cursor = new URL(pages[0]!.body.next).searchParams.get('cursor')!;
    expectErrors(await send(server, 'GET', `/api/seasons/1995/fall/?limit=1&ordering=-name&cursor=${cursor}`), 400, 'invalid-query', ['cursor']);
    expectErrors(await send(server, 'GET', `/api/seasons/1995/winter/?limit=1&ordering=name&cursor=${cursor}`), 400, 'invalid-query', ['cursor']);
  });

  it('fields: only those keys (and id) of each anime; the envelope is unaffected', async () => {
    const page = await get('/api/seasons/1995/fall/?fields=name,members');
    expect(Object.keys(page)).toEqual(ENVELOPE);
    expect(page.results[0]).toEqual({ id: page.results[0].id, name: page.results[0].name, members: page.results[0].members });
    expectErrors(await send(server, 'GET', '/api/seasons/1995/fall/?fields=name,votes'), 400, 'invalid-query', ['fields']);
  });

  it('an empty season: 200 with no results and an exact count of 0', async () => {
    expect(await get('/api/seasons/2100/winter/')).toEqual({ count: 0, next: null, previous: null, results: [], year: 2100, season: 'winter' });
    expect(await get('/api/seasons/1900/fall/?status=airing')).toEqual({ count: null, next: null, previous: null, results: [], year: 1900, season: 'fall' });
  });

  it('404 for any other year or season in the path; 404 for a path without the season', async () => {
    for (const path of ['1899/fall', '2101/fall', '95/fall', '01995/fall', 'abcd/fall', '1995/autumn', '1995/Fall', '1995/now', '%201995/fall', '1995/fall%20']) {
      expectProblem(await send(server, 'GET', `/api/seasons/${path}/`), 404, 'not-found');
    }
    expectProblem(await send(server, 'GET', '/api/seasons/1995/'), 404, 'not-found');
    expectProblem(await send(server, 'GET', '/api/seasons/'), 404, 'not-found');
  });

  it('400 invalid-query for bad query values, before a bad path value (§1.4)', async () => {
    const cases: [string, string][] = [
      ['ordering=rank', 'ordering'],
      ['ordering=members,name', 'ordering'],
      ['ordering=', 'ordering'],
      ['media_type=series', 'media_type'],
      ['status=Airing', 'status'],
      ['season=fall', 'season'],
      ['q=alpha', 'q'],
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['cursor=nonsense', 'cursor'],
      ['status=airing&status=finished', 'status'],
    ];
    for (const [query, key] of cases) {
      expectErrors(await send(server, 'GET', `/api/seasons/1995/fall/?${query}`), 400, 'invalid-query', [key]);
      expectErrors(await send(server, 'GET', `/api/seasons/now/?${query}`), 400, 'invalid-query', [key]);
    }
    expectErrors(await send(server, 'GET', '/api/seasons/1899/fall/?ordering=rank'), 400, 'invalid-query', ['ordering']);
    expectProblem(await send(server, 'GET', '/api/seasons/1995/fall/?offset=2'), 400, 'invalid-query');
  });

  it('only GET: other methods → 405 with Allow', async () => {
    const res = await send(server, 'POST', '/api/seasons/1995/fall/', { body: {}, headers: auth });
    expectProblem(res, 405, 'method-not-allowed');
    expect(res.headers.get('allow')).toContain('GET');
  });
});

describe('changes show at once', () => {
  it('aired_from moves an anime between seasons; status moves it between filters; a deletion removes it', async () => {
    const a = await create({ aired_from: '1980-01-15', status: 'upcoming' });
    const b = await create({ aired_from: '1980-02-01', status: 'upcoming' });
    expect((await get('/api/seasons/1980/winter/')).count).toBe(2);
    await patch(a.id, { aired_from: '1980-04-01' });
    expect(ids(await get('/api/seasons/1980/winter/'))).toEqual([b.id]);
    expect(ids(await get('/api/seasons/1980/spring/'))).toEqual([a.id]);
    expect((await get('/api/seasons/1980/spring/')).results[0].aired_from).toBe('1980-04-01');
    await patch(b.id, { status: 'airing' });
    expect(ids(await get('/api/seasons/1980/winter/?status=airing'))).toEqual([b.id]);
    expect(ids(await get('/api/seasons/1980/winter/?status=upcoming'))).toEqual([]);
    await patch(a.id, { aired_from: null });
    expect((await get('/api/seasons/1980/spring/')).count).toBe(0);
    expect((await send(server, 'DELETE', `/api/animes/${b.id}/`, { headers: auth })).status).toBe(204);
    expect(await get('/api/seasons/1980/winter/')).toMatchObject({ count: 0, results: [] });
  });
});

describe('GET /api/seasons/now/ and /upcoming/', () => {
  it('by the UTC date of the response: fall and winter of the next year; the year turns at midnight UTC', async () => {
    const fall = await create({ aired_from: '2025-10-05' });
    const winter = await create({ aired_from: '2026-01-09' });
    const spring = await create({ aired_from: '2026-04-02' });
    let now = await get('/api/seasons/now/');
    expect(now).toMatchObject({ year: 2025, season: 'fall', count: 1 });
    expect(ids(now)).toEqual([fall.id]);
    expect(now.results[0]).toEqual(await get(`/api/animes/${fall.id}/`));
    expect(await get('/api/seasons/upcoming/')).toMatchObject({ year: 2026, season: 'winter', count: 1, results: [{ id: winter.id }] });
    setClock('2025-12-31T23:59:59.999Z');
    expect(await get('/api/seasons/now/')).toMatchObject({ year: 2025, season: 'fall' });
    setClock('2026-01-01T00:00:00.000Z');
    now = await get('/api/seasons/now/?fields=name');
    expect(now).toMatchObject({ year: 2026, season: 'winter', count: 1, results: [{ id: winter.id, name: winter.name }] });
    expect(await get('/api/seasons/upcoming/')).toMatchObject({ year: 2026, season: 'spring', results: [{ id: spring.id }] });
    setClock('2025-11-03T12:00:00.000Z');
    expect(await get('/api/seasons/now/?media_type=movie')).toEqual({ count: null, next: null, previous: null, results: [], year: 2025, season: 'fall' });
  });
});

describe('next_episode (§5.3) in every anime representation', () => {
  it('computed at the time of the response: detail, lists, seasons, a genre’s animes; across a daylight-saving change; the ETag follows', async () => {
    const genre = expectJson(await send(server, 'POST', '/api/genres/', { body: { name: uniqueName('Airing genre') }, headers: auth }), 201);
    // Sundays 02:30 in New York from 2025-03-01: 03-02 (EST) is episode 1; 03-09 02:30 does not exist → 03:30 EDT.
    const body = { status: 'airing', aired_from: '2025-03-01', broadcast: { day: 'sunday', time: '02:30', timezone: 'America/New_York' }, genre_ids: [genre.id] };
    setClock('2025-03-08T12:00:00.000Z');
    const created = await create(body);
    const expected = { number: 2, airs_at: '2025-03-09T07:30:00.000Z' };
    expect(created.next_episode).toEqual(expected);
    const res = await send(server, 'GET', `/api/animes/${created.id}/`);
    expect(expectJson(res, 200).next_episode).toEqual(expected);
    const find = (page: { results: { id: string; next_episode: unknown }[] }) => page.results.find((r) => r.id === created.id)?.next_episode;
    expect(find(await get(`/api/animes/?ordering=-created_at&limit=5`))).toEqual(expected);
    expect(find(await get('/api/seasons/2025/winter/'))).toEqual(expected);
    expect(find(await get(`/api/genres/${genre.id}/animes/`))).toEqual(expected);

    // Once it has begun, the next one: a week later, 02:30 EDT.
    setClock('2025-03-09T07:30:00.000Z');
    const later = await send(server, 'GET', `/api/animes/${created.id}/`);
    expect(expectJson(later, 200).next_episode).toEqual({ number: 3, airs_at: '2025-03-16T06:30:00.000Z' });
    expect(later.headers.get('etag')).not.toBe(res.headers.get('etag'));
    // If-Match compares with the representation as shown now.
    expectProblem(await send(server, 'PATCH', `/api/animes/${created.id}/`, { body: {}, headers: { ...auth, 'if-match': res.headers.get('etag')! } }), 412, 'precondition-failed');
    expect((await send(server, 'PATCH', `/api/animes/${created.id}/`, { body: { episodes: 2 }, headers: { ...auth, 'if-match': later.headers.get('etag')! } })).body.next_episode).toBeNull();
    setClock('2025-11-03T12:00:00.000Z');
  });

  it('null when finished, without a weekly broadcast or aired_from', async () => {
    const broadcast = { day: 'monday', time: '12:00', timezone: 'Asia/Tokyo' };
    expect((await create({ status: 'finished', aired_from: '2025-01-01', broadcast })).next_episode).toBeNull();
    expect((await create({ status: 'airing', aired_from: '2025-01-01', broadcast: { day: 'other' } })).next_episode).toBeNull();
    expect((await create({ status: 'airing', broadcast })).next_episode).toBeNull();
    expect((await create({ status: 'upcoming', aired_from: '2026-01-05', broadcast })).next_episode).toEqual({ number: 1, airs_at: '2026-01-05T03:00:00.000Z' });
  });
});

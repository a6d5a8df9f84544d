/**
 * The weekly schedule (API.md §4.15, §5.3): the airing animes only, as entries `{anime, day,
 * time, timezone, next_episode}`; `day` order (monday … sunday, other, unknown, then time, then
 * name) by default, `name` and `score` both ways; the `day` filter, `tz` (days and times of the
 * weekly slot in that zone; an unknown zone → 400), `fields`, pages and an exact count; a change
 * of an anime's status or broadcast, a creation and a deletion at once; a daylight-saving change
 * end to end; 400 for bad query values. The clock is fixed (shared/clock.ts).
 */
import { readHead } from '../../shared/db/index-deltas.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { animeTitle, type AnimeRecord } from '../../shared/db/animes.js';
import { setClock } from '../../shared/clock.js';
import { commitStaged } from '../../shared/db/staged.js';
import { loadTitle, titleWrite } from '../../shared/db/titles.js';
import { expectErrors, expectJson, expectProblem, send, uniqueName, walk } from '../support/contract.js';
import { compareCodePoints } from '../support/list-rules.js';
import { useServer } from '../support/server.js';
import { searchNormalize } from '../../shared/text.js';

const server = useServer();
let auth: Record<string, string>;

// Saturday 2025-03-08, 12:00 UTC: the next day New York moves its clocks forward (02:00 → 03:00).
const NOW = '2025-03-08T12:00:00.000Z';
const ENTRY = ['anime', 'day', 'time', 'timezone', 'next_episode'];
const CARD = ['id', 'name', 'image', 'media_type', 'status', 'episodes', 'score'];
const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday', 'other', 'unknown'];

const create = async (extra: Record<string, unknown>) => expectJson(await send(server, 'POST', '/api/animes/', { body: { name: uniqueName('Show'), ...extra }, headers: auth }), 201);
const patch = async (id: string, body: Record<string, unknown>) => expectJson(await send(server, 'PATCH', `/api/animes/${id}/`, { body, headers: auth }), 200);
const get = async (path: string) => expectJson(await send(server, 'GET', path), 200);
const names = (page: { results: { anime: { name: string } }[] }) => page.results.map((e) => e.anime.name);
const tokyo = (day: string, time: string) => ({ day, time, timezone: 'Asia/Tokyo' });

/** Sets a derived number as the list items' writes will (the title write with the new value): there are no list items yet. */
async function setScore(id: string, score: number | null): Promise<void> {
  const before = (await loadTitle(animeTitle, id))!;
  const after: AnimeRecord = { ...before.record, score };
  const plan = titleWrite(animeTitle, before, { after, relations: before.relations, links: [], deltaHead: await readHead('ANIME') });
  await commitStaged(plan.main, plan.rest, plan.pk, plan.rev, plan.write);
}

/** The contract's `day` order of entries: day, then time (nulls last), then N(name), then the anime's id. */
function dayOrder(entries: any[], descending = false): string[] {
  const key = (e: any) => [DAYS.indexOf(e.day), e.time ?? '~', searchNormalize(e.anime.name)] as const;
  return [...entries]
    .sort((a, b) => {
      const [x, y] = [key(a), key(b)];
      const c = x[0] - y[0] || compareCodePoints(x[1], y[1]) || compareCodePoints(x[2], y[2]);
      return (descending ? -c : c) || (a.anime.id < b.anime.id ? -1 : 1);
    })
    .map((e) => e.anime.name);
}

const shows: Record<string, any> = {};
beforeAll(async () => {
  auth = (await server.user('contributor')).auth;
  setClock(NOW);
  const airing = { status: 'airing', aired_from: '2025-01-01' };
  shows.monLate = await create({ ...airing, name: 'Monday late', broadcast: tokyo('monday', '23:30'), media_type: 'ona', episodes: 12 });
  shows.monEarly = await create({ ...airing, name: 'monday early', broadcast: tokyo('monday', '09:00') });
  shows.monEarly2 = await create({ ...airing, name: 'Monday Early 2', broadcast: tokyo('monday', '09:00') });
  shows.sunMidnight = await create({ ...airing, name: 'Sunday midnight', broadcast: tokyo('sunday', '00:00') });
  // Sundays 02:30 in New York: 2025-03-09 02:30 does not exist → 03:30 EDT (07:30 UTC).
  shows.newYork = await create({ ...airing, name: 'New York night', aired_from: '2025-03-01', broadcast: { day: 'sunday', time: '02:30', timezone: 'America/New_York' } });
  shows.other = await create({ ...airing, name: 'Irregular', broadcast: { day: 'other', timezone: 'Europe/Paris' } });
  shows.unknown = await create({ ...airing, name: 'No broadcast' });
  shows.ended = await create({ ...airing, name: 'All aired', broadcast: tokyo('friday', '20:00'), episodes: 2 });
  // Not airing: never in the schedule.
  await create({ status: 'finished', aired_from: '2020-01-01', broadcast: tokyo('monday', '10:00') });
  await create({ status: 'upcoming', aired_from: '2025-04-01', broadcast: tokyo('tuesday', '10:00') });
  await setScore(shows.monLate.id, 8.5);
  await setScore(shows.sunMidnight.id, 6.25);
  await setScore(shows.other.id, 8.5);
});
afterAll(() => setClock(null));

describe('GET /api/schedules/', () => {
  it('the airing animes by day (default): monday … sunday, other, unknown, then time, then name; exact count; entries and cards', async () => {
    const res = await send(server, 'GET', '/api/schedules/');
    const page = expectJson(res, 200);
    expect(Object.keys(page)).toEqual(['count', 'next', 'previous', 'results']);
    expect(page.count).toBe(8);
    expect(names(page)).toEqual(['monday early', 'Monday Early 2', 'Monday late', 'All aired', 'Sunday midnight', 'New York night', 'Irregular', 'No broadcast']);
    expect(names(page)).toEqual(dayOrder(page.results));
    for (const e of page.results) {
      expect(Object.keys(e)).toEqual(ENTRY);
      expect(Object.keys(e.anime)).toEqual(CARD);
      expect(e.anime.status).toBe('airing');
    }
    const byName = (n: string) => page.results.find((e: any) => e.anime.name === n);
    const monLate = await get(`/api/animes/${shows.monLate.id}/`);
    expect(byName('Monday late')).toEqual({
      anime: { id: monLate.id, name: 'Monday late', image: null, media_type: 'ona', status: 'airing', episodes: 12, score: 8.5 },
      day: 'monday',
      time: '23:30',
      timezone: 'Asia/Tokyo',
      // Slot 1: Monday 2025-01-06; Monday 2025-03-10 23:30 JST is slot 10, 14:30 UTC; 50.5 hours from now.
      next_episode: { number: 10, airs_at: '2025-03-10T14:30:00.000Z', seconds_until: 181_800 },
    });
    expect(monLate.next_episode).toEqual({ number: 10, airs_at: '2025-03-10T14:30:00.000Z' });
    expect(byName('Irregular')).toMatchObject({ day: 'other', time: null, timezone: 'Europe/Paris', next_episode: null });
    expect(byName('No broadcast')).toMatchObject({ day: 'unknown', time: null, timezone: null, next_episode: null });
    // Two episodes, both aired: still on the schedule, with no next episode.
    expect(byName('All aired')).toMatchObject({ day: 'friday', time: '20:00', next_episode: null });
    expect(res.headers.get('cache-control')).toBe('public, max-age=60');
  });

  it('a daylight-saving change end to end: the next episode of a time that does not exist airs when it is moved to', async () => {
    const ny = (await get('/api/schedules/?day=sunday&ordering=name')).results.find((e: any) => e.anime.id === shows.newYork.id);
    // 2025-03-09 02:30 EST does not exist: 03:30 EDT, 07:30 UTC — 19.5 hours from now.
    expect(ny).toMatchObject({ day: 'sunday', time: '02:30', timezone: 'America/New_York', next_episode: { number: 2, airs_at: '2025-03-09T07:30:00.000Z', seconds_until: 70_200 } });
    const inTokyo = (await get('/api/schedules/?tz=Asia/Tokyo')).results.find((e: any) => e.anime.id === shows.newYork.id);
    expect(inTokyo).toMatchObject({ day: 'sunday', time: '16:30', timezone: 'Asia/Tokyo' });
    // A week later it is 02:30 EDT, 06:30 UTC: 15:30 in Tokyo.
    setClock('2025-03-10T00:00:00.000Z');
    const later = (await get('/api/schedules/?tz=Asia/Tokyo')).results.find((e: any) => e.anime.id === shows.newYork.id);
    expect(later).toMatchObject({ day: 'sunday', time: '15:30', next_episode: { number: 3, airs_at: '2025-03-16T06:30:00.000Z', seconds_until: 541_800 } });
    setClock(NOW);
  });

  it('tz: the weekday and time of each weekly slot in that zone (the day may change); other keeps no time; unknown has no zone', async () => {
    const page = await get('/api/schedules/?tz=America/New_York');
    expect(page.count).toBe(8);
    const byName = (n: string) => page.results.find((e: any) => e.anime.name === n);
    // Monday 09:00 JST (00:00 UTC) is Sunday 19:00 EST (the slot of 2025-03-10 is after the change: EDT, 20:00).
    expect(byName('monday early')).toMatchObject({ day: 'sunday', time: '20:00', timezone: 'America/New_York' });
    // Sunday 00:00 JST is Saturday 15:00 UTC, 10:00 EST.
    expect(byName('Sunday midnight')).toMatchObject({ day: 'saturday', time: '10:00', timezone: 'America/New_York' });
    expect(byName('Irregular')).toMatchObject({ day: 'other', time: null, timezone: 'America/New_York' });
    expect(byName('No broadcast')).toMatchObject({ day: 'unknown', time: null, timezone: null });
    // The day order is of the days in the zone.
    expect(names(page)).toEqual(dayOrder(page.results));
    expect(names(page).slice(0, 2)).toEqual(['Monday late', 'All aired']);
    expect((await get('/api/schedules/?tz=UTC&day=saturday')).results.map((e: any) => [e.anime.name, e.time])).toEqual([['Sunday midnight', '15:00']]);
  });

  it('day: only the entries of that day (in tz when given); count exact', async () => {
    expect(names(await get('/api/schedules/?day=monday'))).toEqual(['monday early', 'Monday Early 2', 'Monday late']);
    expect(await get('/api/schedules/?day=unknown')).toMatchObject({ count: 1, results: [{ anime: { id: shows.unknown.id } }] });
    expect(await get('/api/schedules/?day=other')).toMatchObject({ count: 1, results: [{ anime: { id: shows.other.id } }] });
    expect(await get('/api/schedules/?day=tuesday')).toEqual({ count: 0, next: null, previous: null, results: [] });
    const sunday = await get('/api/schedules/?day=sunday&tz=America/New_York');
    expect(sunday.count).toBe(3);
    expect(names(sunday)).toEqual(['New York night', 'monday early', 'Monday Early 2']);
  });

  it('ordering name, score (unscored last both ways) and -day, each then by id', async () => {
    const all = (await get('/api/schedules/')).results;
    const byName = [...all].sort((a, b) => compareCodePoints(searchNormalize(a.anime.name), searchNormalize(b.anime.name)) || (a.anime.id < b.anime.id ? -1 : 1)).map((e) => e.anime.name);
    expect(names(await get('/api/schedules/?ordering=name'))).toEqual(byName);
    expect(names(await get('/api/schedules/?ordering=-name'))).toEqual([...byName].reverse());
    const score = names(await get('/api/schedules/?ordering=score'));
    expect(score.slice(0, 3)).toEqual(['Sunday midnight', ...[shows.monLate, shows.other].sort((a, b) => (a.id < b.id ? -1 : 1)).map((a) => a.name)]);
    const desc = names(await get('/api/schedules/?ordering=-score'));
    expect(desc.slice(0, 3)).toEqual([...[shows.monLate, shows.other].sort((a, b) => (a.id < b.id ? -1 : 1)).map((a) => a.name), 'Sunday midnight']);
    // Unscored last in both directions, by id.
    const unscored = all.filter((e: any) => e.anime.score === null).sort((a: any, b: any) => (a.anime.id < b.anime.id ? -1 : 1)).map((e: any) => e.anime.name);
    expect(score.slice(3)).toEqual(unscored);
    expect(desc.slice(3)).toEqual(unscored);
    const reversed = await get('/api/schedules/?ordering=-day');
    expect(names(reversed)).toEqual(dayOrder(reversed.results, true));
    expect(names(reversed)[0]).toBe('No broadcast');
  });

  it('fields: only those keys of each entry (entries have no id); the card whole', async () => {
    const page = await get('/api/schedules/?fields=day,time&day=monday');
    expect(page.results).toEqual([
      { day: 'monday', time: '09:00' },
      { day: 'monday', time: '09:00' },
      { day: 'monday', time: '23:30' },
    ]);
    const cards = await get('/api/schedules/?fields=anime&limit=1');
    expect(Object.keys(cards.results[0])).toEqual(['anime']);
    expect(Object.keys(cards.results[0].anime)).toEqual(CARD);
    expectErrors(await send(server, 'GET', '/api/schedules/?fields=name'), 400, 'invalid-query', ['fields']);
  });

  it('pages: every entry once, in order, with previous links; a cursor is bound to its query', async () => {
    const { results, pages } = await walk(server, '/api/schedules/?limit=3&tz=Europe/London');
    const whole = await get('/api/schedules/?tz=Europe/London');
    expect(results).toEqual(whole.results);
    expect(pages).toHaveLength(3);
    expect(pages.every((p) => p.body.count === 8)).toBe(true);
    const previous = new URL(pages[2]!.body.previous);
    expect((await get(previous.pathname + previous.search)).results).toEqual(whole.results.slice(3, 6));
    const cursor = new URL(pages[0]!.body.next).searchParams.get('cursor')!;
    expectErrors(await send(server, 'GET', `/api/schedules/?limit=3&tz=Europe/Paris&cursor=${cursor}`), 400, 'invalid-query', ['cursor']);
  });

  it('400 invalid-query: an unknown time zone (on tz), bad day, ordering, limit, unknown and repeated parameters', async () => {
    for (const tz of ['Mars/Base', 'EST', 'JST', 'Asia/Tokio', '%2B09%3A00', '']) {
      expectErrors(await send(server, 'GET', `/api/schedules/?tz=${tz}`), 400, 'invalid-query', ['tz']);
    }
    const cases: [string, string][] = [
      ['day=funday', 'day'],
      ['day=Monday', 'day'],
      ['ordering=time', 'ordering'],
      ['ordering=-members', 'ordering'],
      ['limit=0', 'limit'],
      ['status=airing', 'status'],
      ['day=monday&day=friday', 'day'],
      ['cursor=abc', 'cursor'],
    ];
    for (const [query, key] of cases) expectErrors(await send(server, 'GET', `/api/schedules/?${query}`), 400, 'invalid-query', [key]);
    expectProblem(await send(server, 'DELETE', '/api/schedules/', { headers: auth }), 405, 'method-not-allowed');
  });
});

describe('changes show at once', () => {
  it('status and broadcast changes, a new airing anime and a deletion', async () => {
    const count = async () => (await get('/api/schedules/')).count as number;
    const before = await count();
    const show = await create({ status: 'airing', aired_from: '2025-01-01', broadcast: tokyo('wednesday', '18:00') });
    expect(await count()).toBe(before + 1);
    expect(names(await get('/api/schedules/?day=wednesday'))).toEqual([show.name]);
    await patch(show.id, { broadcast: tokyo('thursday', '07:15') });
    expect(await get('/api/schedules/?day=wednesday')).toMatchObject({ count: 0 });
    expect((await get('/api/schedules/?day=thursday')).results).toMatchObject([{ anime: { id: show.id }, day: 'thursday', time: '07:15', timezone: 'Asia/Tokyo' }]);
    await patch(show.id, { broadcast: null });
    expect((await get('/api/schedules/?day=unknown')).results.map((e: any) => e.anime.id)).toContain(show.id);
    await patch(show.id, { status: 'finished' });
    expect(await count()).toBe(before);
    await patch(show.id, { status: 'airing', name: uniqueName('Renamed show') });
    const renamed = (await get('/api/schedules/?day=unknown&ordering=name')).results.find((e: any) => e.anime.id === show.id);
    expect(renamed.anime.name).toMatch(/^Renamed show/);
    expect((await send(server, 'DELETE', `/api/animes/${show.id}/`, { headers: auth })).status).toBe(204);
    expect(await count()).toBe(before);
  });
});

/**
 * `GET /api/schedules/calendar.ics` (API.md §8.6) through the service, parsed back by ical.js:
 * with the clock at 2026-10-20, 8 weeks in Europe/Paris and America/New_York cross both zones'
 * autumn DST changes; each anime's events are its `next_episode` (§5.3) and the ones after it,
 * the first equal to what its detail and the schedule show. Without `anime`, the airing animes
 * with a broadcast slot; with it, the animes named (an upcoming one too; unknown and deleted ids
 * ignored); `sfw`; text/calendar, max-age=300, ETag and 304, gzip; 400s for `tz`, `weeks`, `anime`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setClock } from '../../shared/clock.js';
import { offsetAt, type Airing } from '../../shared/domain/broadcast.js';
import { expectErrors, expectJson, send, uniqueName } from '../support/contract.js';
import { calendarEvents, episodeSequence } from '../support/ical.js';
import { useServer } from '../support/server.js';

const server = useServer();
let auth: Record<string, string>;
const NOW = '2026-10-20T12:00:00.000Z';
const WEEK = 7 * 86_400_000;

const create = async (extra: Record<string, unknown>) => expectJson(await send(server, 'POST', '/api/animes/', { body: { name: uniqueName('Cal'), ...extra }, headers: auth }), 201);
const calendar = (query: string, headers: Record<string, string> = {}) => send(server, 'GET', `/api/schedules/calendar.ics?${query}`, { headers });



const shows: Record<string, any> = {};
beforeAll(async () => {
  auth = (await server.user('contributor')).auth;
  setClock(NOW);
  shows.tokyo = await create({ status: 'airing', aired_from: '2026-10-02', episodes: 24, duration_seconds: 1500, broadcast: { day: 'friday', time: '23:30', timezone: 'Asia/Tokyo' } });
  // 01:30 on Sundays in New York: on 2026-11-01 that hour repeats (clocks go back at 02:00).
  shows.newYork = await create({ status: 'airing', aired_from: '2026-09-06', episodes: null, broadcast: { day: 'sunday', time: '01:30', timezone: 'America/New_York' } });
  shows.upcoming = await create({ status: 'upcoming', aired_from: '2026-11-05', episodes: 3, broadcast: { day: 'thursday', time: '20:00', timezone: 'Europe/Paris' } });
  shows.explicit = await create({ status: 'airing', aired_from: '2026-10-01', rating: 'rx', broadcast: { day: 'monday', time: '02:00', timezone: 'Asia/Tokyo' } });
  shows.gone = await create({ status: 'airing', aired_from: '2026-10-01', broadcast: { day: 'monday', time: '02:00', timezone: 'Asia/Tokyo' } });
  expect((await send(server, 'DELETE', `/api/animes/${shows.gone.id}/`, { headers: auth })).status).toBe(204);
});
afterAll(() => setClock(null));

const from = Date.parse(NOW);

describe('GET /api/schedules/calendar.ics', () => {
  for (const zone of ['Europe/Paris', 'America/New_York']) {
    it(`the animes named, 8 weeks in ${zone}: each event at its next_episode and the episodes after it`, async () => {
      const ids = [shows.tokyo.id, shows.newYork.id, shows.upcoming.id, shows.gone.id, 'NoSuchAnimeAtAll000000'];
      const res = await calendar(`anime=${ids.join(',')}&tz=${encodeURIComponent(zone)}&weeks=8`);
      expect(res.status, res.text).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/calendar; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('public, max-age=300');
      const events = calendarEvents(res.text);
      for (const show of [shows.tokyo, shows.newYork, shows.upcoming]) {
        const mine = events.filter((e) => e.url.endsWith(`/api/animes/${show.id}/`));
        const want = episodeSequence(show as Airing, from, from + 8 * WEEK);
        expect(want.length).toBeGreaterThan(2);
        // The written local time is §5.3's instant's; ical.js reads a repeated hour as its second occurrence (RFC 5545 §3.3.5 says the first).
        expect(mine.map((e) => e.local)).toEqual(want.map((w) => new Date(w.at + offsetAt(zone, w.at)).toISOString().replace(/[-:]/g, '').slice(0, 15)));
        const repeated = (at: number) => at + 3_600_000 + offsetAt(zone, at + 3_600_000) === at + offsetAt(zone, at);
        expect(mine.map((e) => e.at)).toEqual(want.map((w) => (repeated(w.at) ? w.at + 3_600_000 : w.at)));
        expect(mine.map((e) => e.summary)).toEqual(want.map((w) => `${show.name} — Episode ${w.number}`));
        expect(new Set(mine.map((e) => e.seconds))).toEqual(new Set([show.duration_seconds ?? 1440]));
        expect(new Set(mine.map((e) => e.tzid))).toEqual(new Set([zone]));
      }
      // The first event is the next_episode the detail shows.
      const detail = expectJson(await send(server, 'GET', `/api/animes/${shows.tokyo.id}/`), 200);
      expect(events.find((e) => e.url.endsWith(`/${shows.tokyo.id}/`))!.at).toBe(Date.parse(detail.next_episode.airs_at));
      expect(events.some((e) => e.url.includes(shows.gone.id))).toBe(false);
      expect(new Set(events.map((e) => e.uid)).size).toBe(events.length);
    });
  }

  it('without anime: the airing animes with a broadcast slot (not the upcoming one); sfw=true leaves out the explicit one; 4 weeks by default', async () => {
    const all = calendarEvents((await calendar('')).text);
    const has = (events: { url: string }[], show: any) => events.some((e) => e.url.endsWith(`/api/animes/${show.id}/`));
    expect(has(all, shows.tokyo) && has(all, shows.newYork) && has(all, shows.explicit)).toBe(true);
    expect(has(all, shows.upcoming)).toBe(false);
    expect(Math.max(...all.map((e) => e.at))).toBeLessThanOrEqual(from + 4 * WEEK);
    // Asia/Tokyo by default.
    expect((await calendar('')).text).toContain('DTSTART;TZID=Asia/Tokyo:');
    const safe = calendarEvents((await calendar('sfw=true')).text);
    expect(has(safe, shows.tokyo)).toBe(true);
    expect(has(safe, shows.explicit)).toBe(false);
    expect(has(calendarEvents((await calendar(`anime=${shows.explicit.id}&sfw=true`)).text), shows.explicit)).toBe(false);
  });

  it('ETag and If-None-Match → 304; gzip when accepted', async () => {
    const q = `anime=${shows.tokyo.id}`;
    const first = await calendar(q);
    expect(first.headers.get('etag')).toBeTruthy();
    expect((await calendar(q, { 'if-none-match': first.headers.get('etag')! })).status).toBe(304);
    // fetch asks for gzip by default and decodes it; asked for no coding, the text comes as it is.
    expect(first.headers.get('content-encoding')).toBe('gzip');
    const plain = await calendar(q, { 'accept-encoding': 'identity' });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(plain.text).toBe(first.text);
  });

  it('400 for an unknown zone, weeks outside 1–8 and malformed anime ids', async () => {
    expectErrors(await calendar('tz=Mars/Olympus'), 400, 'invalid-query', ['tz']);
    expectErrors(await calendar('weeks=9'), 400, 'invalid-query', ['weeks']);
    expectErrors(await calendar('weeks=0'), 400, 'invalid-query', ['weeks']);
    expectErrors(await calendar('anime=not%20an%20id'), 400, 'invalid-query', ['anime']);
    expectErrors(await calendar(`anime=${shows.tokyo.id},${shows.tokyo.id}`), 400, 'invalid-query', ['anime']);
  });
});

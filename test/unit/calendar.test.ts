/**
 * The airing calendar's text (shared/domain/calendar.ts, API.md §8.6) parsed back by an
 * independent parser (ical.js): over 8 weeks in Europe/Paris and America/New_York, across both
 * zones' autumn DST changes (2026-10-25 and 2026-11-01) and the spring ones (2027-03-14 and
 * 2027-03-28), every event's instant — its DTSTART read with the calendar's own VTIMEZONE — is
 * exactly the `next_episode` sequence of its anime (§5.3), for broadcasts in Tokyo, New York and
 * Paris; UIDs are stable across windows; text is escaped and folded as RFC 5545 says.
 *
 * One divergence, the parser's: a local time that occurs twice (02:30 in Paris on 2026-10-25,
 * 01:30 in New York on 2026-11-01) is its first occurrence by RFC 5545 §3.3.5 and §5.3 — what the
 * calendar means and writes (its DTSTART is that instant's local time) — but ical.js reads the
 * second. For those events the test checks the local time written and that ical.js reads the
 * later occurrence, an hour on (docs/decisions.md EX8).
 */
import { describe, expect, it } from 'vitest';
import { offsetAt, type Airing } from '../../shared/domain/broadcast.js';
import { calendarText, fold, transitions, type CalendarAnime } from '../../shared/domain/calendar.js';
import { calendarEvents, episodeSequence } from '../support/ical.js';

const WEEK = 7 * 86_400_000;

const animes: CalendarAnime[] = [
  { id: 'A'.repeat(22), name: 'Frieren, Beyond; Journey\'s End \\ 葬送のフリーレン — a long name that needs folding', url: 'https://api.example/api/animes/A/', duration_seconds: 1440, airing: air({ day: 'friday', time: '23:00', timezone: 'Asia/Tokyo' }, '2026-09-04', 40) },
  { id: 'B'.repeat(22), name: 'Late Show', url: 'https://api.example/api/animes/B/', duration_seconds: null, airing: air({ day: 'sunday', time: '01:30', timezone: 'America/New_York' }, '2026-01-04', null) },
  { id: 'C'.repeat(22), name: 'Nuit', url: 'https://api.example/api/animes/C/', duration_seconds: 600, airing: air({ day: 'sunday', time: '02:30', timezone: 'Europe/Paris' }, '2026-09-06', 12) },
];

function air(broadcast: Airing['broadcast'], aired_from: string, episodes: number | null): Airing {
  return { status: 'airing', broadcast, aired_from, aired_to: null, episodes };
}


/** Whether an instant's local time in `zone` also names another instant (the hour clocks repeat when they go back). */
const ambiguous = (zone: string, at: number) => [at - 3_600_000, at + 3_600_000].some((t) => t + offsetAt(zone, t) === at + offsetAt(zone, at));

/** Where ical.js puts an event of §5.3's instant `at`: the same, or an hour later for a repeated local time (see above). */
const readAt = (zone: string, at: number) => (ambiguous(zone, at) ? at + 3_600_000 : at);


describe('the airing calendar, parsed back by ical.js', () => {
  for (const zone of ['Europe/Paris', 'America/New_York']) {
    for (const start of ['2026-10-01T00:00:00Z', '2027-02-20T12:00:00Z']) {
      it(`${zone}, 8 weeks from ${start.slice(0, 10)}: each event at its next_episode instant, across the DST change`, () => {
        const from = Date.parse(start);
        const to = from + 8 * WEEK;
        const changes = transitions(zone, from, to);
        expect(changes.length, 'the window holds a DST change').toBe(1);
        const text = calendarText(animes, zone, from, to, from);
        const events = calendarEvents(text);
        const want = animes.flatMap((a) => episodeSequence(a.airing, from, to).map((e) => ({ a, ...e }))).sort((x, y) => x.at - y.at || (x.a.id < y.a.id ? -1 : 1));
        expect(want.length).toBeGreaterThan(15);
        expect(events.map((e) => e.at)).toEqual(want.map((w) => readAt(zone, w.at)));
        // The local time written is §5.3's instant's in the zone, repeated hour included.
        const local = (at: number) => new Date(at + offsetAt(zone, at)).toISOString().replace(/[-:]/g, '').slice(0, 15);
        expect(events.map((e) => e.local)).toEqual(want.map((w) => local(w.at)));
        expect(events.map((e) => e.summary)).toEqual(want.map((w) => `${w.a.name} — Episode ${w.number}`));
        expect(events.map((e) => e.seconds)).toEqual(want.map((w) => w.a.duration_seconds ?? 1440));
        expect(events.map((e) => e.url)).toEqual(want.map((w) => w.a.url));
        expect(new Set(events.map((e) => e.tzid))).toEqual(new Set([zone]));
        expect(new Set(events.map((e) => e.uid)).size).toBe(events.length);
        expect(new Set(events.map((e) => e.stamp))).toEqual(new Set([from]));
        // Events on both sides of the change (the instants differ from a fixed offset's by an hour on one side).
        expect(events.some((e) => e.at < changes[0]!.at) && events.some((e) => e.at > changes[0]!.at)).toBe(true);
        // RFC 5545: CRLF line ends, no line over 75 octets.
        expect(text.endsWith('\r\n')).toBe(true);
        expect(text.split('\r\n').every((l) => Buffer.byteLength(l) <= 75)).toBe(true);
      });
    }
  }

  it('UIDs are stable: a later window shows the same episodes under the same UIDs', () => {
    const from = Date.parse('2026-10-01T00:00:00Z');
    const a = calendarEvents(calendarText(animes, 'Asia/Tokyo', from, from + 4 * WEEK, from));
    const b = calendarEvents(calendarText(animes, 'UTC', from + WEEK, from + 5 * WEEK, from + WEEK));
    const shared = b.filter((e) => e.at <= from + 4 * WEEK);
    expect(shared.length).toBeGreaterThan(5);
    for (const e of shared) expect(a.find((x) => x.uid === e.uid)?.at).toBe(e.at);
  });

  it('a zone without changes has one STANDARD observance; events in UTC+09:00', () => {
    const from = Date.parse('2026-10-01T00:00:00Z');
    const text = calendarText(animes.slice(0, 1), 'Asia/Tokyo', from, from + WEEK, from);
    expect(text.match(/BEGIN:(STANDARD|DAYLIGHT)/g)).toEqual(['BEGIN:STANDARD']);
    expect(text).toContain('TZOFFSETTO:+0900');
    expect(calendarEvents(text).map((e) => new Date(e.at).toISOString())).toEqual(episodeSequence(animes[0]!.airing, from, from + WEEK).map((e) => new Date(e.at).toISOString()));
  });

  it('folds at 75 octets without splitting a character, and unfolds to the same line', () => {
    const line = `SUMMARY:${'葬送のフリーレン'.repeat(12)}é`;
    const folded = fold(line);
    expect(folded.split('\r\n').every((l) => Buffer.byteLength(l) <= 75)).toBe(true);
    expect(folded.replace(/\r\n /g, '')).toBe(line);
  });
});

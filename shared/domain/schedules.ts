/**
 * The weekly schedule (API.md §4.15): its query, its entry (ScheduleEntry, a view) and how an
 * airing anime's entry is computed at the time of the response (§5.3), ordered and compared.
 * Answered by shared/http/schedules.ts from the entries of the anime index (the airing animes' vectors).
 */
import * as z from 'zod/mini';
import type { ScheduleEntry } from '../db/animes.js';
import { sortKey } from '../db/sort-keys.js';
import { enumParam, idsListParam, orderingParam, sfwParam } from './params.js';
import { searchNormalize } from '../text.js';
import { isTimeZone, localTime, nextEpisode, weeklySlot } from './broadcast.js';
import { animeCard } from './cards.js';
import { ScheduleDay } from './enums.js';

export const scheduleOrderings = ['day', 'name', 'score'] as const;

export const scheduleQuery = z.object({
  day: enumParam(ScheduleDay),
  tz: z.optional(z.string().check(z.refine(isTimeZone, 'Not a known IANA time zone.'))).check(z.meta({ description: 'IANA time zone of the days and times (default: each broadcast’s own).' })),
  ordering: orderingParam(scheduleOrderings, 'day'),
  sfw: sfwParam,
});

/** The calendar's weeks ahead (§8.6). */
const WEEKS = 'Must be a whole number of weeks from 1 to 8.';

/** `GET /api/schedules/calendar.ics` (API.md §8.6). */
export const calendarQuery = z.object({
  anime: idsListParam('Only these animes: a comma-separated list of 1–100 distinct anime ids (unknown or deleted ones are ignored). Default: every airing anime with a broadcast slot.'),
  tz: z.optional(z.string().check(z.refine(isTimeZone, 'Not a known IANA time zone.'), z.meta({ description: 'IANA time zone of the events’ DTSTART (default Asia/Tokyo).' }))),
  weeks: z.optional(z.pipe(z.string().check(z.regex(/^[1-8]$/, WEEKS)), z.transform(Number)).check(z.meta({ description: 'Weeks ahead, 1–8 (default 4).' }))),
  sfw: sfwParam,
});

export const scheduleEntryRead = z.object({
  anime: animeCard,
  day: z.enum(ScheduleDay),
  time: z.nullable(z.string()),
  timezone: z.nullable(z.string()),
  next_episode: z.nullable(z.object({ number: z.int(), airs_at: z.string().check(z.meta({ format: 'date-time' })), seconds_until: z.int() })),
});

/** An entry without its anime card (read with the page). */
export type Slotted = Omit<z.output<typeof scheduleEntryRead>, 'anime'>;

/**
 * The entry of an airing anime at `now` (§4.15): `unknown` without a broadcast, `other` for a
 * broadcast that is not weekly; otherwise the broadcast's own day and time, or with `tz` the
 * weekday and time there of the weekly slot (§5.3). `next_episode` adds the whole seconds until it.
 */
export function slotted(e: ScheduleEntry, now: number, tz: string | null): Slotted {
  const next = nextEpisode(e, now);
  const next_episode = next && { ...next, seconds_until: Math.floor((Date.parse(next.airs_at) - now) / 1000) };
  const b = e.broadcast;
  if (b === null) return { day: 'unknown', time: null, timezone: null, next_episode };
  if (b.day === 'other') return { day: 'other', time: null, timezone: tz ?? b.timezone, next_episode };
  if (tz === null) return { day: b.day as Slotted['day'], time: b.time, timezone: b.timezone, next_episode };
  const { day, time } = localTime(weeklySlot(b, now)!.at, tz);
  return { day: day as Slotted['day'], time, timezone: tz, next_episode };
}

/**
 * The sort key of an entry in an ordering (compared by code point, descending read backwards as
 * in sort-keys.ts; ties by the anime's id, each anime having one entry). `day`: the day in the
 * order of ScheduleDay (monday … sunday, other, unknown), then the time (only `other` and
 * `unknown` have none), then N(name).
 */
export function scheduleSortKey(ordering: string, e: ScheduleEntry, s: Slotted, direction: 'asc' | 'desc'): string {
  switch (ordering) {
    case 'name':
      return sortKey(e.name, 'text', e.id, direction);
    case 'score':
      return sortKey(e.score === null ? null : Math.round(e.score * 100), 'count', e.id, direction);
    default:
      return sortKey(`${ScheduleDay.indexOf(s.day)}${s.time ?? ''}${searchNormalize(e.name)}`, 'plain', e.id, direction);
  }
}

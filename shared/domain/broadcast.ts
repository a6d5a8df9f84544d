/**
 * Broadcast times (API.md §5.3): an anime's next episode and the weekly slot of its broadcast,
 * computed at the time of the response in the broadcast's IANA time zone. Time zones come from
 * the runtime's Intl (ICU and its copy of the tz database, in every Node.js build Lambda runs),
 * not from a library.
 *
 * Local dates are day numbers (days since 1970-01-01, a Thursday), local date-times "walls"
 * (epoch milliseconds of the local date and time read as if they were UTC), instants epoch
 * milliseconds.
 */
import { BroadcastDay } from './enums.js';

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/** The weekdays of a broadcast, Monday first (BroadcastDay without `other`). */
export const WEEKDAYS: readonly string[] = BroadcastDay.filter((d) => d !== 'other');

export interface Broadcast {
  day: string;
  /** "HH:MM", local time in `timezone`; non-null whenever `day` is a weekday. */
  time: string | null;
  timezone: string;
}

/** What §5.3 reads of an anime. */
export interface Airing {
  status: string;
  broadcast: Broadcast | null;
  aired_from: string | null;
  aired_to: string | null;
  episodes: number | null;
}

export interface NextEpisode {
  number: number;
  airs_at: string;
}

/** An IANA time-zone name the runtime knows (`Asia/Tokyo`, `Etc/GMT+5`, `UTC`; not abbreviations like `EST`). */
export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return tz.includes('/') || tz === 'UTC';
  } catch {
    return false;
  }
}

/** Bounded caches: the zone names come from clients too (the schedule's `tz`). */
const CACHE_LIMIT = 10_000;
function remember<T>(cache: Map<string, T>, key: string, make: () => T): T {
  let value = cache.get(key);
  if (value === undefined) {
    if (cache.size >= CACHE_LIMIT) cache.clear();
    value = make();
    cache.set(key, value);
  }
  return value;
}

const formats = new Map<string, Intl.DateTimeFormat>();
const walls = new Map<string, number>();

/** The wall in `zone` at the instant `ms` (whole seconds). Formatting is the costly part: pure, so remembered. */
function wallAt(zone: string, ms: number): number {
  return remember(walls, `${zone} ${ms}`, () => {
    // `hourCycle: 'h23'`: midnight is 00 (with `hour12: false` some ICU versions print 24).
    const format = remember(formats, zone, () => new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' }));
    const p: Record<string, number> = {};
    for (const part of format.formatToParts(ms)) if (part.type !== 'literal') p[part.type] = Number(part.value);
    return Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!);
  });
}

/** The zone's offset from UTC at an instant (milliseconds, whole seconds). */
export const offsetAt = (zone: string, ms: number): number => wallAt(zone, ms) - Math.floor(ms / 1000) * 1000;

/**
 * The instant of a wall in `zone` (§5.3): a wall that does not exist (in a gap, when clocks move
 * forward) is moved forward by the length of the gap; an ambiguous one (in an overlap, when they
 * move back) takes the earlier instant. Assumes at most one change of offset within a day either
 * side of the wall, as in every zone of the tz database since 1900.
 */
export function instantOf(zone: string, wall: number): number {
  const before = offsetAt(zone, wall - DAY_MS);
  const after = offsetAt(zone, wall + DAY_MS);
  if (before === after) return wall - before;
  const valid = [wall - before, wall - after].filter((t) => wallAt(zone, t) === wall);
  // In a gap neither offset gives the wall back; the offset before the change gives the wall
  // moved forward by the gap (02:30 in a 02:00 → 03:00 gap is 03:30).
  return valid.length > 0 ? Math.min(...valid) : wall - before;
}

/** Day number of a date "YYYY-MM-DD". */
export const dayOf = (date: string): number => Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10))) / DAY_MS;

/** Index in WEEKDAYS (Monday 0) of a day number. */
const weekdayOf = (day: number): number => (((day + 3) % 7) + 7) % 7;

const minutesOf = (time: string): number => Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));

/** A weekly broadcast: its weekday (Monday 0), minute of the day and zone; `null` when not weekly or without a time. */
function weeklyOf(b: Broadcast | null): { weekday: number; minutes: number; zone: string } | null {
  const weekday = b ? WEEKDAYS.indexOf(b.day) : -1;
  return b && weekday >= 0 && b.time !== null ? { weekday, minutes: minutesOf(b.time), zone: b.timezone } : null;
}

export interface Slot {
  /** Its local date in the broadcast's zone (day number). */
  day: number;
  /** Its instant (epoch milliseconds). */
  at: number;
}

/** The slot of a weekly broadcast on a local date. */
const slotOn = (w: NonNullable<ReturnType<typeof weeklyOf>>, day: number): Slot => ({ day, at: instantOf(w.zone, day * DAY_MS + w.minutes * MINUTE_MS) });

/**
 * The weekly slot (§5.3): the first instant later than `now` on the broadcast's weekday at its
 * time in its zone. `null` for a broadcast that is not weekly (`other`) or has no time.
 */
export function weeklySlot(b: Broadcast | null, now: number): Slot | null {
  const w = weeklyOf(b);
  if (!w) return null;
  const today = Math.floor(wallAt(w.zone, now) / DAY_MS);
  const ahead = (w.weekday - weekdayOf(today) + 7) % 7;
  // Yesterday's slot is still ahead when a gap moved it past midnight and past `now`.
  for (let day = today + ahead - (ahead === 6 ? 7 : 0); ; day += 7) {
    const slot = slotOn(w, day);
    if (slot.at > now) return slot;
  }
}

/**
 * An anime's next episode at `now` (§5.3): slot 1 is the first date on or after `aired_from`
 * with the broadcast's weekday, slot k the same local time (k − 1) weeks later; the next episode
 * is the first slot later than `now`, unless `episodes` or `aired_to` end the series before it.
 * The weekly slot is that slot whenever it is not before slot 1 (the slots are the broadcast's
 * weekly instants from slot 1 on).
 */
export function nextEpisode(a: Airing, now: number): NextEpisode | null {
  const w = weeklyOf(a.broadcast);
  if ((a.status !== 'airing' && a.status !== 'upcoming') || !w || a.aired_from === null) return null;
  const from = dayOf(a.aired_from);
  const first = from + ((w.weekday - weekdayOf(from) + 7) % 7);
  const weekly = weeklySlot(a.broadcast, now)!;
  const slot = weekly.day >= first ? weekly : slotOn(w, first);
  const number = (slot.day - first) / 7 + 1;
  if (a.episodes !== null && number > a.episodes) return null;
  // The slot's local date is its date as scheduled (a gap may move its time past midnight).
  if (a.aired_to !== null && slot.day > dayOf(a.aired_to)) return null;
  return { number, airs_at: new Date(slot.at).toISOString() };
}

const pad = (n: number) => String(n).padStart(2, '0');

/** The weekday (a BroadcastDay) and "HH:MM" of an instant in `zone`. */
export function localTime(at: number, zone: string): { day: string; time: string } {
  const wall = wallAt(zone, at);
  const day = Math.floor(wall / DAY_MS);
  const minutes = Math.floor((wall - day * DAY_MS) / MINUTE_MS);
  return { day: WEEKDAYS[weekdayOf(day)]!, time: `${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}` };
}

/**
 * The airing calendar (API.md §8.6): each anime's episodes from now until `weeks` weeks ahead,
 * as §5.3's `next_episode` gives them one after the other, written as an iCalendar object
 * (RFC 5545) with a VTIMEZONE for the zone its DTSTARTs are in.
 *
 * The text is written here rather than with an iCalendar library (docs/decisions.md EX8): the
 * object has one shape — a VTIMEZONE and events of seven properties — and what a library would
 * add is the part we cannot take from one: the VTIMEZONE of the zone asked for. ical-generator
 * needs a date library (luxon, +70 KB per function) to write TZID times at all and then writes
 * DTSTAMP as floating time (RFC 5545 §3.8.7.2 requires UTC); its VTIMEZONEs come from another
 * package of every zone's rules. Here the VTIMEZONE is derived from the runtime's Intl (the same
 * tz data §5.3's times come from, broadcast.ts): its observances are the zone's offset changes
 * around the calendar's window, found by probing the offsets. Tests parse the text back with an
 * independent parser (ical.js) and compare each event's instant with `next_episode`.
 */
import { nextEpisode, offsetAt, type Airing, type NextEpisode } from './broadcast.js';

const DAY_MS = 86_400_000;

/** An anime's episodes later than `from` and not later than `to` (epoch milliseconds), in order. */
function episodesBetween(a: Airing, from: number, to: number): NextEpisode[] {
  const out: NextEpisode[] = [];
  for (let now = from; ; ) {
    const e = nextEpisode(a, now);
    if (!e) return out;
    const at = Date.parse(e.airs_at);
    if (at > to) return out;
    out.push(e);
    now = at;
  }
}

/** A change of a zone's offset: the instant, and the offsets before and after it (milliseconds). */
export interface Transition {
  at: number;
  from: number;
  to: number;
}

/** The instant in (lo, hi] where the zone's offset changes, given that it differs at lo and hi (to the second). */
function changeBetween(zone: string, lo: number, hi: number): number {
  const before = offsetAt(zone, lo);
  while (hi - lo > 1000) {
    const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
    if (offsetAt(zone, mid) === before) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** The zone's offset changes in (from, to], probing a day at a time (no zone changes twice in a day). */
export function transitions(zone: string, from: number, to: number): Transition[] {
  const out: Transition[] = [];
  let previous = offsetAt(zone, from);
  for (let t = from; t < to; ) {
    const next = Math.min(t + DAY_MS, to);
    const offset = offsetAt(zone, next);
    if (offset !== previous) {
      const at = changeBetween(zone, t, next);
      out.push({ at, from: previous, to: offset });
      previous = offset;
    }
    t = next;
  }
  return out;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** A wall (epoch milliseconds of a local date and time read as UTC) as an iCalendar DATE-TIME without zone: `YYYYMMDDTHHMMSS`. */
function localText(wall: number): string {
  const d = new Date(wall);
  return `${pad(d.getUTCFullYear(), 4)}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}T${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}`;
}

/** An instant as a UTC DATE-TIME: `YYYYMMDDTHHMMSSZ`. */
const utcText = (at: number): string => `${localText(Math.floor(at / 1000) * 1000)}Z`;

/** A UTC offset as RFC 5545 §3.3.14 writes it: `+0900`, `-0430`, `+053028` with seconds. */
function offsetText(ms: number): string {
  const sign = ms < 0 ? '-' : '+';
  const s = Math.abs(Math.round(ms / 1000));
  const text = `${sign}${pad(Math.floor(s / 3600))}${pad(Math.floor((s % 3600) / 60))}`;
  return s % 60 === 0 ? text : `${text}${pad(s % 60)}`;
}

/**
 * The VTIMEZONE of `zone` for events in [from, to]: an observance from the last offset change
 * before `from` (searched up to two years back; none: from 1970, the offset of `from`), and one
 * per change up to `to`. An observance is DAYLIGHT when its offset is the larger of the two it
 * moves between, else STANDARD (a zone that never changes has one STANDARD).
 */
export function vtimezone(zone: string, from: number, to: number): string[] {
  const back = transitions(zone, from - 2 * 366 * DAY_MS, from);
  const start = back.at(-1) ?? null;
  const changes = transitions(zone, from, to);
  const first = start ?? { at: 0, from: offsetAt(zone, from), to: offsetAt(zone, from) };
  const observances = [first, ...changes];
  const lines = ['BEGIN:VTIMEZONE', `TZID:${zone}`];
  observances.forEach((o, i) => {
    // Daylight when the offset is above the one it came from (or, for the first, the one it goes to next).
    const other = start || i > 0 ? o.from : (changes[0]?.to ?? o.to);
    const type = o.to > other ? 'DAYLIGHT' : 'STANDARD';
    // DTSTART is the local time of the change in the offset before it (RFC 5545 §3.6.5).
    lines.push(`BEGIN:${type}`, `DTSTART:${localText(o.at + o.from)}`, `TZOFFSETFROM:${offsetText(o.from)}`, `TZOFFSETTO:${offsetText(o.to)}`, `END:${type}`);
  });
  lines.push('END:VTIMEZONE');
  return lines;
}

/** TEXT escaped as RFC 5545 §3.3.11 says: backslash, semicolon, comma, newline. */
const escapeText = (s: string): string => s.replace(/\\/g, '\\\\').replace(/;/g, '\\;').replace(/,/g, '\\,').replace(/\r?\n|\r/g, '\\n');

/** A content line folded at 75 octets (RFC 5545 §3.1), never inside a UTF-8 character. */
export function fold(line: string): string {
  const out: string[] = [];
  let current = '';
  let bytes = 0;
  for (const ch of line) {
    const n = Buffer.byteLength(ch);
    // The first line holds 75 octets; each continuation starts with a space, then 74.
    if (bytes + n > (out.length === 0 ? 75 : 74)) {
      out.push(current);
      current = '';
      bytes = 0;
    }
    current += ch;
    bytes += n;
  }
  out.push(current);
  return out.join('\r\n ');
}

/** One anime of the calendar: what its events show, and its airing (§5.3). */
export interface CalendarAnime {
  id: string;
  name: string;
  url: string;
  airing: Airing;
  duration_seconds: number | null;
}

/** An episode's length when the anime has none (§8.6). */
const DEFAULT_DURATION_S = 24 * 60;

/**
 * The calendar (§8.6): the episodes of `animes` in (from, to] as events in `zone`, with its
 * VTIMEZONE. `stamp` is the DTSTAMP of every event (the instant the calendar is computed for:
 * the same for the same window, so the ETag holds while nothing changes). Events are ordered by
 * their instant, then anime id; UIDs are the anime's id and the airing instant.
 */
export function calendarText(animes: readonly CalendarAnime[], zone: string, from: number, to: number, stamp: number): string {
  const events = animes
    .flatMap((a) => episodesBetween(a.airing, from, to).map((e) => ({ a, e, at: Date.parse(e.airs_at) })))
    .sort((x, y) => x.at - y.at || (x.a.id < y.a.id ? -1 : x.a.id > y.a.id ? 1 : 0));
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Anime Catalogue API//Airing calendar//EN', 'CALSCALE:GREGORIAN', 'METHOD:PUBLISH', ...vtimezone(zone, from, to)];
  for (const { a, e, at } of events) {
    lines.push(
      'BEGIN:VEVENT',
      `UID:${a.id}-${utcText(at)}@airing.anime-catalogue`,
      `DTSTAMP:${utcText(stamp)}`,
      `DTSTART;TZID=${zone}:${localText(at + offsetAt(zone, at))}`,
      `DURATION:PT${a.duration_seconds ?? DEFAULT_DURATION_S}S`,
      `SUMMARY:${escapeText(`${a.name} — Episode ${e.number}`)}`,
      `URL:${a.url}`,
      'END:VEVENT',
    );
  }
  lines.push('END:VCALENDAR');
  return `${lines.map(fold).join('\r\n')}\r\n`;
}

/**
 * Broadcast times (API.md §5.3, shared/domain/broadcast.ts): local times in IANA zones with the
 * runtime's Intl — gaps moved forward by their length, ambiguous times at their earlier
 * instant — in zones with daylight-saving changes (America/New_York, Europe/London) across their
 * change dates and without (Asia/Tokyo); the weekly slot, slots around midnight; the next
 * episode with its `episodes` and `aired_to` cut-offs.
 */
import { describe, expect, it } from 'vitest';
import { instantOf, isTimeZone, localTime, nextEpisode, weeklySlot, type Airing, type Broadcast } from '../../shared/domain/broadcast.js';

/** A wall (local date and time read as UTC). */
const wall = (local: string) => Date.parse(`${local}Z`);
const iso = (ms: number) => new Date(ms).toISOString();
const at = (utc: string) => Date.parse(utc);

describe('instantOf: a local time in a zone', () => {
  it.each([
    // Asia/Tokyo: UTC+9 all year.
    ['Asia/Tokyo', '2025-03-09T02:30:00', '2025-03-08T17:30:00.000Z'],
    ['Asia/Tokyo', '2025-11-02T01:30:00', '2025-11-01T16:30:00.000Z'],
    // America/New_York, 2025-03-09: 02:00 EST → 03:00 EDT. 02:00–02:59 do not exist: moved forward by the gap (1 h).
    ['America/New_York', '2025-03-09T01:59:00', '2025-03-09T06:59:00.000Z'],
    ['America/New_York', '2025-03-09T02:00:00', '2025-03-09T07:00:00.000Z'],
    ['America/New_York', '2025-03-09T02:30:00', '2025-03-09T07:30:00.000Z'],
    ['America/New_York', '2025-03-09T03:00:00', '2025-03-09T07:00:00.000Z'],
    ['America/New_York', '2025-03-09T03:30:00', '2025-03-09T07:30:00.000Z'],
    // 2025-11-02: 02:00 EDT → 01:00 EST. 01:00–01:59 happen twice: the earlier (EDT) instant.
    ['America/New_York', '2025-11-02T00:59:00', '2025-11-02T04:59:00.000Z'],
    ['America/New_York', '2025-11-02T01:00:00', '2025-11-02T05:00:00.000Z'],
    ['America/New_York', '2025-11-02T01:30:00', '2025-11-02T05:30:00.000Z'],
    ['America/New_York', '2025-11-02T02:00:00', '2025-11-02T07:00:00.000Z'],
    // Europe/London, 2025-03-30: 01:00 GMT → 02:00 BST; 2025-10-26: 02:00 BST → 01:00 GMT.
    ['Europe/London', '2025-03-30T00:59:00', '2025-03-30T00:59:00.000Z'],
    ['Europe/London', '2025-03-30T01:30:00', '2025-03-30T01:30:00.000Z'],
    ['Europe/London', '2025-03-30T02:30:00', '2025-03-30T01:30:00.000Z'],
    ['Europe/London', '2025-10-26T00:30:00', '2025-10-25T23:30:00.000Z'],
    ['Europe/London', '2025-10-26T01:30:00', '2025-10-26T00:30:00.000Z'],
    ['Europe/London', '2025-10-26T02:30:00', '2025-10-26T02:30:00.000Z'],
    // A whole day that does not exist: Samoa skipped 2011-12-30 (UTC−10 → UTC+14); moved forward 24 h.
    ['Pacific/Apia', '2011-12-30T10:00:00', '2011-12-30T20:00:00.000Z'],
  ])('%s %s → %s', (zone, local, expected) => {
    expect(iso(instantOf(zone, wall(local)))).toBe(expected);
  });
});

describe('weeklySlot: the first slot later than now', () => {
  const b = (day: string, time: string, timezone: string): Broadcast => ({ day, time, timezone });

  it('later the same day, or a week on once the slot has begun (strictly later than now)', () => {
    const monday = b('monday', '23:30', 'Asia/Tokyo');
    expect(iso(weeklySlot(monday, at('2025-03-03T14:29:59.999Z'))!.at)).toBe('2025-03-03T14:30:00.000Z');
    expect(iso(weeklySlot(monday, at('2025-03-03T14:30:00.000Z'))!.at)).toBe('2025-03-10T14:30:00.000Z');
    // Any day of the week before it.
    expect(iso(weeklySlot(monday, at('2025-03-04T00:00:00.000Z'))!.at)).toBe('2025-03-10T14:30:00.000Z');
  });

  it('around midnight in the zone: Sunday 00:00 in Tokyo is Saturday 15:00 UTC', () => {
    const sunday = b('sunday', '00:00', 'Asia/Tokyo');
    expect(iso(weeklySlot(sunday, at('2025-03-08T14:59:59.000Z'))!.at)).toBe('2025-03-08T15:00:00.000Z');
    expect(iso(weeklySlot(sunday, at('2025-03-08T15:00:00.000Z'))!.at)).toBe('2025-03-15T15:00:00.000Z');
    const saturday = b('saturday', '23:59', 'Asia/Tokyo');
    expect(iso(weeklySlot(saturday, at('2025-03-08T14:58:00.000Z'))!.at)).toBe('2025-03-08T14:59:00.000Z');
  });

  it('follows daylight-saving changes: the same local time, a gap moved forward, an overlap at its earlier instant', () => {
    const ny = b('sunday', '02:30', 'America/New_York');
    expect(iso(weeklySlot(ny, at('2025-03-01T12:00:00Z'))!.at)).toBe('2025-03-02T07:30:00.000Z');
    expect(iso(weeklySlot(ny, at('2025-03-02T12:00:00Z'))!.at)).toBe('2025-03-09T07:30:00.000Z');
    expect(iso(weeklySlot(ny, at('2025-03-09T07:30:00Z'))!.at)).toBe('2025-03-16T06:30:00.000Z');
    const overlap = b('sunday', '01:30', 'America/New_York');
    expect(iso(weeklySlot(overlap, at('2025-11-01T12:00:00Z'))!.at)).toBe('2025-11-02T05:30:00.000Z');
    // Between the two 01:30s the slot has begun: the next is a week on (EST).
    expect(iso(weeklySlot(overlap, at('2025-11-02T05:45:00Z'))!.at)).toBe('2025-11-09T06:30:00.000Z');
    const london = b('sunday', '01:30', 'Europe/London');
    expect(iso(weeklySlot(london, at('2025-03-29T12:00:00Z'))!.at)).toBe('2025-03-30T01:30:00.000Z');
    expect(iso(weeklySlot(london, at('2025-10-25T12:00:00Z'))!.at)).toBe('2025-10-26T00:30:00.000Z');
  });

  it("yesterday's slot when a gap moved it past midnight and past now", () => {
    // Friday 2011-12-30 did not exist in Samoa: its 10:00 slot is Saturday 10:00 (+14), 20:00 UTC on the 30th.
    const friday = b('friday', '10:00', 'Pacific/Apia');
    expect(iso(weeklySlot(friday, at('2011-12-30T19:00:00Z'))!.at)).toBe('2011-12-30T20:00:00.000Z');
  });

  it('none for a broadcast that is not weekly or without a time', () => {
    expect(weeklySlot(b('other', '10:00', 'Asia/Tokyo'), Date.now())).toBeNull();
    expect(weeklySlot({ day: 'monday', time: null, timezone: 'Asia/Tokyo' }, Date.now())).toBeNull();
    expect(weeklySlot(null, Date.now())).toBeNull();
  });
});

describe('nextEpisode', () => {
  const airing = (over: Partial<Airing> = {}): Airing => ({
    status: 'airing',
    broadcast: { day: 'sunday', time: '01:30', timezone: 'Europe/London' },
    aired_from: '2025-03-01',
    aired_to: null,
    episodes: null,
    ...over,
  });

  it('slot 1 is the first broadcast day on or after aired_from; k counts weeks of local time across the change', () => {
    // Slots: 03-02, 03-09, 03-16, 03-23 at 01:30 GMT; 03-30 01:30 does not exist → 02:30 BST; then 01:30 BST.
    expect(nextEpisode(airing(), at('2025-02-20T00:00:00Z'))).toEqual({ number: 1, airs_at: '2025-03-02T01:30:00.000Z' });
    expect(nextEpisode(airing(), at('2025-03-02T01:30:00Z'))).toEqual({ number: 2, airs_at: '2025-03-09T01:30:00.000Z' });
    expect(nextEpisode(airing(), at('2025-03-30T01:00:00Z'))).toEqual({ number: 5, airs_at: '2025-03-30T01:30:00.000Z' });
    expect(nextEpisode(airing(), at('2025-03-30T01:30:00Z'))).toEqual({ number: 6, airs_at: '2025-04-06T00:30:00.000Z' });
    // Back to GMT: 10-26 01:30 is ambiguous (earlier: BST, 00:30 UTC); the week after is 01:30 GMT.
    expect(nextEpisode(airing(), at('2025-10-20T00:00:00Z'))).toEqual({ number: 35, airs_at: '2025-10-26T00:30:00.000Z' });
    expect(nextEpisode(airing(), at('2025-10-26T00:30:00Z'))).toEqual({ number: 36, airs_at: '2025-11-02T01:30:00.000Z' });
    // aired_from on the broadcast day itself is slot 1.
    expect(nextEpisode(airing({ aired_from: '2025-03-02' }), at('2025-02-01T00:00:00Z'))).toEqual({ number: 1, airs_at: '2025-03-02T01:30:00.000Z' });
  });

  it('New York: the episode on the day clocks move forward airs an hour later in local time', () => {
    const a = airing({ broadcast: { day: 'sunday', time: '02:30', timezone: 'America/New_York' } });
    expect(nextEpisode(a, at('2025-03-08T12:00:00Z'))).toEqual({ number: 2, airs_at: '2025-03-09T07:30:00.000Z' });
    expect(nextEpisode(a, at('2025-03-09T07:30:00Z'))).toEqual({ number: 3, airs_at: '2025-03-16T06:30:00.000Z' });
  });

  it('Tokyo: a slot at midnight local time is the day before in UTC; upcoming animes count too', () => {
    const a = airing({ status: 'upcoming', broadcast: { day: 'saturday', time: '00:00', timezone: 'Asia/Tokyo' }, aired_from: '2026-04-01' });
    expect(nextEpisode(a, at('2026-03-01T00:00:00Z'))).toEqual({ number: 1, airs_at: '2026-04-03T15:00:00.000Z' });
    expect(nextEpisode(a, at('2026-04-10T14:59:59Z'))).toEqual({ number: 2, airs_at: '2026-04-10T15:00:00.000Z' });
  });

  it('null once `episodes` are all aired, or when the slot is after aired_to', () => {
    const now = at('2025-03-05T00:00:00Z'); // after slot 1 (03-02), before slot 2 (03-09)
    expect(nextEpisode(airing({ episodes: 1 }), now)).toBeNull();
    expect(nextEpisode(airing({ episodes: 2 }), now)).toEqual({ number: 2, airs_at: '2025-03-09T01:30:00.000Z' });
    expect(nextEpisode(airing({ aired_to: '2025-03-08' }), now)).toBeNull();
    expect(nextEpisode(airing({ aired_to: '2025-03-09' }), now)).toEqual({ number: 2, airs_at: '2025-03-09T01:30:00.000Z' });
    // Slot 1 after aired_to: the series never airs on its broadcast day.
    expect(nextEpisode(airing({ aired_to: '2025-03-01' }), at('2025-02-01T00:00:00Z'))).toBeNull();
  });

  it('null unless airing or upcoming with a weekly broadcast, a time and aired_from', () => {
    const now = at('2025-03-05T00:00:00Z');
    expect(nextEpisode(airing({ status: 'finished' }), now)).toBeNull();
    expect(nextEpisode(airing({ broadcast: null }), now)).toBeNull();
    expect(nextEpisode(airing({ broadcast: { day: 'other', time: '10:00', timezone: 'Asia/Tokyo' } }), now)).toBeNull();
    expect(nextEpisode(airing({ broadcast: { day: 'monday', time: null, timezone: 'Asia/Tokyo' } }), now)).toBeNull();
    expect(nextEpisode(airing({ aired_from: null }), now)).toBeNull();
  });
});

describe('localTime and isTimeZone', () => {
  it('the weekday and HH:MM of an instant in another zone (the day may change)', () => {
    const slot = at('2025-03-09T07:30:00Z');
    expect(localTime(slot, 'Asia/Tokyo')).toEqual({ day: 'sunday', time: '16:30' });
    expect(localTime(slot, 'America/Los_Angeles')).toEqual({ day: 'saturday', time: '23:30' });
    expect(localTime(slot, 'UTC')).toEqual({ day: 'sunday', time: '07:30' });
    expect(localTime(at('2025-03-09T00:00:00Z'), 'Europe/London')).toEqual({ day: 'sunday', time: '00:00' });
  });

  it('IANA names the runtime knows; not abbreviations or unknown names', () => {
    for (const tz of ['Asia/Tokyo', 'Europe/Paris', 'America/Argentina/Buenos_Aires', 'Etc/GMT+5', 'UTC']) expect(isTimeZone(tz), tz).toBe(true);
    for (const tz of ['Mars/Base', 'EST', 'JST', '', 'Asia/Tokyo/', '+09:00']) expect(isTimeZone(tz), tz).toBe(false);
  });
});

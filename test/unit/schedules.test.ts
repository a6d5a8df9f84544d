/**
 * Schedule entries (API.md §4.15, shared/domain/schedules.ts): the day, time and zone of an
 * airing anime's entry with and without `tz`, `seconds_until`, and the orderings' sort keys
 * (day order monday … sunday, other, unknown, then time, then name; ties by the anime's id;
 * unscored last in both directions).
 */
import { describe, expect, it } from 'vitest';
import type { ScheduleEntry } from '../../shared/db/animes.js';
import { compareCodePoints } from '../../shared/db/sort-keys.js';
import { scheduleSortKey, slotted } from '../../shared/domain/schedules.js';

let n = 0;
const entry = (over: Partial<ScheduleEntry> = {}): ScheduleEntry => ({
  id: `A${String(++n).padStart(21, '0')}`,
  name: `Anime ${n}`,
  score: null,
  status: 'airing',
  broadcast: { day: 'monday', time: '00:30', timezone: 'Asia/Tokyo' },
  aired_from: '2025-01-06',
  aired_to: null,
  episodes: null,
  ...over,
});
// Monday 2025-03-03 00:30 JST is 2025-03-02 15:30 UTC; now is an hour before.
const now = Date.parse('2025-03-02T14:30:00.250Z');

describe('slotted', () => {
  it('without tz: the broadcast’s own day, time and zone; next_episode with whole seconds until it', () => {
    expect(slotted(entry(), now, null)).toEqual({
      day: 'monday',
      time: '00:30',
      timezone: 'Asia/Tokyo',
      next_episode: { number: 9, airs_at: '2025-03-02T15:30:00.000Z', seconds_until: 3599 },
    });
  });

  it('with tz: the weekday and time of the weekly slot there (the day may change)', () => {
    expect(slotted(entry(), now, 'America/New_York')).toMatchObject({ day: 'sunday', time: '10:30', timezone: 'America/New_York' });
    expect(slotted(entry(), now, 'Asia/Tokyo')).toMatchObject({ day: 'monday', time: '00:30', timezone: 'Asia/Tokyo' });
    // A week later New York is on daylight time: the same slot is 11:30 there.
    expect(slotted(entry(), Date.parse('2025-03-09T14:30:00Z'), 'America/New_York')).toMatchObject({ day: 'sunday', time: '11:30' });
  });

  it('other: no time, the zone asked for or the broadcast’s; unknown: no time, no zone', () => {
    const other = entry({ broadcast: { day: 'other', time: null, timezone: 'Asia/Tokyo' } });
    expect(slotted(other, now, null)).toEqual({ day: 'other', time: null, timezone: 'Asia/Tokyo', next_episode: null });
    expect(slotted(other, now, 'Europe/Paris')).toEqual({ day: 'other', time: null, timezone: 'Europe/Paris', next_episode: null });
    const unknown = entry({ broadcast: null });
    expect(slotted(unknown, now, null)).toEqual({ day: 'unknown', time: null, timezone: null, next_episode: null });
    expect(slotted(unknown, now, 'Europe/Paris')).toEqual({ day: 'unknown', time: null, timezone: null, next_episode: null });
  });

  it('the weekly slot regardless of episodes: the day and time stay when next_episode is null', () => {
    expect(slotted(entry({ episodes: 8 }), now, 'UTC')).toEqual({ day: 'sunday', time: '15:30', timezone: 'UTC', next_episode: null });
  });
});

describe('sort keys', () => {
  const order = (ordering: string, es: ScheduleEntry[], descending = false) =>
    es
      .map((e) => ({ e, sk: scheduleSortKey(ordering, e, slotted(e, now, null), descending ? 'desc' : 'asc') }))
      .sort((a, b) => compareCodePoints(a.sk, b.sk) * (descending ? -1 : 1))
      .map((x) => x.e.name);

  it('day: monday … sunday, other, unknown; then time; then name (N(name), by code point); ties by id', () => {
    const es = [
      entry({ name: 'unknown', broadcast: null }),
      entry({ name: 'other', broadcast: { day: 'other', time: null, timezone: 'Asia/Tokyo' } }),
      entry({ name: 'sun', broadcast: { day: 'sunday', time: '00:00', timezone: 'Asia/Tokyo' } }),
      entry({ name: 'mon late', broadcast: { day: 'monday', time: '23:30', timezone: 'Asia/Tokyo' } }),
      entry({ name: 'mon b', broadcast: { day: 'monday', time: '09:00', timezone: 'Asia/Tokyo' } }),
      entry({ name: 'Mon A', broadcast: { day: 'monday', time: '09:00', timezone: 'Asia/Tokyo' } }),
      entry({ name: 'wed', broadcast: { day: 'wednesday', time: '00:00', timezone: 'Asia/Tokyo' } }),
    ];
    expect(order('day', es)).toEqual(['Mon A', 'mon b', 'mon late', 'wed', 'sun', 'other', 'unknown']);
    expect(order('day', es, true)).toEqual(['unknown', 'other', 'sun', 'wed', 'mon late', 'mon b', 'Mon A']);
    const [x, y] = [entry({ name: 'Same' }), entry({ name: 'same' })];
    expect(order('day', [y, x])).toEqual(['Same', 'same']);
    expect(order('day', [y, x], true)).toEqual(['Same', 'same']);
  });

  it('score: unscored last in both directions; name: N(name)', () => {
    const es = [entry({ name: 'none', score: null }), entry({ name: 'high', score: 8.25 }), entry({ name: 'low', score: 6.5 })];
    expect(order('score', es)).toEqual(['low', 'high', 'none']);
    expect(order('score', es, true)).toEqual(['high', 'low', 'none']);
    const named = [entry({ name: 'Émile' }), entry({ name: 'eve' }), entry({ name: 'Zed' })];
    expect(order('name', named)).toEqual(['Émile', 'eve', 'Zed']);
    expect(order('name', named, true)).toEqual(['Zed', 'eve', 'Émile']);
  });
});

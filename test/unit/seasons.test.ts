/**
 * Seasons (API.md §5.2, shared/domain/seasons.ts): the season of a date by its month, the
 * current and the upcoming season of "today" in UTC — the contract's examples and the
 * boundaries of each season and year.
 */
import { describe, expect, it } from 'vitest';
import { seasonNow, seasonOf, seasonParams, seasonUpcoming } from '../../shared/domain/seasons.js';

describe('seasonOf', () => {
  it.each([
    ['2025-01-01', 'winter'],
    ['2025-03-31', 'winter'],
    ['2025-04-01', 'spring'],
    ['2025-06-30', 'spring'],
    ['2025-07-01', 'summer'],
    ['2025-09-30', 'summer'],
    ['2025-10-01', 'fall'],
    ['2025-12-31', 'fall'],
  ])('%s → %s 2025', (date, season) => {
    expect(seasonOf(date)).toEqual({ season, year: 2025 });
  });

  it('no aired_from, no season', () => {
    expect(seasonOf(null)).toEqual({ season: null, year: null });
  });
});

describe('now and upcoming', () => {
  it('the contract’s examples: 2025-02-10 → winter / spring 2025; 2025-11-03 → fall 2025 / winter 2026', () => {
    expect(seasonNow(new Date('2025-02-10T12:00:00Z'))).toEqual({ year: 2025, season: 'winter' });
    expect(seasonUpcoming(new Date('2025-02-10T12:00:00Z'))).toEqual({ year: 2025, season: 'spring' });
    expect(seasonNow(new Date('2025-11-03T12:00:00Z'))).toEqual({ year: 2025, season: 'fall' });
    expect(seasonUpcoming(new Date('2025-11-03T12:00:00Z'))).toEqual({ year: 2026, season: 'winter' });
  });

  it.each([
    ['2025-03-31T23:59:59.999Z', 'winter', 2025, 'spring', 2025],
    ['2025-04-01T00:00:00.000Z', 'spring', 2025, 'summer', 2025],
    ['2025-06-30T23:59:59.999Z', 'spring', 2025, 'summer', 2025],
    ['2025-07-01T00:00:00.000Z', 'summer', 2025, 'fall', 2025],
    ['2025-09-30T23:59:59.999Z', 'summer', 2025, 'fall', 2025],
    ['2025-10-01T00:00:00.000Z', 'fall', 2025, 'winter', 2026],
    ['2025-12-31T23:59:59.999Z', 'fall', 2025, 'winter', 2026],
    ['2026-01-01T00:00:00.000Z', 'winter', 2026, 'spring', 2026],
  ])('at %s: now %s %i, upcoming %s %i', (at, season, year, next, nextYear) => {
    expect(seasonNow(new Date(at))).toEqual({ year, season });
    expect(seasonUpcoming(new Date(at))).toEqual({ year: nextYear, season: next });
  });

  it('today is the UTC date, whatever the local zone of the instant', () => {
    // 2025-03-31 23:30 in New York is 2025-04-01 in UTC.
    expect(seasonNow(new Date('2025-03-31T23:30:00-04:00'))).toEqual({ year: 2025, season: 'spring' });
    // 2025-04-01 08:30 in Tokyo is still 2025-03-31 in UTC.
    expect(seasonNow(new Date('2025-04-01T08:30:00+09:00'))).toEqual({ year: 2025, season: 'winter' });
  });
});

describe('the path of GET /api/seasons/{year}/{season}/', () => {
  it('four digits 1900–2100 and a Season; anything else fails (a 404)', () => {
    expect(seasonParams.parse({ year: '2025', season: 'fall' })).toEqual({ year: 2025, season: 'fall' });
    expect(seasonParams.parse({ year: '1900', season: 'winter' })).toEqual({ year: 1900, season: 'winter' });
    expect(seasonParams.parse({ year: '2100', season: 'summer' })).toEqual({ year: 2100, season: 'summer' });
    for (const [year, season] of [
      ['1899', 'fall'],
      ['2101', 'fall'],
      ['25', 'fall'],
      ['02025', 'fall'],
      ['２０２５', 'fall'],
      ['2025', 'Fall'],
      ['2025', 'autumn'],
      ['2025 ', 'fall'],
      ['now', 'fall'],
    ]) {
      expect(seasonParams.safeParse({ year, season }).success, `${year}/${season}`).toBe(false);
    }
  });
});

/**
 * The status an imported title's dates give (API.md §5.5 airing status, clarified 2026-11-29;
 * shared/domain/imported.ts statusOn): upcoming, airing, finished after `aired_to`; without an
 * end or an episode count, finished 26 weeks after `aired_from` when the title had started less
 * than 26 weeks before the data set's release, airing for ever otherwise. And the release the
 * import takes is the installed package's.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { SOURCE_RELEASE } from '../../shared/domain/bangumi.js';
import { statusOn } from '../../shared/domain/imported.js';

const RELEASE = '2026-04-25';
const title = (aired_from: string | null, aired_to: string | null = null, episodes: number | null = null) => ({ aired_from, aired_to, episodes });

describe('statusOn', () => {
  it('dates: upcoming before aired_from (or without it), airing through aired_to, finished after it', () => {
    expect(statusOn(title(null), '2026-05-01', RELEASE)).toBe('upcoming');
    expect(statusOn(title('2026-05-02', '2026-06-01'), '2026-05-01', RELEASE)).toBe('upcoming');
    expect(statusOn(title('2026-05-02', '2026-06-01'), '2026-05-02', RELEASE)).toBe('airing');
    expect(statusOn(title('2026-05-02', '2026-06-01'), '2026-06-01', RELEASE)).toBe('airing');
    expect(statusOn(title('2026-05-02', '2026-06-01'), '2026-06-02', RELEASE)).toBe('finished');
    // An end the source gives wins over the 26 weeks, either way.
    expect(statusOn(title('2026-01-01', '2027-06-01'), '2026-12-01', RELEASE)).toBe('airing');
  });

  it('no end, no episode count, new at the release (started less than 26 weeks before it, or later): finished 26 weeks after aired_from', () => {
    // 2025-10-26 is 26 weeks less a day before 2026-04-25; 26 weeks after it is 2026-04-26.
    expect(statusOn(title('2025-10-26'), '2026-04-25', RELEASE)).toBe('airing');
    expect(statusOn(title('2025-10-26'), '2026-04-26', RELEASE)).toBe('finished');
    expect(statusOn(title('2026-03-01'), '2026-08-29', RELEASE)).toBe('airing');
    expect(statusOn(title('2026-03-01'), '2026-08-30', RELEASE)).toBe('finished');
    // Upcoming at the release.
    expect(statusOn(title('2026-07-03'), '2026-12-31', RELEASE)).toBe('airing');
    expect(statusOn(title('2026-07-03'), '2027-01-01', RELEASE)).toBe('finished');
  });

  it('running 26 weeks or longer at the release (a long-running series), an episode count known, or no release known: airing', () => {
    expect(statusOn(title('2025-10-25'), '2030-01-01', RELEASE)).toBe('airing');
    expect(statusOn(title('1996-01-08'), '2030-01-01', RELEASE)).toBe('airing');
    expect(statusOn(title('2026-03-01', null, 12), '2030-01-01', RELEASE)).toBe('airing');
    expect(statusOn(title('2026-03-01'), '2030-01-01', null)).toBe('airing');
  });
});

describe('the data set release', () => {
  it('is the installed package version (updating the package means giving its release date here)', () => {
    const pkg = JSON.parse(readFileSync(createRequire(import.meta.url).resolve('bangumi-data/package.json'), 'utf8')) as { version: string };
    expect(SOURCE_RELEASE).toEqual({ version: pkg.version, date: RELEASE });
  });
});

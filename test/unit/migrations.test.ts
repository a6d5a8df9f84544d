/**
 * The registry of migration steps (shared/domain/migrations.ts) and how a step recognises the
 * items of schema version 1 it rebuilds (shared/db/reviews.ts, records.ts, recommendations.ts).
 * The migration itself runs on the real engine: test/integration/migrations.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { SCHEMA_VERSION, UNRECORDED_VERSION } from '../../shared/db/migrations.js';
import { listTitleOf } from '../../shared/db/recommendations.js';
import { recordIdOf } from '../../shared/db/records.js';
import { isReviewCountItem, legacyVectorOf } from '../../shared/db/reviews.js';
import { STEPS } from '../../shared/domain/migrations.js';

const R = 'r1234567890123456789012';
const T = 't1234567890123456789012';
const U = 'u1234567890123456789012';
const vector = { id: R, o: { created_at: '2025-01-01T00:00:00.000Z', helpful_count: 2, rating: 7 }, f: { kind: ['manga'], spoiler: ['false'], title: [T], user: [U] }, x: {}, sw: ' ' };

describe('migration steps', () => {
  it('lead one version at a time from the unrecorded version to the one this code writes', () => {
    expect(STEPS.map((s) => [s.from, s.to])).toEqual(Array.from({ length: SCHEMA_VERSION - UNRECORDED_VERSION }, (_, i) => [UNRECORDED_VERSION + i, UNRECORDED_VERSION + i + 1]));
    for (const s of STEPS) expect(s.title.length).toBeGreaterThan(10);
  });
});

describe('what the step to version 2 recognises', () => {
  it('a review’s vectors of version 1, in its title’s and in its author’s partitions, and nothing else', () => {
    const ref = { reviewId: R, titleId: T, userId: U };
    expect(legacyVectorOf({ pk: `REVIEWS#MANGA#${T}`, sk: R, ...vector })).toMatchObject({ ...ref, kind: { titleKind: 'MANGA' } });
    expect(legacyVectorOf({ pk: `REVIEWS#USER#${U}#V`, sk: R, ...vector })).toMatchObject({ ...ref, kind: { titleKind: 'MANGA' } });
    // The title's counts item, list entries, a claim, the user's counts: version 2's.
    expect(legacyVectorOf({ pk: `REVIEWS#MANGA#${T}`, sk: 'N', n: 1 })).toBeNull();
    expect(legacyVectorOf({ pk: `REVIEWS#MANGA#${T}#O#rating#A`, sk: `1000000000000007\u0001${R}`, id: R, k: 'manga', sp: false, t: T, u: U })).toBeNull();
    expect(legacyVectorOf({ pk: `REVIEWS#USER#${U}`, sk: `T#MANGA#${T}`, id: R })).toBeNull();
    expect(legacyVectorOf({ pk: `REVIEWS#USER#${U}`, sk: 'N', n: 1 })).toBeNull();
  });

  it('records, count items and recommendation lists by their keys', () => {
    expect(recordIdOf('ANIME', { pk: `ANIME#${T}`, sk: 'R' })).toBe(T);
    expect(recordIdOf('ANIME', { pk: 'ANIME#N', sk: 'N' })).toBeNull();
    expect(recordIdOf('ANIME', { pk: `ANIME#${T}#F`, sk: 'H' })).toBeNull();
    expect(recordIdOf('REVIEW', { pk: `REVIEWS#TOP`, sk: 'R' })).toBeNull();
    expect(recordIdOf('REVIEW', { pk: `REVIEW#${R}`, sk: 'R' })).toBe(R);
    expect([`REVIEWS#ANIME#${T}`, `REVIEWS#USER#${U}`].map((pk) => isReviewCountItem({ pk, sk: 'N' }))).toEqual([true, true]);
    expect(isReviewCountItem({ pk: `REVIEWS#VOTER#${U}`, sk: 'N' })).toBe(false);
    expect(listTitleOf({ pk: `RECS#ANIME#${T}`, sk: 'R' })).toEqual({ titleKind: 'ANIME', titleId: T });
    expect(listTitleOf({ pk: 'RECS#JOB', sk: 'R' })).toBeNull();
  });
});

/** The vote counting of the recommendations job (shared/domain/co-votes.ts) against a brute-force recount. */
import { describe, expect, it } from 'vitest';
import { capFor, coVotes } from '../../shared/domain/co-votes.js';
import { rng } from '../support/rng.js';

function population(seed: number, titles: number, users: number, perUser: number) {
  const r = rng(seed);
  const high: Set<number>[] = Array.from({ length: users }, () => new Set<number>());
  for (const own of high) {
    const size = Math.max(1, Math.floor(r() * perUser));
    while (own.size < size) own.add(Math.floor(r() * titles));
  }
  const listers = Array.from({ length: titles }, (_, t) => Int32Array.from(high.flatMap((own, u) => (own.has(t) ? [u] : []))));
  const order = Array.from({ length: titles }, (_, t) => t).sort(() => r() - 0.5);
  const tieRank = new Int32Array(titles);
  order.forEach((t, i) => (tieRank[t] = i));
  return { high, listers, tieRank };
}

describe('coVotes', () => {
  it('every title: the titles most listed high with it, by votes desc then tie order, at most cap; none for titles alone', () => {
    const T = 40;
    const { high, listers, tieRank } = population(3, T, 60, 12);
    const out = coVotes({ listers, users: 60, tieRank, cap: 7 });
    for (let a = 0; a < T; a++) {
      const counts = new Map<number, number>();
      for (const own of high) if (own.has(a)) for (const b of own) if (b !== a) counts.set(b, (counts.get(b) ?? 0) + 1);
      const expected = [...counts].sort((x, y) => y[1] - x[1] || tieRank[x[0]]! - tieRank[y[0]]!).slice(0, 7);
      const got = out[a];
      if (expected.length === 0) expect(got).toBeUndefined();
      else expect([...got!.titles].map((b, i) => [b, got!.votes[i]])).toEqual(expected);
    }
  });

  it('the work budget: exact under it; over it every user keeps at most H titles, the same sample every time', () => {
    const { listers, tieRank } = population(5, 30, 20, 25);
    const exact = coVotes({ listers, users: 20, tieRank, cap: 50, maxWork: 1e9 });
    expect(exact).toEqual(coVotes({ listers, users: 20, tieRank, cap: 50 }));
    const sizes = new Int32Array(20);
    for (const row of listers) for (const u of row) sizes[u]!++;
    const H = capFor(sizes, 500)!;
    expect(H).toBeGreaterThan(0);
    expect([...sizes].reduce((w, h) => w + Math.min(h, H) ** 2, 0)).toBeLessThanOrEqual(500);
    const stats = { increments: 0, lists: 0, sampledAt: null as number | null, sampledUsers: 0 };
    const sampled = coVotes({ listers, users: 20, tieRank, cap: 50, maxWork: 500 }, stats);
    expect(stats.sampledAt).toBe(H);
    expect(stats.increments).toBeLessThanOrEqual(500);
    expect(sampled).toEqual(coVotes({ listers, users: 20, tieRank, cap: 50, maxWork: 500 }));
    // Sampling only removes votes.
    for (let a = 0; a < 30; a++) for (const [i, b] of [...(sampled[a]?.titles ?? [])].entries()) expect(sampled[a]!.votes[i]).toBeLessThanOrEqual(exact[a]!.votes[[...exact[a]!.titles].indexOf(b)]!);
  });
});

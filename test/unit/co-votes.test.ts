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

  it('publishes a pair only from minVotes co-votes on (§5.4: 3): pairs of 1 or 2 never, 3 and more always', () => {
    // Title 0 with 1 (users 0–2: 3 votes), 2 (users 3–4: 2), 3 (user 5: 1) and 4 (users 0–3: 4); 4 with 1 (3) and 2 (1).
    const listers = [[0, 1, 2, 3, 4, 5], [0, 1, 2], [3, 4], [5], [0, 1, 2, 3]].map((l) => Int32Array.from(l));
    const tieRank = Int32Array.from([0, 1, 2, 3, 4]);
    const out = coVotes({ listers, users: 6, tieRank, cap: 50, minVotes: 3 });
    const pairs = out.map((o) => (o ? [...o.titles].map((b, i) => [b, o.votes[i]]) : undefined));
    expect(pairs).toEqual([
      [[4, 4], [1, 3]],
      [[0, 3], [4, 3]],
      undefined,
      undefined,
      [[0, 4], [1, 3]],
    ]);
    // Without the minimum the pairs of 1 and 2 votes are there (so the minimum is what drops them).
    expect(coVotes({ listers, users: 6, tieRank, cap: 50 })[2]).toEqual({ titles: Int32Array.from([0, 4]), votes: Int32Array.from([2, 1]) });
    // Against the recount, on a random population: exactly the pairs with at least 3 votes.
    const T = 40;
    const { high, listers: many, tieRank: ranks } = population(4, T, 80, 14);
    const got = coVotes({ listers: many, users: 80, tieRank: ranks, cap: 7, minVotes: 3 });
    for (let a = 0; a < T; a++) {
      const counts = new Map<number, number>();
      for (const own of high) if (own.has(a)) for (const b of own) if (b !== a) counts.set(b, (counts.get(b) ?? 0) + 1);
      const expected = [...counts].filter(([, v]) => v >= 3).sort((x, y) => y[1] - x[1] || ranks[x[0]]! - ranks[y[0]]!).slice(0, 7);
      const list = got[a];
      if (expected.length === 0) expect(list).toBeUndefined();
      else expect([...list!.titles].map((b, i) => [b, list!.votes[i]])).toEqual(expected);
    }
    expect(got.some((l) => l !== undefined)).toBe(true);
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

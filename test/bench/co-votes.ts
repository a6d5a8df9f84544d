/**
 * The recommendations job's computation (shared/domain/co-votes.ts) at the bench's scale, in
 * memory: time, heap and the work (counter increments, Σ h²) for list items drawn over users
 * whose list sizes follow a heavy tail, and for the worst shapes of heavy users.
 *
 *   npx tsx test/bench/co-votes.ts [items=1000000] [users=100000] [titles=30000] [shape index: all]
 *
 * Not run by `npm test`; the figures are in docs/recommendations-at-scale.md.
 */
import { coVotes, type CoVoteStats } from '../../shared/domain/co-votes.js';
import { MAX_WORK } from '../../shared/domain/recommendations-job.js';
import { MIN_VOTES } from '../../shared/domain/recommendations.js';
import { rng } from '../support/rng.js';

const [items = 1_000_000, users = 100_000, titles = 30_000, only] = process.argv.slice(2).map(Number);

interface Shape {
  name: string;
  /** List size of each user (sums to about `items`). */
  sizes: number[];
}

function heavyTail(seed: number): number[] {
  // Pareto-like sizes (alpha 1.2) scaled to the total, each at most the catalogue.
  const r = rng(seed);
  const raw = Array.from({ length: users }, () => 1 / Math.pow(1 - r(), 1 / 1.2));
  const sum = raw.reduce((a, b) => a + b, 0);
  return raw.map((x) => Math.min(titles, Math.max(1, Math.round((x * items) / sum))));
}

function heavyUsers(count: number, size: number): number[] {
  // `count` users with `size` items each, the rest spread evenly.
  const rest = Math.max(0, items - count * size);
  return Array.from({ length: users }, (_, u) => (u < count ? size : Math.max(1, Math.round(rest / (users - count)))));
}

function run(shape: Shape, seed: number) {
  const r = rng(seed);
  const lists: number[][] = Array.from({ length: titles }, () => []);
  let total = 0;
  let high = 0;
  let maxHigh = 0;
  let sumSquares = 0;
  // Popular titles are listed more: titles drawn with a skew (t = T × u², u uniform).
  for (const [u, size] of shape.sizes.entries()) {
    const chosen = new Set<number>();
    // Large lists take every title in turn (a skewed draw would take forever to reach the rarest).
    if (size > titles / 2) for (let t = 0; chosen.size < size && t < titles; t++) chosen.add(t);
    while (chosen.size < size) chosen.add(Math.min(titles - 1, Math.floor(titles * r() * r())));
    let h = 0;
    for (const t of chosen) {
      total++;
      // About 55 % of scored items are 7 or more.
      if (r() < 0.55) {
        lists[t]!.push(u);
        h++;
      }
    }
    high += h;
    maxHigh = Math.max(maxHigh, h);
    sumSquares += h * h;
  }
  const listers = lists.map((l) => Int32Array.from(l));
  const order = Array.from({ length: titles }, (_, t) => t).sort(() => r() - 0.5);
  const tieRank = new Int32Array(titles);
  order.forEach((t, i) => (tieRank[t] = i));
  global.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const started = performance.now();
  const stats: CoVoteStats = { increments: 0, lists: 0, sampledAt: null, sampledUsers: 0 };
  const out = coVotes({ listers, users, tieRank, cap: 50, minVotes: MIN_VOTES, maxWork: MAX_WORK }, stats);
  const ms = performance.now() - started;
  const heapAfter = process.memoryUsage().heapUsed;
  console.log(
    JSON.stringify({
      shape: shape.name,
      items: total,
      high,
      maxHigh,
      sumSquares,
      increments: stats.increments,
      lists: stats.lists,
      sampledAt: stats.sampledAt,
      sampledUsers: stats.sampledUsers,
      ms: Math.round(ms),
      nsPerIncrement: Number(((ms * 1e6) / Math.max(1, stats.increments)).toFixed(2)),
      heapGrowthMB: Math.round((heapAfter - heapBefore) / 1e6),
      rssMB: Math.round(process.memoryUsage().rss / 1e6),
      results: out.filter(Boolean).length,
    }),
  );
}

const shapes: Shape[] = [
  { name: 'heavy tail (Pareto 1.2)', sizes: heavyTail(1) },
  { name: '100 users of 5,000 items', sizes: heavyUsers(100, 5_000) },
  { name: `30 users listing every title (${titles})`, sizes: heavyUsers(30, titles) },
];
for (const [i, s] of shapes.entries()) if (only === undefined || only === i) run(s, i + 7);

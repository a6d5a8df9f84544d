/**
 * The per-title recommendations of API.md §5.4, in memory: for every title A, the (at most `cap`)
 * titles B ≠ A with the most votes(A, B) — the number of users with high items for both — and at
 * least `minVotes` of them (§5.4: 3, so that no list shows what one user's private list holds),
 * ordered by votes desc, then by the titles' tie order (score desc, nulls last; name; id).
 *
 * Titles are numbered 0..T−1 and users 0..U−1. The input is, per title, its high listers; the
 * work inverts it once (each user's high titles, compressed rows of Int32Array) and then, for
 * each A, counts every B over the lists of A's listers in one Int32Array of T counters (reset
 * after A). Memory: ~8 bytes per high item plus 8 bytes per title — about 10 MB at 1,000,000
 * list items — whatever the number of pairs. Time: Σ over users of h², h being the user's high
 * items (each pair is counted once from each side), plus a selection of the top `cap` per title.
 *
 * **Work budget** (docs/decisions.md M3). Σ h² is quadratic in the heaviest lists: 30 users
 * listing all of 30,000 animes high are 8·10⁹ increments (minutes), while 1,000,000 items of a
 * heavy-tailed population are ~10⁹. When Σ h² exceeds `maxWork`, every user's high items are
 * capped at the largest H with Σ min(h, H)² ≤ maxWork, keeping for a user with more the H titles
 * of smallest hash(user, title) — a fixed sample, the same from run to run — so only the votes
 * those users give are sampled, and only when the budget is exceeded.
 */

export interface CoVoteInput {
  /** Per title, the users with a high item for it (each user once). */
  listers: readonly Int32Array[];
  /** Number of users. */
  users: number;
  /** Per title, its position in the tie order (a permutation of 0..T−1: 0 first). */
  tieRank: Int32Array;
  /** At most this many recommendations per title. */
  cap: number;
  /** A title B is recommended for A only with at least this many votes(A, B) (default 1). */
  minVotes?: number;
  /** Σ h² beyond which the heaviest users are sampled (default: no limit). */
  maxWork?: number;
  /** Per user and per title, a hash of its id (the sample of a heavy user's titles; default: its number). */
  userHash?: Int32Array;
  titleHash?: Int32Array;
}

export interface CoVotes {
  /** Recommended titles, in order. */
  titles: Int32Array;
  votes: Int32Array;
}

/** Work done (for the benchmark): counter increments (Σ h² − Σ h) and titles with a list. */
export interface CoVoteStats {
  increments: number;
  lists: number;
  /** The cap on a user's high items that the budget imposed (null: none). */
  sampledAt: number | null;
  /** Users whose high items were sampled. */
  sampledUsers: number;
}

/** The largest H with Σ min(h, H)² ≤ maxWork (null when Σ h² already is). */
export function capFor(sizes: Int32Array, maxWork: number): number | null {
  const work = (H: number) => {
    let w = 0;
    for (const h of sizes) w += Math.min(h, H) ** 2;
    return w;
  };
  let hi = 0;
  for (const h of sizes) hi = Math.max(hi, h);
  if (work(hi) <= maxWork) return null;
  let lo = 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (work(mid) <= maxWork) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** A 32-bit mix of two numbers (murmur3's finaliser). */
function mix(a: number, b: number): number {
  let h = Math.imul(a ^ Math.imul(b, 0x9e3779b1), 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * The recommendations of every title (`undefined` for a title without any), in title order.
 */
export function coVotes(input: CoVoteInput, stats?: CoVoteStats): (CoVotes | undefined)[] {
  const { users, tieRank, cap } = input;
  const minVotes = input.minVotes ?? 1;
  let listers = input.listers;
  const T = listers.length;
  // Each user's high titles: compressed rows (offsets, then titles).
  const sizes = new Int32Array(users);
  for (const row of listers) for (const u of row) sizes[u]!++;
  const H = input.maxWork === undefined ? null : capFor(sizes, input.maxWork);
  let sampledUsers = 0;
  if (H !== null) {
    // The heaviest users keep H of their titles (smallest hash): the listers are rebuilt without the others.
    const rows: number[][] = Array.from({ length: users }, () => []);
    listers.forEach((row, t) => row.forEach((u) => rows[u]!.push(t)));
    const uh = (u: number) => input.userHash?.[u] ?? u;
    const th = (t: number) => input.titleHash?.[t] ?? t;
    const kept: number[][] = Array.from({ length: T }, () => []);
    rows.forEach((row, u) => {
      let titles = row;
      if (row.length > H) {
        sampledUsers++;
        titles = row.map((t) => [mix(uh(u), th(t)), t] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1]).slice(0, H).map((p) => p[1]);
      }
      for (const t of titles) kept[t]!.push(u);
      sizes[u] = titles.length;
    });
    listers = kept.map((l) => Int32Array.from(l));
  }
  const offsets = new Int32Array(users + 1);
  for (let u = 0; u < users; u++) offsets[u + 1] = offsets[u]! + sizes[u]!;
  const titlesOf = new Int32Array(offsets[users]!);
  const fill = offsets.slice(0, users);
  for (let t = 0; t < T; t++) for (const u of listers[t]!) titlesOf[fill[u]!++] = t;

  const byRank = new Int32Array(T);
  for (let t = 0; t < T; t++) byRank[tieRank[t]!] = t;
  // Ordering key of B for A: (MAX − votes) × T + tie rank, ascending; exact in a double (< 2^53).
  const MAX = users + 1;
  const counts = new Int32Array(T);
  const touched = new Int32Array(T);
  const keys = new Float64Array(T);
  const out: (CoVotes | undefined)[] = new Array(T);
  let increments = 0;
  let lists = 0;
  for (let a = 0; a < T; a++) {
    let k = 0;
    for (const u of listers[a]!) {
      const end = offsets[u + 1]!;
      for (let j = offsets[u]!; j < end; j++) {
        const b = titlesOf[j]!;
        if (b === a) continue;
        if (counts[b]!++ === 0) touched[k++] = b;
      }
      increments += end - offsets[u]! - 1;
    }
    // The candidates with enough votes (every counter is reset for the next A).
    let m = 0;
    for (let i = 0; i < k; i++) {
      const b = touched[i]!;
      if (counts[b]! >= minVotes) keys[m++] = (MAX - counts[b]!) * T + tieRank[b]!;
      counts[b] = 0;
    }
    if (m === 0) continue;
    const n = Math.min(cap, m);
    if (m > n) select(keys, 0, m - 1, n - 1);
    const top = keys.subarray(0, n).sort();
    const titles = new Int32Array(n);
    const votes = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const key = top[i]!;
      const rank = key % T;
      titles[i] = byRank[rank]!;
      votes[i] = MAX - (key - rank) / T;
    }
    out[a] = { titles, votes };
    lists++;
  }
  if (stats) Object.assign(stats, { increments, lists, sampledAt: H, sampledUsers });
  return out;
}

/** Quickselect: afterwards keys[lo..nth] hold the nth − lo + 1 smallest of keys[lo..hi] (unordered). */
function select(keys: Float64Array, lo: number, hi: number, nth: number): void {
  while (hi > lo) {
    const pivot = keys[lo + ((hi - lo) >> 1)]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (keys[i]! < pivot) i++;
      while (keys[j]! > pivot) j--;
      if (i <= j) {
        const t = keys[i]!;
        keys[i] = keys[j]!;
        keys[j] = t;
        i++;
        j--;
      }
    }
    if (nth <= j) hi = j;
    else if (nth >= i) lo = i;
    else return;
  }
}

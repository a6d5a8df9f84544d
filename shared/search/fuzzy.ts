/**
 * Typo-tolerant word matching (API.md §8.4 `fuzzy=true`): a query word of 4–7 characters also
 * matches a word whose prefix of the query word's length (±1) is within Damerau–Levenshtein
 * distance 1 of it (the optimal string alignment form: a swap of two neighbours is one edit),
 * one of 8 or more characters within distance 2. Characters are code points of N(s).
 *
 * The words are a sorted table (the snapshot's word dictionary), walked as a trie whose nodes
 * are ranges of the table; a child's range is found by comparing the code units at the node's
 * offset (a binary search, or galloping from the previous child), without building the prefix.
 * Each character of the prefix adds a row of the edit-distance table, computed only in the band
 * of cells within the bound of the diagonal, all rows in one array per walk (no allocation per
 * node). What keeps the walk to the term's neighbourhood:
 *  - a child is walked only if a cell of its row can still end within the bound: its value plus
 *    the difference between the term characters it leaves and the word characters an allowed
 *    prefix length leaves (an insertion or a deletion closes it by one: Ukkonen's cut-off);
 *  - all the children whose character matches no term character near their diagonal get the
 *    same row; when that row is cut off, only the few term characters that can make a better one
 *    are looked up, instead of walking all the children;
 *  - a range of one word is followed character by character, nothing looked up;
 *  - a word whose first character c is not among the term's first b + 1 (b the edits left) spends
 *    an edit on it: matching c would first delete more than b characters of the term, and a swap
 *    needs c to be the second one. For such a c, within b, OSA(t, cX) = min over d ≥ 0 of
 *    d + 1 + min(OSA(t[d..], X), OSA(t[d+1..], X)). So instead of walking the thousands of such
 *    first characters (every kanji), the same search runs, with one edit less, over the table of
 *    the words without their first character, keeping the words whose first character is not
 *    among the term's first b + 1. These tables (the words without their first 1 and 2
 *    characters) are built once per word table, on first use: about 0.1 s for the catalogue's
 *    94,000 words.
 */

/** The edit distance a query word of `length` characters allows (0: matched as without fuzzy). */
export function allowedEdits(length: number): number {
  return length >= 8 ? 2 : length >= 4 ? 1 : 0;
}

/**
 * A table's words without their first `level` characters (those longer): the distinct rests,
 * sorted, key x the rest of the words ids[starts[x]] … ids[starts[x + 1] − 1] (indexes in the table).
 */
interface View {
  keys: readonly string[];
  starts: Int32Array;
  ids: Int32Array;
}
const views = new WeakMap<readonly string[], View[]>();

function viewOf(words: readonly string[], level: number): View {
  let list = views.get(words);
  if (!list) {
    const n = words.length;
    const starts = new Int32Array(n + 1);
    for (let i = 0; i <= n; i++) starts[i] = i;
    views.set(words, (list = [{ keys: words, starts, ids: starts.subarray(0, n) }]));
  }
  while (list.length <= level) list.push(rests(list[list.length - 1]!));
  return list[level]!;
}

/** The view of the keys of `v` without their first character. */
function rests(v: View): View {
  const { keys, starts, ids } = v;
  const n = keys.length;
  // Each key's rest as a number (−1: none), the distinct rests in that order, and their words.
  const index = new Map<string, number>();
  const distinct: string[] = [];
  const group = new Int32Array(n);
  const size = new Int32Array(n);
  for (let x = 0; x < n; x++) {
    const k = keys[x]!;
    const at = k.codePointAt(0)! > 0xffff ? 2 : 1;
    if (at >= k.length) {
      group[x] = -1;
      continue;
    }
    const rest = k.slice(at);
    let g = index.get(rest);
    if (g === undefined) {
      g = distinct.length;
      index.set(rest, g);
      distinct.push(rest);
    }
    group[x] = g;
    size[g] = size[g]! + starts[x + 1]! - starts[x]!;
  }
  // The default sort (no comparator) is by code units, and much faster than one with a comparator.
  const sorted = distinct.sort();
  const rank = new Int32Array(sorted.length);
  const nextStarts = new Int32Array(sorted.length + 1);
  for (let i = 0; i < sorted.length; i++) {
    const g = index.get(sorted[i]!)!;
    rank[g] = i;
    nextStarts[i + 1] = nextStarts[i]! + size[g]!;
  }
  const fill = nextStarts.slice(0, sorted.length);
  const nextIds = new Int32Array(nextStarts[sorted.length]!);
  for (let x = 0; x < n; x++) {
    if (group[x]! < 0) continue;
    const r = rank[group[x]!]!;
    let o = fill[r]!;
    for (let i = starts[x]!; i < starts[x + 1]!; i++) nextIds[o++] = ids[i]!;
    fill[r] = o;
  }
  return { keys: sorted, starts: nextStarts, ids: nextIds };
}

function lowerBound(keys: readonly string[], v: string, lo: number, hi: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function endOfPrefix(keys: readonly string[], prefix: string, lo: number, hi: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]!.startsWith(prefix)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The code point at character `n` of `w` (undefined past its end). */
function charAt(w: string, n: number): number | undefined {
  let at = 0;
  for (let i = 0; i < n && at < w.length; i++) at += w.codePointAt(at)! > 0xffff ? 2 : 1;
  return at < w.length ? w.codePointAt(at) : undefined;
}

/*
 * A character c as the code units the table is sorted by: hu, then lu (−1 for a character of one
 * unit). The keys of a range share their first p units and all have more, so comparing the units
 * at p finds a child's range without building the prefix.
 */
const highUnit = (c: number): number => (c > 0xffff ? 0xd800 + ((c - 0x10000) >> 10) : c);
const lowUnit = (c: number): number => (c > 0xffff ? 0xdc00 + ((c - 0x10000) & 0x3ff) : -1);
function before(key: string, p: number, hu: number, lu: number): boolean {
  const x = key.charCodeAt(p);
  return x < hu || (x === hu && lu >= 0 && key.charCodeAt(p + 1) < lu);
}
const within = (key: string, p: number, hu: number, lu: number): boolean => key.charCodeAt(p) === hu && (lu < 0 || key.charCodeAt(p + 1) === lu);

/** The first key of [lo, hi) not before the character (hu, lu) at offset p. */
function firstFrom(keys: readonly string[], p: number, hu: number, lu: number, lo: number, hi: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (before(keys[mid]!, p, hu, lu)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The end of the keys from `from` (one of them) with the character (hu, lu) at offset p: galloping, as most such groups are small. */
function groupEnd(keys: readonly string[], p: number, hu: number, lu: number, from: number, hi: number): number {
  let lo = from + 1;
  let step = 1;
  let end = hi;
  for (;;) {
    const x = from + step;
    if (x >= hi) break;
    if (!within(keys[x]!, p, hu, lu)) {
      end = x;
      break;
    }
    lo = x + 1;
    step *= 2;
  }
  while (lo < end) {
    const mid = (lo + end) >>> 1;
    if (within(keys[mid]!, p, hu, lu)) lo = mid + 1;
    else end = mid;
  }
  return lo;
}

/**
 * One walk of a view for a term piece u within b edits: the state of all depths preallocated,
 * its steps as methods (no closure per node).
 */
class Walk {
  readonly m: number;
  readonly w: number;
  /** Row of depth d at d·w. */
  readonly rows: Int32Array;
  /** The prefix's characters, and each depth's offset in the keys (code units). */
  readonly chars: Int32Array;
  readonly offsets: Int32Array;
  /** Per depth, the characters looked up instead of walking all children (at most 4b + 2). */
  readonly probes: Int32Array;

  constructor(
    readonly keys: readonly string[],
    readonly starts: Int32Array,
    readonly ids: Int32Array,
    readonly u: Int32Array,
    readonly b: number,
    /** The depths (characters from the view's level on) a matched prefix may end at. */
    readonly dLo: number,
    readonly dHi: number,
    readonly accept: (id: number) => boolean,
    readonly out: Set<number>,
  ) {
    this.m = u.length;
    this.w = this.m + 1;
    this.rows = new Int32Array((dHi + 1) * this.w);
    for (let j = 0; j <= this.m; j++) this.rows[j] = j;
    this.chars = new Int32Array(dHi);
    this.offsets = new Int32Array(dHi + 1);
    this.probes = new Int32Array(dHi * (4 * b + 2));
  }

  take(lo: number, hi: number): void {
    const { ids } = this;
    for (let x = this.starts[lo]!; x < this.starts[hi]!; x++) if (this.accept(ids[x]!)) this.out.add(ids[x]!);
  }

  /** The fewest edits from cell j at depth d to the end of the term at an allowed depth. */
  gap(d: number, j: number): number {
    const left = this.m - j;
    const eLo = this.dLo - d;
    const eHi = this.dHi - d;
    return left < eLo ? eLo - left : left > eHi ? left - eHi : 0;
  }

  /** Whether some cell of depth d's row can still end within b. */
  viable(d: number): boolean {
    const { b, m } = this;
    if (d > this.dHi) return false;
    const r = d * this.w;
    for (let j = Math.max(0, d - b), top = Math.min(m, d + b); j <= top; j++) if (this.rows[r + j]! + this.gap(d, j) <= b) return true;
    return false;
  }

  /**
   * Row of depth d + 1 after character c (−1: one matching no term character). Only the band of
   * cells within b of the diagonal: the others exceed b (at least |d − j|), so they get b + 1
   * where the next row reads them; every value ≤ b stays exact (its path is all within b).
   */
  step(d: number, c: number): void {
    const { rows, u, m, b } = this;
    const r = d * this.w;
    const n = r + this.w;
    const q = r - this.w;
    const back = d >= 1 ? this.chars[d - 1]! : -1;
    const lo = Math.max(1, d + 1 - b);
    const hi = Math.min(m, d + 1 + b);
    rows[n + lo - 1] = lo === 1 ? d + 1 : b + 1;
    for (let j = lo; j <= hi; j++) {
      let v = rows[r + j]! + 1;
      const left = rows[n + j - 1]! + 1;
      if (left < v) v = left;
      const diag = rows[r + j - 1]! + (c === u[j - 1] ? 0 : 1);
      if (diag < v) v = diag;
      if (j >= 2 && c === u[j - 2] && back === u[j - 1]) {
        const swap = rows[q + j - 2]! + 1;
        if (swap < v) v = swap;
      }
      rows[n + j] = v;
    }
    if (hi < m) rows[n + hi + 1] = b + 1;
  }

  /** The child of the node at depth d (offset p, range up to hi) with character c, from `from`; returns its end. */
  child(d: number, p: number, from: number, hi: number, c: number): number {
    const end = groupEnd(this.keys, p, highUnit(c), lowUnit(c), from, hi);
    this.chars[d] = c;
    this.step(d, c);
    if (this.viable(d + 1)) {
      this.offsets[d + 1] = p + (c > 0xffff ? 2 : 1);
      this.visit(from, end, d + 1);
    }
    return end;
  }

  probe(d: number, p: number, start: number, hi: number, c: number): void {
    const hu = highUnit(c);
    const lu = lowUnit(c);
    const at = firstFrom(this.keys, p, hu, lu, start, hi);
    if (at < hi && within(this.keys[at]!, p, hu, lu)) this.child(d, p, at, hi, c);
  }

  /** The rest of one key x past depth d (a range of one: its characters stepped through, nothing looked up). */
  follow(x: number, d: number): void {
    const key = this.keys[x]!;
    let p = this.offsets[d]!;
    for (;;) {
      const c = key.codePointAt(p)!;
      this.chars[d] = c;
      this.step(d, c);
      d++;
      p += c > 0xffff ? 2 : 1;
      const { m, b } = this;
      if (d >= this.dLo && m - d <= b && d - m <= b && this.rows[d * this.w + m]! <= b) {
        this.take(x, x + 1);
        return;
      }
      if (d >= this.dHi || p >= key.length || !this.viable(d)) return;
    }
  }

  visit(lo: number, hi: number, d: number): void {
    const { keys, rows, u, m, b } = this;
    const r = d * this.w;
    if (d >= this.dLo && m - d <= b && d - m <= b && rows[r + m]! <= b) {
      this.take(lo, hi);
      return;
    }
    if (d >= this.dHi) return;
    const p = this.offsets[d]!;
    // The prefix itself sorts first (once, unless the table repeats a word).
    let start = lo;
    while (start < hi && keys[start]!.length === p) start++;
    if (start === hi) return;
    if (hi - start === 1 && d > 0) {
      this.follow(start, d);
      return;
    }
    if (d === 0) {
      // First characters among the term's first b + 1 only; the others below.
      for (let j = 0; j < m && j <= b; j++) if (u.indexOf(u[j]!) === j) this.probe(d, p, start, hi, u[j]!);
      return;
    }
    this.step(d, -1);
    if (this.viable(d + 1)) {
      for (let x = start; x < hi; ) x = this.child(d, p, x, hi, keys[x]!.codePointAt(p)!);
      return;
    }
    // Only a character that matches where its cell can still end within b makes a row better.
    const { probes } = this;
    const s = d * (4 * b + 2);
    let n = 0;
    const back = this.chars[d - 1]!;
    for (let j = Math.max(1, d + 1 - b), top = Math.min(m, d + 1 + b); j <= top; j++) {
      const g = this.gap(d + 1, j);
      if (rows[r + j - 1]! + g <= b) n = addOnce(probes, s, n, u[j - 1]!);
      if (j >= 2 && back === u[j - 1] && rows[r - this.w + j - 2]! + 1 + g <= b) n = addOnce(probes, s, n, u[j - 2]!);
    }
    for (let x = s; x < s + n; x++) this.probe(d, p, start, hi, probes[x]!);
  }
}

/** Appends c to the n values of `a` from `s` unless there; returns their count. */
function addOnce(a: Int32Array, s: number, n: number, c: number): number {
  for (let x = s; x < s + n; x++) if (a[x] === c) return n;
  a[s + n] = c;
  return n + 1;
}

/**
 * Adds to `out` the words (indexes in `words`) that `accept` keeps and whose characters from
 * `level` on have a prefix Q with OSA(u, Q) ≤ b, `level` + |Q| within 1 of `length`.
 */
function search(words: readonly string[], level: number, u: Int32Array, b: number, length: number, accept: (id: number) => boolean, out: Set<number>): void {
  const { keys, starts, ids } = viewOf(words, level);
  const m = u.length;
  const dLo = Math.max(1, length - 1 - level);
  const dHi = length + 1 - level;
  if (b === 0) {
    if (m < dLo || m > dHi) return;
    const p = String.fromCodePoint(...u);
    const lo = lowerBound(keys, p, 0, keys.length);
    const hi = endOfPrefix(keys, p, lo, keys.length);
    for (let x = starts[lo]!; x < starts[hi]!; x++) if (accept(ids[x]!)) out.add(ids[x]!);
    return;
  }
  new Walk(keys, starts, ids, u, b, dLo, dHi, accept, out).visit(0, keys.length, 0);
  // Any other first character: one edit on it, d of the term's first characters deleted.
  const first = new Set(u.subarray(0, b + 1));
  const outside = (id: number) => accept(id) && !first.has(charAt(words[id]!, level)!);
  for (let d = 0; d <= b - 1; d++) {
    for (const rest of [u.subarray(d), u.subarray(d + 1)]) search(words, level + 1, rest, b - 1 - d, length, outside, out);
  }
}

/**
 * The indexes of the words of `words` (sorted by code units, as the snapshot keeps them) that
 * `term` matches with typos: a prefix of the word of the term's length ±1 is within the allowed
 * distance. Empty for terms of 1–3 characters (they match as without fuzzy).
 */
export function fuzzyMatches(words: readonly string[], term: string): number[] {
  const t = Int32Array.from(term, (c) => c.codePointAt(0)!);
  const k = allowedEdits(t.length);
  if (k === 0) return [];
  const out = new Set<number>();
  search(words, 0, t, k, t.length, () => true, out);
  return [...out].sort((a, b) => a - b);
}

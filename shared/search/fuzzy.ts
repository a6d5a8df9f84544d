/**
 * Typo-tolerant word matching (API.md §8.4 `fuzzy=true`): a query word of 4–7 characters also
 * matches a word whose prefix of the query word's length (±1) is within Damerau–Levenshtein
 * distance 1 of it (the optimal string alignment form: a swap of two neighbours is one edit),
 * one of 8 or more characters within distance 2. Characters are code points of N(s).
 *
 * The words are a sorted table (the snapshot's word dictionary), walked as a trie whose nodes
 * are ranges of the table, one row of the edit-distance table per character of the prefix. Two
 * things keep the walk to the term's neighbourhood:
 *  - a node whose row is at the bound (no edit left) only goes on with a character of the term
 *    that continues an alignment: those children are looked up, not walked;
 *  - a word whose first character is not in the term spends an edit on it (it cannot be part of
 *    a swap): OSA(t, cX) = min over d ≥ 0 of d + 1 + min(OSA(t[d..], X), OSA(t[d+1..], X)). So
 *    instead of walking the thousands of such first characters (every kanji), the same search
 *    runs, with one edit less, over the table of the words without their first character (built
 *    once per table, on first use), keeping the words whose first character is not in the term.
 */

/** The edit distance a query word of `length` characters allows (0: matched as without fuzzy). */
export function allowedEdits(length: number): number {
  return length >= 8 ? 2 : length >= 4 ? 1 : 0;
}

const codePoints = (s: string) => Array.from(s, (c) => c.codePointAt(0)!);

/** A table's words without their first `level` characters (those longer), sorted, with each one's index in the table. */
interface View {
  keys: string[];
  ids: Int32Array;
}
const views = new WeakMap<readonly string[], View[]>();

function viewOf(words: readonly string[], level: number): View {
  let list = views.get(words);
  if (!list) views.set(words, (list = [{ keys: words as string[], ids: Int32Array.from(words, (_, i) => i) }]));
  while (list.length <= level) {
    const up = list.length;
    const rows: { key: string; id: number }[] = [];
    words.forEach((w, id) => {
      let at = 0;
      for (let n = 0; n < up && at < w.length; n++) at += w.codePointAt(at)! > 0xffff ? 2 : 1;
      if (at < w.length) rows.push({ key: w.slice(at), id });
    });
    rows.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    list.push({ keys: rows.map((r) => r.key), ids: Int32Array.from(rows, (r) => r.id) });
  }
  return list[level]!;
}

function minOf(row: Int32Array): number {
  let m = row[0]!;
  for (let j = 1; j < row.length; j++) if (row[j]! < m) m = row[j]!;
  return m;
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

/**
 * Adds to `out` the words (indexes in `words`) that `accept` keeps and whose characters from
 * `level` on have a prefix Q with OSA(u, Q) ≤ b, `level` + |Q| one of `lengths`.
 */
function search(words: readonly string[], level: number, u: readonly number[], b: number, lengths: readonly number[], accept: (id: number) => boolean, out: Set<number>): void {
  const view = viewOf(words, level);
  const { keys, ids } = view;
  const m = u.length;
  const take = (lo: number, hi: number) => {
    for (let x = lo; x < hi; x++) if (accept(ids[x]!)) out.add(ids[x]!);
  };
  const longest = Math.max(...lengths) - level;
  const allowed = (depth: number) => lengths.includes(level + depth);
  if (b === 0) {
    if (!allowed(m)) return;
    const p = String.fromCodePoint(...u);
    const lo = lowerBound(keys, p, 0, keys.length);
    take(lo, endOfPrefix(keys, p, lo, keys.length));
    return;
  }
  const inTerm = new Set(u);
  const rows: Int32Array[] = [Int32Array.from({ length: m + 1 }, (_, j) => j)];
  const chars: number[] = [];
  const visit = (lo: number, hi: number, prefix: string, depth: number): void => {
    const row = rows[depth]!;
    if (depth >= 1 && allowed(depth) && row[m]! <= b) {
      take(lo, hi);
      return;
    }
    const least = minOf(row);
    if (depth >= longest || (depth >= 1 && least > b)) return;
    let start = lo;
    while (start < hi && keys[start]!.length === prefix.length) start++;
    const child = (from: number, c: number) => {
      const next = prefix + String.fromCodePoint(c);
      const end = endOfPrefix(keys, next, from, hi);
      const r = new Int32Array(m + 1);
      r[0] = depth + 1;
      for (let j = 1; j <= m; j++) {
        let v = Math.min(row[j]! + 1, r[j - 1]! + 1, row[j - 1]! + (c === u[j - 1] ? 0 : 1));
        if (depth >= 1 && j >= 2 && c === u[j - 2] && chars[depth - 1] === u[j - 1]) v = Math.min(v, rows[depth - 1]![j - 2]! + 1);
        r[j] = v;
      }
      rows[depth + 1] = r;
      chars[depth] = c;
      visit(from, end, next, depth + 1);
      return end;
    };
    if (depth === 0) {
      // First characters of the term only; the others below.
      for (const s of [...inTerm].map((c) => String.fromCodePoint(c)).sort()) {
        const at = lowerBound(keys, s, start, hi);
        if (at < hi && keys[at]!.startsWith(s)) child(at, s.codePointAt(0)!);
      }
      return;
    }
    if (least < b) {
      while (start < hi) start = child(start, keys[start]!.codePointAt(prefix.length)!);
      return;
    }
    const wanted = new Set<number>();
    for (let j = 1; j <= m; j++) {
      if (row[j - 1]! <= b) wanted.add(u[j - 1]!);
      if (j >= 2 && chars[depth - 1] === u[j - 1] && rows[depth - 1]![j - 2]! + 1 <= b) wanted.add(u[j - 2]!);
    }
    for (const s of [...wanted].map((c) => String.fromCodePoint(c)).sort()) {
      const at = lowerBound(keys, prefix + s, start, hi);
      if (at < hi && keys[at]!.startsWith(prefix + s)) child(at, s.codePointAt(0)!);
    }
  };
  visit(0, keys.length, '', 0);
  // A first character not in the term: one edit on it, d of the term's first characters deleted.
  const outside = (id: number) => accept(id) && !inTerm.has(charAt(words[id]!, level)!);
  for (let d = 0; d <= b - 1; d++) {
    for (const rest of [u.slice(d), u.slice(d + 1)]) search(words, level + 1, rest, b - 1 - d, lengths, outside, out);
  }
}

/**
 * The indexes of the words of `words` (sorted by code units, as the snapshot keeps them) that
 * `term` matches with typos: a prefix of the word of the term's length ±1 is within the allowed
 * distance. Empty for terms of 1–3 characters (they match as without fuzzy).
 */
export function fuzzyMatches(words: readonly string[], term: string): number[] {
  const t = codePoints(term);
  const k = allowedEdits(t.length);
  if (k === 0) return [];
  const out = new Set<number>();
  search(words, 0, t, k, [t.length - 1, t.length, t.length + 1], () => true, out);
  return [...out].sort((a, b) => a - b);
}

/**
 * Typo-tolerant word matching (API.md §8.4 `fuzzy=true`): a query word of 4–7 characters also
 * matches a word whose prefix of the query word's length (±1) is within Damerau–Levenshtein
 * distance 1 of it (the optimal string alignment form: a swap of two neighbours is one edit),
 * one of 8 or more characters within distance 2. Characters are code points of N(s).
 *
 * The words are a sorted table (the snapshot's word dictionary), walked as a trie whose nodes are
 * ranges of the table: one row of the edit-distance table per character of the prefix. A prefix
 * whose row is over the bound is left with all its words; one whose row is at the bound (no edit
 * left to spend) can only go on with a character that continues an alignment within it — a
 * character of the term — so only those children are looked up (a binary search each) instead
 * of walking every child: the cost follows the term's neighbourhood, not the table.
 */

/** The edit distance a query word of `length` characters allows (0: matched as without fuzzy). */
export function allowedEdits(length: number): number {
  return length >= 8 ? 2 : length >= 4 ? 1 : 0;
}

const codePoints = (s: string) => Array.from(s, (c) => c.codePointAt(0)!);

function minOf(row: Int32Array): number {
  let m = row[0]!;
  for (let j = 1; j < row.length; j++) if (row[j]! < m) m = row[j]!;
  return m;
}

/** The first index in [lo, hi) whose word is not below `v` (code-unit order). */
function lowerBound(words: readonly string[], v: string, lo: number, hi: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (words[mid]! < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first index in [lo, hi) whose word does not start with `prefix` (those that do are contiguous from lo). */
function endOfPrefix(words: readonly string[], prefix: string, lo: number, hi: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (words[mid]!.startsWith(prefix)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The indexes of the words of `words` (sorted by code units, as the snapshot keeps them) that
 * `term` matches with typos: a prefix of the word of the term's length ±1 is within the allowed
 * distance. Empty for terms of 1–3 characters (they match as without fuzzy).
 */
export function fuzzyMatches(words: readonly string[], term: string): number[] {
  const t = codePoints(term);
  const m = t.length;
  const k = allowedEdits(m);
  if (k === 0) return [];
  const out: number[] = [];
  const rows: Int32Array[] = [Int32Array.from({ length: m + 1 }, (_, j) => j)];
  const chars: number[] = [];

  /** The node of `prefix` (its words: [lo, hi), the first of them possibly the prefix itself), `depth` characters deep. */
  const visit = (lo: number, hi: number, prefix: string, depth: number): void => {
    const row = rows[depth]!;
    if (depth >= m - 1 && depth >= 1 && row[m]! <= k) {
      for (let x = lo; x < hi; x++) out.push(x);
      return;
    }
    const least = minOf(row);
    if (depth >= m + 1 || (depth >= 1 && least > k)) return;
    let start = lo;
    if (start < hi && words[start]!.length === prefix.length) start++;
    const child = (from: number, c: number) => {
      const next = prefix + String.fromCodePoint(c);
      const end = endOfPrefix(words, next, from, hi);
      const r = new Int32Array(m + 1);
      r[0] = depth + 1;
      for (let j = 1; j <= m; j++) {
        let v = Math.min(row[j]! + 1, r[j - 1]! + 1, row[j - 1]! + (c === t[j - 1] ? 0 : 1));
        if (depth >= 1 && j >= 2 && c === t[j - 2] && chars[depth - 1] === t[j - 1]) v = Math.min(v, rows[depth - 1]![j - 2]! + 1);
        r[j] = v;
      }
      rows[depth + 1] = r;
      chars[depth] = c;
      visit(from, end, next, depth + 1);
      return end;
    };
    if (least < k || depth === 0) {
      // An edit to spend: every child.
      while (start < hi) start = child(start, words[start]!.codePointAt(prefix.length)!);
      return;
    }
    // No edit left: a child goes on only with a character the term has where an alignment stands at the bound.
    const wanted = new Set<number>();
    for (let j = 1; j <= m; j++) {
      if (row[j - 1]! <= k) wanted.add(t[j - 1]!);
      if (depth >= 1 && j >= 2 && chars[depth - 1] === t[j - 1] && rows[depth - 1]![j - 2]! + 1 <= k) wanted.add(t[j - 2]!);
    }
    const candidates = [...wanted].map((c) => String.fromCodePoint(c)).sort();
    for (const s of candidates) {
      const at = lowerBound(words, prefix + s, start, hi);
      if (at < hi && words[at]!.startsWith(prefix + s)) child(at, s.codePointAt(0)!);
    }
  };
  visit(0, words.length, '', 0);
  return out.sort((a, b) => a - b);
}

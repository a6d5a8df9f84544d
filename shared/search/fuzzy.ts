/**
 * Typo-tolerant word matching (API.md §8.4 `fuzzy=true`): a query word of 4–7 characters also
 * matches a word whose prefix of the query word's length (±1) is within Damerau–Levenshtein
 * distance 1 of it (the optimal string alignment form: a swap of two neighbours is one edit),
 * one of 8 or more characters within distance 2. Characters are code points of N(s).
 *
 * The words are a sorted table (the snapshot's word dictionary): it is walked as a trie, one
 * row of the edit-distance table per character of the current prefix, rows shared with the
 * previous word as far as their prefixes agree, and a prefix whose row is already over the
 * bound skips every word that starts with it. Only prefixes within reach of the term are
 * visited, so the cost follows the term and its neighbourhood, not the table's size.
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
  const maxDepth = m + 1;
  /** rows[d]: the distances of the term's prefixes (0…m) to the current word's first d characters. */
  const rows: Int32Array[] = [Int32Array.from({ length: m + 1 }, (_, j) => j)];
  /** chars[d - 1]: the current word's d-th character; offsets[d]: its code-unit offset after d characters. */
  const chars: number[] = [];
  const offsets: number[] = [0];
  const out: number[] = [];
  let prev = '';
  let i = 0;
  while (i < words.length) {
    const w = words[i]!;
    // The depth this word shares with the previous one's path (whole characters only).
    let lcp = 0;
    const limit = Math.min(prev.length, w.length);
    while (lcp < limit && prev.charCodeAt(lcp) === w.charCodeAt(lcp)) lcp++;
    let depth = 0;
    while (depth + 1 < offsets.length && offsets[depth + 1]! <= lcp) depth++;
    chars.length = depth;
    offsets.length = depth + 1;
    rows.length = depth + 1;
    prev = w;
    // Extend the path along this word until it matches, fails or ends.
    let verdict: 'match' | 'fail' | 'short' = 'short';
    let decidedAt = depth;
    for (;;) {
      const d = chars.length;
      if (d >= 1 && d >= m - 1 && d <= maxDepth && rows[d]![m]! <= k) {
        verdict = 'match';
        decidedAt = d;
        break;
      }
      if (d >= 1 && minOf(rows[d]!) > k) {
        verdict = 'fail';
        decidedAt = d;
        break;
      }
      if (d >= maxDepth) {
        verdict = 'fail';
        decidedAt = d;
        break;
      }
      const at = offsets[d]!;
      if (at >= w.length) break; // the word ends: no longer prefix to try
      const c = w.codePointAt(at)!;
      chars.push(c);
      offsets.push(at + (c > 0xffff ? 2 : 1));
      const up = rows[d]!;
      const row = new Int32Array(m + 1);
      row[0] = d + 1;
      for (let j = 1; j <= m; j++) {
        let v = Math.min(up[j]! + 1, row[j - 1]! + 1, up[j - 1]! + (c === t[j - 1] ? 0 : 1));
        if (d >= 1 && j >= 2 && c === t[j - 2] && chars[d - 1] === t[j - 1]) v = Math.min(v, rows[d - 1]![j - 2]! + 1);
        row[j] = v;
      }
      rows.push(row);
    }
    if (verdict === 'short') {
      // The word ended before its prefixes could match (shorter than the term allows); longer words after it may.
      i++;
      continue;
    }
    // Every word that starts with the decided prefix has the same verdict: they are contiguous.
    const prefix = w.slice(0, offsets[decidedAt]!);
    const j = Math.max(i + 1, endOfPrefix(words, prefix, i));
    if (verdict === 'match') for (let x = i; x < j; x++) out.push(x);
    prev = words[j - 1]!;
    i = j;
  }
  return out;
}

/** The first index from `from` on whose word does not start with `prefix` (words sorted by code units). */
function endOfPrefix(words: readonly string[], prefix: string, from: number): number {
  let lo = from;
  let hi = words.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (words[mid]!.startsWith(prefix) || words[mid]! < prefix) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

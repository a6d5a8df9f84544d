/**
 * Relevance and typo tolerance of `q` (API.md §8.4; docs/decisions.md EX6) over what the index
 * keeps of a record's searched fields: each field's runs (text.ts searchRuns; the list's `name`
 * field first). A vector keeps them as its search text `sw` and the number of runs of each field
 * (`sb`); the snapshot keeps, per record, the words derived here (snapshot.ts).
 *
 * The ranks, best first: (1) a field's runs joined by spaces equal the terms joined by spaces;
 * (2) every term starts a word of `name` and the first term starts its first word; (3) every term
 * starts a word of `name`; (4) the other matches; (5) with `fuzzy=true`, records that match only
 * through typos or words written together.
 */
import { startsWordInsideRun } from '../text.js';
import { allowedEdits } from './fuzzy.js';

/** The ordering key of relevance (`ordering=relevance`: best first; `-relevance`: its reverse). */
export const RELEVANCE = 'relevance';

/** The ranks of §8.4 (5: fuzzy-only matches). */
export type Rank = 1 | 2 | 3 | 4 | 5;

/**
 * The words of a search text (text.ts searchText) that a term may be a prefix of: its runs, and
 * inside a run its rest from each Han, kana or Hangul character.
 */
export function searchWords(sw: string): string[] {
  const words = new Set<string>();
  for (const run of sw.split(' ')) {
    if (run === '') continue;
    words.add(run);
    let i = 0;
    for (const ch of run) {
      if (i > 0 && startsWordInsideRun(ch)) words.add(run.slice(i));
      i += ch.length;
    }
  }
  return [...words];
}

/**
 * Each searched field's runs from a search text and the number of runs of each field (`sb`).
 * A vector written before §8.4 has no `sb`: its runs then count as one field that is not `name`
 * (a snapshot is never built from such vectors with relevance: snapshot.ts).
 */
export function fieldRuns(sw: string, sb: readonly number[] | undefined): string[][] {
  const runs = sw.split(' ').filter((r) => r !== '');
  if (!sb) return [[], runs];
  const out: string[][] = [];
  let at = 0;
  for (const n of sb) {
    out.push(runs.slice(at, at + n));
    at += n;
  }
  return out;
}

/** The words of the `name` field (the first): those a term may be a prefix of. */
export const nameWords = (fields: readonly (readonly string[])[]): string[] => searchWords(` ${(fields[0] ?? []).join(' ')} `);

/** The first word of `name` (its first run), if any. */
export const firstWord = (fields: readonly (readonly string[])[]): string[] => (fields[0]?.length ? [fields[0][0]!] : []);

/** Each non-empty field's runs joined by spaces: what rank (1) compares the terms with. */
export const fullForms = (fields: readonly (readonly string[])[]): string[] => fields.filter((f) => f.length > 0).map((f) => f.join(' '));

/** Two and three consecutive runs of one field written together (`re zero` → `rezero`): what `fuzzy` prefixes also match. */
export function joinedForms(fields: readonly (readonly string[])[]): string[] {
  const out: string[] = [];
  for (const f of fields) {
    for (let i = 0; i + 1 < f.length; i++) {
      out.push(f[i]! + f[i + 1]!);
      if (i + 2 < f.length) out.push(f[i]! + f[i + 1]! + f[i + 2]!);
    }
  }
  return out;
}

/**
 * The test of §8.4's typo rule for one term, prepared once per query: whether a word's prefix of
 * the term's length ±1 (code points) is within the term's allowed optimal string alignment
 * distance (fuzzy.ts fuzzyMatches, for one word); null for terms of 1–3 characters. The rows of
 * the distance table are allocated once, and a prefix stops as soon as every cell of a row
 * exceeds the bound.
 */
export function typoTest(term: string): ((word: string) => boolean) | null {
  const t = Array.from(term, (c) => c.codePointAt(0)!);
  const m = t.length;
  const k = allowedEdits(m);
  if (k === 0) return null;
  const longest = m + 1;
  // rows[i][j]: distance of the word's first i characters and the term's first j.
  const rows = Array.from({ length: longest + 1 }, () => new Int32Array(m + 1));
  for (let j = 0; j <= m; j++) rows[0]![j] = j;
  const w = new Int32Array(longest);
  return (word) => {
    let n = 0;
    for (let at = 0; at < word.length && n < longest; n++) {
      const c = word.codePointAt(at)!;
      w[n] = c;
      at += c > 0xffff ? 2 : 1;
    }
    if (n < m - 1) return false;
    for (let i = 1; i <= n; i++) {
      const row = rows[i]!;
      const up = rows[i - 1]!;
      row[0] = i;
      let least = i;
      for (let j = 1; j <= m; j++) {
        let v = Math.min(up[j]! + 1, row[j - 1]! + 1, up[j - 1]! + (w[i - 1] === t[j - 1] ? 0 : 1));
        if (i > 1 && j > 1 && w[i - 1] === t[j - 2] && w[i - 2] === t[j - 1]) v = Math.min(v, rows[i - 2]![j - 2]! + 1);
        row[j] = v;
        if (v < least) least = v;
      }
      // The prefixes of m − 1, m and m + 1 characters.
      if (i >= m - 1 && row[m]! <= k) return true;
      if (least > k) return false;
    }
    return false;
  };
}

/** Whether a term matches fields as §1.6 has it (a prefix of a word). */
const exactly = (words: readonly string[], term: string) => words.some((w) => w.startsWith(term));

/** What matching and ranking compare of one record (the snapshot keeps the same per record, as dictionaries). */
export interface RecordWords {
  /** Every word a term may be a prefix of (searchWords). */
  words: string[];
  /** The words of `name`, and its first word. */
  names: string[];
  first: string[];
  /** Each field's runs joined by spaces; runs written together. */
  fulls: string[];
  joined: string[];
}

/** A record's words from its search text and its fields' run counts (a vector's `sw` and `sb`). */
export function recordWords(sw: string, sb: readonly number[] | undefined): RecordWords {
  const fields = fieldRuns(sw, sb);
  return { words: searchWords(sw), names: nameWords(fields), first: firstWord(fields), fulls: fullForms(fields), joined: joinedForms(fields) };
}

/** Whether a term matches only with `fuzzy` (terms of 4 or more characters): a prefix of runs written together, or a typo of a word (`typo`: its typoTest). */
export const looselyMatches = (r: RecordWords, term: string, typo: ((word: string) => boolean) | null): boolean =>
  typo !== null && (r.joined.some((j) => j.startsWith(term)) || r.words.some(typo));

/** Whether the terms match a record (every one; with `fuzzy`, also through a typo or words written together). */
export function wordsMatch(r: RecordWords, terms: readonly string[], fuzzy: boolean): boolean {
  return terms.every((t) => exactly(r.words, t) || (fuzzy && looselyMatches(r, t, typoTest(t))));
}

/** The rank of a record the terms match (wordsMatch). */
export function rankOfWords(r: RecordWords, terms: readonly string[]): Rank {
  if (!terms.every((t) => exactly(r.words, t))) return 5;
  if (r.fulls.includes(terms.join(' '))) return 1;
  if (!terms.every((t) => exactly(r.names, t))) return 4;
  return r.first.some((w) => w.startsWith(terms[0]!)) ? 2 : 3;
}

/** The part of a relevance sort key that puts rank groups in order: read descending (best first), rank 1 has the highest. */
export const rankPrefix = (rank: Rank): string => String(9 - rank);

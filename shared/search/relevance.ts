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

/** Optimal string alignment distance of `a` and `b` (code points), or `bound` + 1 once it exceeds `bound`. */
function osaWithin(a: readonly number[], b: readonly number[], bound: number): number {
  if (Math.abs(a.length - b.length) > bound) return bound + 1;
  let prev2: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let least = i;
    for (let j = 1; j <= b.length; j++) {
      let v = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, prev2[j - 2]! + 1);
      row.push(v);
      least = Math.min(least, v);
    }
    if (least > bound) return bound + 1;
    prev2 = prev;
    prev = row;
  }
  return prev[b.length]!;
}

/** Whether `word`'s prefix of the term's length ±1 is within the term's allowed distance (fuzzy.ts fuzzyMatches, for one word). */
export function typoMatches(word: string, term: string): boolean {
  const t = Array.from(term, (c) => c.codePointAt(0)!);
  const k = allowedEdits(t.length);
  if (k === 0) return false;
  const w = Array.from(word, (c) => c.codePointAt(0)!);
  return [t.length - 1, t.length, t.length + 1].some((n) => n >= 1 && n <= w.length && osaWithin(t, w.slice(0, n), k) <= k);
}

/** Whether a term matches fields as §1.6 has it (a prefix of a word). */
const exactly = (words: readonly string[], term: string) => words.some((w) => w.startsWith(term));

/** Whether a term matches only with `fuzzy=true`: a typo of a word, or a prefix of words written together (terms of 4 or more characters). */
function loosely(words: readonly string[], joined: readonly string[], term: string): boolean {
  if (allowedEdits([...term].length) === 0) return false;
  return joined.some((j) => j.startsWith(term)) || words.some((w) => typoMatches(w, term));
}

/** Whether the terms match a record's fields (every one; with `fuzzy`, loosely too). */
export function fieldsMatch(fields: readonly (readonly string[])[], sw: string, terms: readonly string[], fuzzy: boolean): boolean {
  const words = searchWords(sw);
  if (terms.every((t) => exactly(words, t))) return true;
  if (!fuzzy) return false;
  const joined = joinedForms(fields);
  return terms.every((t) => exactly(words, t) || loosely(words, joined, t));
}

/** The rank of a record the terms match (fieldsMatch), from its fields. */
export function rankOf(fields: readonly (readonly string[])[], sw: string, terms: readonly string[]): Rank {
  const words = searchWords(sw);
  if (!terms.every((t) => exactly(words, t))) return 5;
  if (fullForms(fields).includes(terms.join(' '))) return 1;
  const named = nameWords(fields);
  if (!terms.every((t) => exactly(named, t))) return 4;
  return firstWord(fields).some((w) => w.startsWith(terms[0]!)) ? 2 : 3;
}

/** The part of a relevance sort key that puts rank groups in order: read descending (best first), rank 1 has the highest. */
export const rankPrefix = (rank: Rank): string => String(9 - rank);

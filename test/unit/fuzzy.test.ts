/**
 * Typo-tolerant word matching (shared/search/fuzzy.ts, API.md §8.4) against a brute force of the
 * contract: every word whose prefix of the term's length ±1 is within the allowed optimal string
 * alignment distance (1 for 4–7 characters, 2 from 8), over random sorted tables.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allowedEdits, fuzzyMatches } from '../../shared/search/fuzzy.js';

/** Optimal string alignment distance (Damerau–Levenshtein with adjacent swaps), on code points. */
function osa(a: number[], b: number[]): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

function brute(words: readonly string[], term: string): number[] {
  const t = Array.from(term, (c) => c.codePointAt(0)!);
  const k = allowedEdits(t.length);
  if (k === 0) return [];
  return words.flatMap((w, i) => {
    const cps = Array.from(w, (c) => c.codePointAt(0)!);
    const ok = [t.length - 1, t.length, t.length + 1].some((n) => n >= 1 && n <= cps.length && osa(t, cps.slice(0, n)) <= k);
    return ok ? [i] : [];
  });
}

const letters = fc.constantFrom('a', 'b', 'e', 'l', 'm', 'r', 'z', 'é', '𝔘');
const word = fc.array(letters, { minLength: 1, maxLength: 11 }).map((cs) => cs.join(''));

describe('fuzzyMatches', () => {
  it('finds exactly the words the brute force of §8.4 finds', () => {
    fc.assert(
      fc.property(fc.uniqueArray(word, { maxLength: 120 }), word, (ws, term) => {
        const words = [...ws].sort();
        expect(fuzzyMatches(words, term), term).toEqual(brute(words, term));
      }),
      { numRuns: 2000, seed: 20 },
    );
  });

  it('words that differ only in their first characters (the tables without them hold duplicates)', () => {
    const heads = ['', 'b', 'k', 'n', '進', '撃', 'é', '𝔘', 'bb', 'kn'];
    const words = [...new Set(heads.flatMap((h) => ['aruto', 'ar', 'arut', 'arutoo', 'arutooxx', 'arutoox', 'zero', 'zer'].map((w) => h + w)))].sort();
    for (const term of ['naruto', 'narto', 'naurto', 'arruto', 'xaruto', 'bbaruto', 'knarutoo', 'zeroo', 'nazero', 'xarutoox', 'narutoxo', 'qqarutoo', 'arutooxxy']) {
      expect(fuzzyMatches(words, term), term).toEqual(brute(words, term));
    }
  });

  it('typos of real titles: a letter dropped, swapped or doubled', () => {
    const words = ['frieren', 'fullmetal', 'fullmoon', 'gintama', 'naruto', 'narutaki', 'shingeki', 'zero'].sort();
    const found = (term: string) => fuzzyMatches(words, term).map((i) => words[i]);
    expect(found('freiren')).toEqual(['frieren']);
    expect(found('narto')).toEqual(['naruto']);
    expect(found('shinngeki')).toEqual(['shingeki']);
    expect(found('fulmetal')).toEqual(['fullmetal']);
    expect(found('zer')).toEqual([]);
  });
});

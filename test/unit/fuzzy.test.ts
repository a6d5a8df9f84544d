/**
 * Typo-tolerant word matching (shared/search/fuzzy.ts, API.md §8.4) against a brute force of the
 * contract: every word whose prefix of the term's length ±1 is within the allowed optimal string
 * alignment distance (1 for 4–7 characters, 2 from 8), over random sorted tables.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allowedEdits, fuzzyMatches } from '../../shared/search/fuzzy.js';
import { osaDistance } from '../support/reference-list.js';

function brute(words: readonly string[], term: string): number[] {
  const t = Array.from(term, (c) => c.codePointAt(0)!);
  const k = allowedEdits(t.length);
  if (k === 0) return [];
  return words.flatMap((w, i) => {
    const cps = Array.from(w, (c) => c.codePointAt(0)!);
    const ok = [t.length - 1, t.length, t.length + 1].some((n) => n >= 1 && n <= cps.length && osaDistance(term, String.fromCodePoint(...cps.slice(0, n))) <= k);
    return ok ? [i] : [];
  });
}

const letters = fc.constantFrom('a', 'b', 'e', 'l', 'm', 'r', 'z', 'é', '𝔘');
const word = fc.array(letters, { minLength: 1, maxLength: 11 }).map((cs) => cs.join(''));

/** A word made from the term's characters by a few edits (drop, swap with the next, insert, replace) and an ending. */
const edit = fc.tuple(fc.constantFrom('drop', 'swap', 'insert', 'replace'), fc.nat(), letters);
function nearMiss(term: string[], edits: [string, number, string][], ending: string[]): string {
  const cs = [...term];
  for (const [kind, at, c] of edits) {
    const i = at % (cs.length + 1);
    if (kind === 'drop') cs.splice(i, 1);
    else if (kind === 'swap' && i + 1 < cs.length) [cs[i], cs[i + 1]] = [cs[i + 1]!, cs[i]!];
    else if (kind === 'insert') cs.splice(i, 0, c);
    else if (kind === 'replace' && i < cs.length) cs[i] = c;
  }
  return [...cs, ...ending].join('');
}

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

  it('finds exactly the words the brute force finds among near misses of the term', () => {
    const term = fc.array(letters, { minLength: 4, maxLength: 11 });
    const miss = fc.tuple(fc.array(edit, { maxLength: 3 }), fc.array(letters, { maxLength: 3 }));
    fc.assert(
      fc.property(term, fc.array(miss, { minLength: 1, maxLength: 40 }), (t, misses) => {
        const words = [...new Set(misses.map(([edits, ending]) => nearMiss(t, edits, ending)).filter((w) => w !== ''))].sort();
        expect(fuzzyMatches(words, t.join('')), t.join('')).toEqual(brute(words, t.join('')));
      }),
      { numRuns: 1000, seed: 21 },
    );
  });

  it('words that differ only in their first characters (the tables without them hold duplicates)', () => {
    const heads = ['', 'b', 'k', 'n', '進', '撃', 'é', '𝔘', 'bb', 'kn'];
    const words = [...new Set(heads.flatMap((h) => ['aruto', 'ar', 'arut', 'arutoo', 'arutooxx', 'arutoox', 'zero', 'zer'].map((w) => h + w)))].sort();
    for (const term of ['naruto', 'narto', 'naurto', 'arruto', 'xaruto', 'bbaruto', 'knarutoo', 'zeroo', 'nazero', 'xarutoox', 'narutoxo', 'qqarutoo', 'arutooxxy']) {
      expect(fuzzyMatches(words, term), term).toEqual(brute(words, term));
    }
  });

  it('a swap right after an insertion, in a range of several words (the swapped character is looked up)', () => {
    const words = ['axbdcefgh', 'axbdq', 'axbdcefgz', 'ebla', 'lbla', 'rbla', 'bela'].sort();
    for (const term of ['abcdefgh', 'abdcefgh', 'axbcdefgh', 'ebla', 'bela']) {
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

/**
 * The text rules of API.md §1.2 and §1.6: the search normalisation N(s), words and terms, the
 * matching of `q` (every example of §1.6), and the uniqueness key of §1.8.
 */
import { describe, expect, it } from 'vitest';
import { codePoints, matchesTerms, queryTerms, searchNormalize, searchText, termNeedle, uniquenessKey } from '../../shared/text.js';
import { contractMatches } from '../support/list-rules.js';

/** Whether `q` matches a record whose search fields are `fields` (the list filter's rule). */
function matches(q: string, fields: string[]): boolean {
  const out = queryTerms(q);
  if ('error' in out) throw new Error(out.error);
  return matchesTerms(searchText(fields), out.terms);
}

const terms = (q: string) => {
  const out = queryTerms(q);
  if ('error' in out) throw new Error(out.error);
  return out.terms;
};

describe('searchNormalize (N of §1.6)', () => {
  it('decomposes (NFKD), drops combining marks, folds case, drops apostrophes', () => {
    expect(searchNormalize('Pokémon')).toBe('pokemon');
    expect(searchNormalize('Poke\u0301mon')).toBe('pokemon');
    expect(searchNormalize("JoJo's")).toBe('jojos');
    expect(searchNormalize('JoJo\u2019s')).toBe('jojos');
    expect(searchNormalize('SHINGEKI')).toBe('shingeki');
    expect(searchNormalize('Straße')).toBe('strasse');
    expect(searchNormalize('ﬁre')).toBe('fire'); // compatibility ligature
    expect(searchNormalize('①')).toBe('1');
    expect(searchNormalize('Ｆｕｌｌ')).toBe('full'); // full-width letters
    expect(searchNormalize('ΣΊΣΥΦΟΣ')).toBe(searchNormalize('σίσυφος'));
  });

  it('is idempotent', () => {
    for (const s of ['Pokémon', "JoJo's Bizarre", '進撃の巨人', 'Ångström', 'İstanbul', 'ガンダム', '한국어']) {
      expect(searchNormalize(searchNormalize(s))).toBe(searchNormalize(s));
    }
  });

  it('keeps other punctuation (it only separates words)', () => {
    expect(searchNormalize('Re:Zero − Starting')).toBe('re:zero − starting');
  });
});

describe('queryTerms', () => {
  it('splits q into the runs of letters and digits of N(q)', () => {
    expect(terms('shingeki KYO')).toEqual(['shingeki', 'kyo']);
    expect(terms('  Re:Zero, 2nd-season ')).toEqual(['re', 'zero', '2nd', 'season']);
    expect(terms("JoJo's")).toEqual(['jojos']);
    expect(terms('進撃の巨人')).toEqual(['進撃の巨人']);
  });

  it('has no terms for a q without letters or digits (q is then ignored)', () => {
    expect(terms('')).toEqual([]);
    expect(terms('   ')).toEqual([]);
    expect(terms('!?-- ...')).toEqual([]);
    expect(terms("'")).toEqual([]);
  });

  it('accepts 10 terms and refuses more', () => {
    expect(terms('a b c d e f g h i j')).toHaveLength(10);
    expect(queryTerms('a b c d e f g h i j k')).toHaveProperty('error');
    expect(queryTerms('a,b,c,d,e,f,g,h,i,j,k')).toHaveProperty('error');
  });

  it('accepts 100 characters (code points) and refuses more', () => {
    expect(queryTerms('x'.repeat(100))).toEqual({ terms: ['x'.repeat(100)] });
    expect(queryTerms('x'.repeat(101))).toHaveProperty('error');
    // 100 astral characters are 200 UTF-16 code units but 100 characters.
    expect(queryTerms('𠀀'.repeat(100))).not.toHaveProperty('error');
    expect(queryTerms('𠀀'.repeat(101))).toHaveProperty('error');
  });
});

describe('matching q (§1.6 examples)', () => {
  it('q=shingeki KYO matches "Shingeki no Kyojin"', () => {
    expect(matches('shingeki KYO', ['Shingeki no Kyojin'])).toBe(true);
  });
  it('q=pokemon matches "Pokémon" (and q=Pokémon matches "Pokemon")', () => {
    expect(matches('pokemon', ['Pokémon'])).toBe(true);
    expect(matches('POKÉMON', ['Pokemon'])).toBe(true);
  });
  it('q=巨人 matches "進撃の巨人"', () => {
    expect(matches('巨人', ['進撃の巨人'])).toBe(true);
    expect(matches('の巨', ['進撃の巨人'])).toBe(true);
    expect(matches('進撃', ['進撃の巨人'])).toBe(true);
    expect(matches('人', ['進撃の巨人'])).toBe(true);
  });
  it('q=jojos matches "JoJo\'s"', () => {
    expect(matches('jojos', ["JoJo's Bizarre Adventure"])).toBe(true);
    expect(matches("jojo's", ['JoJo\u2019s Bizarre Adventure'])).toBe(true);
    expect(matches('jojo', ["JoJo's"])).toBe(true);
  });
  it('q=geki does not match "Shingeki"', () => {
    expect(matches('geki', ['Shingeki'])).toBe(false);
    expect(matches('geki', ['Shingeki no Kyojin'])).toBe(false);
  });

  it('every term must match (AND), each in any field, as a word prefix', () => {
    expect(matches('shingeki titan', ['Shingeki no Kyojin'])).toBe(false);
    expect(matches('shingeki titan', ['Shingeki no Kyojin', 'Attack on Titan'])).toBe(true);
    expect(matches('kyojin shingeki', ['Shingeki no Kyojin'])).toBe(true); // order does not matter
    expect(matches('kyojinx', ['Shingeki no Kyojin'])).toBe(false);
    expect(matches('no', ['Shingeki no Kyojin'])).toBe(true);
  });

  it('a term never spans two words or two fields', () => {
    expect(matches('nokyo', ['Shingeki no Kyojin'])).toBe(false);
    expect(matches('ab', ['a', 'b'])).toBe(false);
  });

  it('punctuation separates words in texts too', () => {
    expect(matches('zero', ['Re:Zero'])).toBe(true);
    expect(matches('season', ['2nd-season'])).toBe(true);
  });

  it('Han, kana and Hangul characters start words inside a run; Latin letters do not', () => {
    expect(matches('撃の', ['進撃の巨人'])).toBe(true);
    expect(matches('人x', ['進撃の巨人x'])).toBe(true);
    expect(matches('x', ['進撃x'])).toBe(false); // x is inside the run, not at a word start
    expect(matches('국', ['한국'])).toBe(true);
    expect(matches('ガンダム', ['機動戦士ガンダム'])).toBe(true);
    expect(matches('がんだむ', ['機動戦士ガンダム'])).toBe(false); // hiragana ≠ katakana
  });

  it('the needle of a term is " term", or the term itself for Han/kana/Hangul first characters', () => {
    expect(termNeedle('kyo')).toBe(' kyo');
    expect(termNeedle('巨人')).toBe('巨人');
    expect(termNeedle('ガン')).toBe('ガン');
    const hangul = searchNormalize('한'); // NFKD: conjoining jamo, still Hangul
    expect(termNeedle(hangul)).toBe(hangul);
  });

  it('searchText of nothing matches no term', () => {
    expect(searchText([])).toBe(' ');
    expect(matchesTerms(searchText([]), ['a'])).toBe(false);
    expect(matchesTerms(searchText(['x']), [])).toBe(true);
  });
});

describe('the stored search text agrees with the word rule of §1.6', () => {
  // Random texts and queries over pieces that exercise prefixes, accents, apostrophes, CJK, Hangul.
  const PIECES = ['shin', 'geki', 'Shingeki', ' no ', 'Kyo', 'jin', "Jo'", 'Jo\u2019s', 'é', 'E', 'ß', 'SS', '進撃', 'の', '巨人', 'ガン', 'ダム', '한', '국', '-', ' ', '2', '0', 'x'];
  let seed = 7;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const pick = (n: number) => Array.from({ length: n }, () => PIECES[Math.floor(rand() * PIECES.length)]).join('');

  it('matchesTerms(searchText(fields), terms) ⇔ every term prefixes a word of a field', () => {
    let matched = 0;
    for (let i = 0; i < 3000; i++) {
      const fields = Array.from({ length: 1 + Math.floor(rand() * 2) }, () => pick(1 + Math.floor(rand() * 5)));
      const out = queryTerms(pick(1 + Math.floor(rand() * 2)));
      if ('error' in out) continue;
      const expected = contractMatches(fields, out.terms);
      if (expected) matched++;
      expect(matchesTerms(searchText(fields), out.terms), `${JSON.stringify(fields)} ${JSON.stringify(out.terms)}`).toBe(expected);
    }
    expect(matched).toBeGreaterThan(100); // both outcomes are exercised
  });
});

describe('uniquenessKey (§1.8)', () => {
  it('compares case-insensitively', () => {
    expect(uniquenessKey('Action')).toBe(uniquenessKey('ACTION'));
    expect(uniquenessKey('action')).toBe(uniquenessKey('aCtIoN'));
    expect(uniquenessKey('Straße')).toBe(uniquenessKey('STRASSE'));
  });
  it('compares after NFC (composed and decomposed forms are the same value)', () => {
    expect(uniquenessKey('Caf\u00e9')).toBe(uniquenessKey('Cafe\u0301'));
    expect(uniquenessKey('CAF\u00c9')).toBe(uniquenessKey('cafe\u0301'));
  });
  it('ignores leading and trailing white space', () => {
    expect(uniquenessKey('  Action\t')).toBe(uniquenessKey('Action'));
  });
  it('keeps accents and inner spacing significant', () => {
    expect(uniquenessKey('Cafe')).not.toBe(uniquenessKey('Café'));
    expect(uniquenessKey('Slice of Life')).not.toBe(uniquenessKey('Slice  of Life'));
  });
});

describe('codePoints', () => {
  it('counts code points, not UTF-16 units', () => {
    expect(codePoints('abc')).toBe(3);
    expect(codePoints('😀😀')).toBe(2);
    expect(codePoints('')).toBe(0);
  });
});

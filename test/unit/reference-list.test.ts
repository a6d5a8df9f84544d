/**
 * The reference evaluator of the list rules (test/support/reference-list.ts) against the
 * contract's own examples of §1.6 and the corners of its ordering rule.
 */
import { describe, expect, it } from 'vitest';
import { compareCodePoints, matches, normalize, referenceList, terms, words } from '../support/reference-list.js';

const hit = (text: string, q: string) => matches([text], terms(q));

describe('N(s)', () => {
  it('decomposes, drops marks, folds case and removes apostrophes', () => {
    expect(normalize('Pokémon')).toBe('pokemon');
    expect(normalize('Poke\u0301mon')).toBe('pokemon');
    expect(normalize('ＡＢＣ１')).toBe('abc1');
    expect(normalize("JoJo's")).toBe('jojos');
    expect(normalize('JoJo\u2019s')).toBe('jojos');
    expect(normalize('Shōnen')).toBe('shonen');
  });

  it('folds fully where lower-casing would not', () => {
    expect(normalize('Straße')).toBe('strasse');
    expect(normalize('STRAẞE')).toBe('strasse');
    expect(normalize('ΟΔΥΣΣΕΥΣ')).toBe(normalize('Οδυσσεύς'));
    expect(normalize('Οδυσσεύς')).toBe('οδυσσευσ');
    expect(normalize('\u13f8\uab70')).toBe('\u13f0\u13a0');
    expect(normalize('\u1c80')).toBe('в');
  });

  it('uses the default folding of dotted and dotless i', () => {
    expect(normalize('İstanbul')).toBe('istanbul');
    expect(normalize('ISTANBUL')).toBe('istanbul');
    expect(normalize('ılık')).toBe('ılık');
  });
});

describe('words and terms', () => {
  it('lists the suffixes starting at CJK characters inside a run', () => {
    expect(words('進撃の巨人')).toEqual(['進撃の巨人', '撃の巨人', 'の巨人', '巨人', '人']);
    expect(words('Shingeki no Kyojin!')).toEqual(['shingeki', 'no', 'kyojin']);
  });

  it('does not start a word at ー (script Common)', () => {
    expect(words('ラーメン')).toEqual(['ラーメン', 'メン', 'ン']);
    expect(hit('ラーメン', 'メン')).toBe(true);
    expect(hit('ラーメン', 'ーメン')).toBe(false);
    // The voiced mark of ゲ is a combining mark under NFKD, so ゲ and ケ are one letter.
    expect(words('ゲーム')).toEqual(['ケーム', 'ム']);
  });

  it('starts words at Hangul (as NFKD jamo) and keeps Latin runs whole', () => {
    expect(hit('나 혼자만 레벨업', '레벨')).toBe(true);
    expect(hit('abc進撃', '進撃')).toBe(true);
    expect(hit('abc進撃', 'bc')).toBe(false);
  });

  it('has no terms for a q without letters or digits', () => {
    expect(terms('')).toEqual([]);
    expect(terms('!!')).toEqual([]);
    expect(terms(" shingeki  KYO ")).toEqual(['shingeki', 'kyo']);
  });
});

describe('the contract examples of q', () => {
  it.each([
    ['shingeki KYO', 'Shingeki no Kyojin', true],
    ['pokemon', 'Pokémon', true],
    ['巨人', '進撃の巨人', true],
    ['jojos', "JoJo's", true],
    ['geki', 'Shingeki', false],
  ])('q=%s against "%s" → %s', (q, text, expected) => {
    expect(hit(text, q)).toBe(expected);
  });

  it('needs every term, each in any field or array element', () => {
    expect(matches(['Shingeki no Kyojin', 'Attack on Titan'], terms('kyojin attack'))).toBe(true);
    expect(matches(['Shingeki no Kyojin'], terms('kyojin attack'))).toBe(false);
    expect(matches([], terms('a'))).toBe(false);
  });
});

describe('compareCodePoints', () => {
  it('orders astral characters after U+E000–U+FFFF, unlike UTF-16 order', () => {
    expect('𝒜' < '\uffff').toBe(true);
    expect(compareCodePoints('𝒜', '\uffff')).toBeGreaterThan(0);
    expect(compareCodePoints('ab', 'abc')).toBeLessThan(0);
    expect(compareCodePoints('abc', 'abc')).toBe(0);
  });
});

interface Rec {
  id: string;
  name: string;
  score: number | null;
  date: string | null;
}

const ids = (rs: Rec[]) => rs.map((r) => r.id);

describe('referenceList', () => {
  const records: Rec[] = [
    { id: 'c', name: 'Beta', score: 7, date: '2020-01-01' },
    { id: 'a', name: 'beta', score: null, date: null },
    { id: 'b', name: 'Álpha', score: 7, date: '2019-05-05' },
    { id: 'd', name: 'alpha', score: 9, date: null },
    { id: 'e', name: 'Gamma', score: null, date: '2021-03-03' },
  ];
  const list = (ordering: { value: (r: Rec) => string | number | null; text?: boolean; descending?: boolean }, q?: string, where?: (r: Rec) => boolean) =>
    ids(referenceList(records, { q, where, searchFields: (r) => [r.name], ordering: { text: false, descending: false, ...ordering } }));

  it('orders text keys by N(value), ties by id ascending in both directions', () => {
    expect(list({ value: (r) => r.name, text: true })).toEqual(['b', 'd', 'a', 'c', 'e']);
    expect(list({ value: (r) => r.name, text: true, descending: true })).toEqual(['e', 'a', 'c', 'b', 'd']);
  });

  it('puts nulls last in both directions, ties by id', () => {
    expect(list({ value: (r) => r.score })).toEqual(['b', 'c', 'd', 'a', 'e']);
    expect(list({ value: (r) => r.score, descending: true })).toEqual(['d', 'b', 'c', 'a', 'e']);
    expect(list({ value: (r) => r.date })).toEqual(['b', 'c', 'e', 'a', 'd']);
    expect(list({ value: (r) => r.date, descending: true })).toEqual(['e', 'c', 'b', 'a', 'd']);
  });

  it('filters by q and where together', () => {
    expect(list({ value: (r) => r.name, text: true }, 'ALP')).toEqual(['b', 'd']);
    expect(list({ value: (r) => r.name, text: true }, 'alp', (r) => r.score === 9)).toEqual(['d']);
    expect(list({ value: (r) => r.name, text: true }, '!!')).toHaveLength(5);
  });

  it('has no list for a q the service refuses', () => {
    expect(list({ value: (r) => r.name, text: true }, 'a '.repeat(10))).toEqual(['b', 'd']);
    expect(() => list({ value: (r) => r.name, text: true }, 'a '.repeat(11))).toThrow(RangeError);
    expect(() => list({ value: (r) => r.name, text: true }, '!'.repeat(101))).toThrow(RangeError);
  });

  it('compares astral characters by code point, for text keys and ids alike', () => {
    const astral: Rec[] = [
      { id: '2', name: '😀', score: null, date: '𝒜' },
      { id: '1', name: '\ue000', score: null, date: '\uffff' },
      { id: '𝒜', name: 'x', score: null, date: null },
      { id: '\uffff', name: 'x', score: null, date: null },
    ];
    const order = (value: (r: Rec) => string | null, text: boolean, descending = false) =>
      referenceList(astral, { searchFields: () => [], ordering: { value, text, descending } }).map((r) => r.id);
    expect(order((r) => r.name, true)).toEqual(['\uffff', '𝒜', '1', '2']);
    expect(order((r) => r.name, true, true)).toEqual(['2', '1', '\uffff', '𝒜']);
    expect(order((r) => r.date, false)).toEqual(['1', '2', '\uffff', '𝒜']);
    // As a text key, N("𝒜") is "a" (NFKD), which sorts before U+FFFF.
    expect(order((r) => r.date, true)).toEqual(['2', '1', '\uffff', '𝒜']);
  });
});

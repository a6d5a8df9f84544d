/**
 * Ordering index keys (shared/db/sort-keys.ts) against the ordering rule of API.md §1.6: for
 * random records, sorting the generated keys the way DynamoDB does (by UTF-8 bytes) must give
 * the contract's order — the key, then id ascending, nulls last in both directions, text as
 * N(value) by code point.
 */
import { describe, expect, it } from 'vitest';
import { invertId, sortKey, type OrderType, type OrderValue } from '../../shared/db/sort-keys.js';
import { ID_LENGTH, newId } from '../../shared/ids.js';
import { searchNormalize } from '../../shared/text.js';
import { contractOrder } from '../support/list-rules.js';
import { rng } from '../support/rng.js';

/** Pieces names are built from: prefixes of each other, accents, case, CJK, emoji, characters
 * above the surrogate range (U+E000, U+FF5E) whose UTF-16 order differs from code point order,
 * and pieces that normalise to nothing. */
const PIECES = ['a', 'ab', 'abc', 'AB', 'b', 'é', 'e\u0301', 'E', 'f', 'ß', 'ss', 'Ö', 'o', ' ', '-', '0', '9', '10',
  '進撃', '巨人', 'の', 'ガ', '한', '😀', '𠀀', '\ue000', '～', "'", '\u2019', 'z'];

function randomName(r: () => number): string {
  const n = Math.floor(r() * 4); // 0–3 pieces: "" happens too
  let s = '';
  for (let i = 0; i < n; i++) s += PIECES[Math.floor(r() * PIECES.length)];
  return s;
}

interface Rec {
  id: string;
  name: string;
  nullableName: string | null;
  count: number;
  date: string | null;
}

function randomRecords(r: () => number, n: number): Rec[] {
  const dates = ['1800-01-01', '1999-12-31', '2000-01-01', '2024-02-29', '2024-03-01'];
  return Array.from({ length: n }, () => ({
    id: newId(),
    name: randomName(r),
    nullableName: r() < 0.25 ? null : randomName(r),
    count: [0, 0, 0, 1, 2, 9, 10, 11, 100, 99_999, 1_000_000_000_000][Math.floor(r() * 11)]!,
    date: r() < 0.3 ? null : dates[Math.floor(r() * dates.length)]!,
  }));
}

/** The contract's order of §1.6, computed directly from the rule. */
function expectedOrder(records: Rec[], value: (r: Rec) => OrderValue, type: OrderType, descending: boolean): string[] {
  return contractOrder(records, value, type, descending).map((r) => r.id);
}

/** The order DynamoDB produces: keys by UTF-8 bytes; the descending partition is read backwards. */
function indexOrder(records: Rec[], value: (r: Rec) => OrderValue, type: OrderType, descending: boolean): string[] {
  const dir = descending ? 'desc' : 'asc';
  const keyed = records.map((r) => ({ id: r.id, key: Buffer.from(sortKey(value(r), type, r.id, dir), 'utf8') }));
  keyed.sort((a, b) => Buffer.compare(a.key, b.key));
  const ids = keyed.map((k) => k.id);
  return descending ? ids.reverse() : ids;
}

const ORDERINGS: { name: string; value: (r: Rec) => OrderValue; type: OrderType }[] = [
  { name: 'text', value: (r) => r.name, type: 'text' },
  { name: 'nullable text', value: (r) => r.nullableName, type: 'text' },
  { name: 'count', value: (r) => r.count, type: 'count' },
  { name: 'nullable date', value: (r) => r.date, type: 'plain' },
];

describe('ordering index keys reproduce the contract order', () => {
  for (const o of ORDERINGS) {
    for (const descending of [false, true]) {
      it(`${o.name}, ${descending ? 'descending' : 'ascending'}`, () => {
        for (let seed = 1; seed <= 40; seed++) {
          const records = randomRecords(rng(seed), 5 + seed * 3);
          expect(indexOrder(records, o.value, o.type, descending), `seed ${seed}`).toEqual(expectedOrder(records, o.value, o.type, descending));
        }
      });
    }
  }

  it('ties are the norm: equal values order by id ascending in both directions', () => {
    const records = Array.from({ length: 50 }, () => ({ id: newId(), name: 'Same', nullableName: null, count: 0, date: null }));
    const byId = records.map((r) => r.id).sort();
    for (const o of ORDERINGS) {
      expect(indexOrder(records, o.value, o.type, false)).toEqual(byId);
      expect(indexOrder(records, o.value, o.type, true)).toEqual(byId);
    }
  });

  it('a name that is a prefix of another sorts first ascending, last descending', () => {
    const [a, b, c] = [newId(), newId(), newId()];
    const recs: Rec[] = [
      { id: a, name: 'abc', nullableName: null, count: 0, date: null },
      { id: b, name: 'ab', nullableName: null, count: 0, date: null },
      { id: c, name: 'AB c', nullableName: null, count: 0, date: null },
    ];
    // N: "abc", "ab", "ab c"; " " (U+0020) < "c", so "ab" < "ab c" < "abc".
    expect(indexOrder(recs, (r) => r.name, 'text', false)).toEqual([b, c, a]);
    expect(indexOrder(recs, (r) => r.name, 'text', true)).toEqual([a, c, b]);
  });

  it('text compares by code point, not by UTF-16 unit (U+FF5E sorts before U+1F600)', () => {
    const [x, y] = [newId(), newId()];
    const recs: Rec[] = [
      { id: x, name: '😀', nullableName: null, count: 0, date: null },
      { id: y, name: '\ue000', nullableName: null, count: 0, date: null },
    ];
    expect(indexOrder(recs, (r) => r.name, 'text', false)).toEqual([y, x]);
  });

  it('counts order numerically (9 < 10 < 100), not as strings', () => {
    const recs = [100, 9, 10, 0].map((count) => ({ id: newId(), name: '', nullableName: null, count, date: null }));
    expect(indexOrder(recs, (r) => r.count, 'count', false).map((id) => recs.find((r) => r.id === id)!.count)).toEqual([0, 9, 10, 100]);
  });

  it('refuses negative or fractional counts', () => {
    expect(() => sortKey(-1, 'count', newId(), 'asc')).toThrow();
    expect(() => sortKey(1.5, 'count', newId(), 'asc')).toThrow();
  });
});

describe('key size', () => {
  const maxKeyBytes = 1024;
  it('a 255-character name of 4-byte characters fits the 1,024-byte sort key limit', () => {
    const name = '𠀀'.repeat(255);
    expect(Buffer.byteLength(name)).toBe(1020);
    for (const dir of ['asc', 'desc'] as const) {
      const key = sortKey(name, 'text', newId(), dir);
      expect(Buffer.byteLength(key)).toBeLessThanOrEqual(maxKeyBytes);
    }
  });

  it('characters that NFKD expands are cut too', () => {
    const name = '\ufdfa'.repeat(255); // one character, 18 after NFKD
    expect(Buffer.byteLength(searchNormalize(name))).toBeGreaterThan(4000);
    expect(Buffer.byteLength(sortKey(name, 'text', newId(), 'asc'))).toBeLessThanOrEqual(maxKeyBytes);
  });

  it('the cut falls on a character boundary (the key is well-formed UTF-16 and UTF-8)', () => {
    const name = `a${'𠀀'.repeat(254)}`;
    const key = sortKey(name, 'text', newId(), 'asc');
    expect(Buffer.from(key, 'utf8').toString('utf8')).toBe(key);
    expect(key).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
  });
});

describe('invertId', () => {
  it('reverses the byte order of fixed-length ids', () => {
    const ids = Array.from({ length: 300 }, () => newId());
    for (const id of ids) expect(id).toHaveLength(ID_LENGTH);
    const asc = [...ids].sort();
    const byInverted = [...ids].sort((a, b) => Buffer.compare(Buffer.from(invertId(a)), Buffer.from(invertId(b))));
    expect(byInverted).toEqual([...asc].reverse());
  });

  it('maps the ends of the alphabet onto each other', () => {
    expect(invertId('-')).toBe('z');
    expect(invertId('z')).toBe('-');
    expect(invertId(invertId('AZaz09_-'))).toBe('AZaz09_-');
  });
});

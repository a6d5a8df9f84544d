/**
 * The list rules of API.md §1.6 written out directly from the text, to compare index reads with:
 * - order: by one key (text as N(value) by code point, numbers numerically, fixed-width strings
 *   as they are), then by id ascending; `null` last in both directions;
 * - search: every term is a prefix of a word of a search field.
 */
import type { OrderType, OrderValue } from '../../shared/db/sort-keys.js';
import { searchNormalize } from '../../shared/text.js';

/** Code point order of two strings (JavaScript's `<` compares UTF-16 units instead). */
export function compareCodePoints(a: string, b: string): number {
  const x = [...a].map((c) => c.codePointAt(0)!);
  const y = [...b].map((c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

export function contractOrder<T extends { id: string }>(records: readonly T[], value: (r: T) => OrderValue, type: OrderType, descending: boolean): T[] {
  const cmpValues = (a: string | number, b: string | number) =>
    type === 'text'
      ? compareCodePoints(searchNormalize(String(a)), searchNormalize(String(b)))
      : type === 'count'
        ? Number(a) - Number(b)
        : compareCodePoints(String(a), String(b));
  return [...records].sort((p, q) => {
    const a = value(p);
    const b = value(q);
    if (a === null || b === null) {
      if (a !== b) return a === null ? 1 : -1;
    } else {
      const c = cmpValues(a, b);
      if (c !== 0) return descending ? -c : c;
    }
    return p.id < q.id ? -1 : p.id > q.id ? 1 : 0;
  });
}

const CJK_START = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/** The words of a text (§1.6 step 2): letter/digit runs of N(text), plus, inside a run, the
 * suffix starting at every Han, Hiragana, Katakana or Hangul character. */
export function contractWords(text: string): string[] {
  const words: string[] = [];
  for (const run of searchNormalize(text).match(/[\p{L}\p{N}]+/gu) ?? []) {
    const chars = [...run];
    words.push(run);
    for (let i = 1; i < chars.length; i++) if (CJK_START.test(chars[i]!)) words.push(chars.slice(i).join(''));
  }
  return words;
}

/** Whether a record with these search fields matches the terms of `q` (§1.6 step 4). */
export function contractMatches(fields: readonly string[], terms: readonly string[]): boolean {
  const words = fields.flatMap(contractWords);
  return terms.every((t) => words.some((w) => w.startsWith(t)));
}

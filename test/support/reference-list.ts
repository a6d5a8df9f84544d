/**
 * A brute-force evaluation of the list rules of API.md §1.6, written from the contract's text
 * alone, so that property tests can compare the service's pages with a second, independent
 * implementation (it deliberately does not use shared/text.ts):
 * - N(s): NFKD, combining marks (Mn) removed, full case folding, apostrophes removed;
 * - words of a text, terms of `q`, and the match rule "every term is a prefix of a word";
 * - the order: one key (text keys as N(value) by code point), nulls last in both directions,
 *   then `id` ascending by code point.
 */

/**
 * Full case folding (Unicode CaseFolding.txt, statuses C and F), applied after NFKD and mark
 * removal. JavaScript has no case folding; lower-casing gives the same result on such input
 * except for these code points, mapped afterwards:
 * - ß (and ẞ, which lower-cases to ß) fold to "ss"; ς to σ, including the final sigma that
 *   lower-casing produces at the end of a word (so "ΣΑΣ", "σας" and "σασ" are equal);
 * - Cherokee folds to the capital letters (lower-casing goes the other way);
 * - the Cyrillic small-letter variants U+1C80–U+1C88 fold to their ordinary letters.
 * Dotted and dotless i use the default (not Turkic) folding: I → i, İ → i (NFKD gives I plus
 * U+0307, a mark, removed before folding), and ı stays ı. Every other difference between folding
 * and lower-casing concerns characters that NFKD has already decomposed (ligatures, ſ, µ, Greek
 * iota subscripts, …). Checked against Python's str.casefold() over every code point.
 */
const FOLD_EXCEPTIONS: ReadonlyMap<string, string> = new Map([
  ['ß', 'ss'],
  ['ς', 'σ'],
  ['\u1c80', 'в'],
  ['\u1c81', 'д'],
  ['\u1c82', 'о'],
  ['\u1c83', 'с'],
  ['\u1c84', 'т'],
  ['\u1c85', 'т'],
  ['\u1c86', 'ъ'],
  ['\u1c87', 'ѣ'],
  ['\u1c88', 'ꙋ'],
]);
const FOLDS_OTHERWISE = /[ßς\u1c80-\u1c88\u13f8-\u13fd\uab70-\uabbf]/g;

function refold(c: string): string {
  const cp = c.codePointAt(0)!;
  if (cp >= 0xab70 && cp <= 0xabbf) return String.fromCodePoint(cp - 0xab70 + 0x13a0);
  if (cp >= 0x13f8 && cp <= 0x13fd) return String.fromCodePoint(cp - 8);
  return FOLD_EXCEPTIONS.get(c)!;
}

/** N(s) of §1.6 step 1. */
export function normalize(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/\p{Mn}/gu, '')
    .toLowerCase()
    .replace(FOLDS_OTHERWISE, refold)
    .replace(/['\u2019]/g, '');
}

const RUN = /[\p{L}\p{N}]+/gu;
/** The scripts whose characters start a further word inside a run (`ー` is Common: not one). */
const WORD_START = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/** The words of a text (§1.6 step 2). */
export function words(text: string): string[] {
  const found: string[] = [];
  for (const run of normalize(text).match(RUN) ?? []) {
    found.push(run);
    if (!WORD_START.test(run)) continue;
    const chars = [...run];
    for (let i = 1; i < chars.length; i++) if (WORD_START.test(chars[i]!)) found.push(chars.slice(i).join(''));
  }
  return found;
}

/** The terms of `q` (§1.6 step 3); none means `q` is ignored. */
export function terms(q: string): string[] {
  return normalize(q).match(RUN) ?? [];
}

/** §1.6 step 4: every term is a prefix of a word of one of the texts. */
export function matches(searchTexts: readonly string[], queryTerms: readonly string[]): boolean {
  const all = searchTexts.flatMap(words);
  return queryTerms.every((t) => all.some((w) => w.startsWith(t)));
}

/** Code point order (JavaScript's `<` compares UTF-16 code units, which puts U+10000 and above
 * before U+E000–U+FFFF). */
export function compareCodePoints(a: string, b: string): number {
  const x = a[Symbol.iterator]();
  const y = b[Symbol.iterator]();
  for (;;) {
    const p = x.next();
    const q = y.next();
    if (p.done || q.done) return (p.done ? 0 : 1) - (q.done ? 0 : 1);
    const d = p.value.codePointAt(0)! - q.value.codePointAt(0)!;
    if (d !== 0) return d;
  }
}

export interface ListSpec<T> {
  /** The request's `q`, if any. */
  q?: string;
  /** The values of the list's search fields for a record (array fields flattened). */
  searchFields: (r: T) => string[];
  /** The list's other filters, combined (AND). */
  where?: (r: T) => boolean;
  ordering: {
    value: (r: T) => string | number | null;
    /** A text key (compared as N(value)); other strings (dates, timestamps) compare as they are. */
    text: boolean;
    descending: boolean;
  };
}

/** Every record of the list, in order: filtered by `q` and `where`, ordered by the key, `null`
 * last in both directions, ties by `id` ascending. A `q` of more than 100 characters or 10 terms
 * has no list (the service answers 400): it throws. */
export function referenceList<T extends { id: string }>(records: readonly T[], spec: ListSpec<T>): T[] {
  const queryTerms = spec.q === undefined ? [] : terms(spec.q);
  if (spec.q !== undefined && ([...spec.q].length > 100 || queryTerms.length > 10)) throw new RangeError(`q is invalid (400): ${spec.q}`);
  const { value, text, descending } = spec.ordering;
  const kept = records.filter((r) => (spec.where?.(r) ?? true) && (queryTerms.length === 0 || matches(spec.searchFields(r), queryTerms)));
  const keyed = kept.map((r) => {
    const v = value(r);
    return { r, v: text && typeof v === 'string' ? normalize(v) : v };
  });
  const compareValues = (a: string | number, b: string | number) =>
    typeof a === 'number' && typeof b === 'number' ? a - b : compareCodePoints(String(a), String(b));
  keyed.sort((p, q) => {
    if (p.v === null || q.v === null) {
      if (p.v !== q.v) return p.v === null ? 1 : -1;
    } else {
      const c = compareValues(p.v, q.v);
      if (c !== 0) return descending ? -c : c;
    }
    return compareCodePoints(p.r.id, q.r.id);
  });
  return keyed.map((k) => k.r);
}

/** Optimal string alignment distance (Damerau–Levenshtein, a swap of neighbours one edit), on code points. */
export function osaDistance(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  const d = Array.from({ length: x.length + 1 }, (_, i) => Array.from({ length: y.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= x.length; i++) {
    for (let j = 1; j <= y.length; j++) {
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[x.length]![y.length]!;
}

/**
 * §8.4 `fuzzy=true`, for one term: a term of 4–7 characters matches a word whose prefix of the
 * term's length ±1 is within distance 1 of it (8 or more characters: 2); any term of 4 or more
 * also matches 2 or 3 consecutive words of the same field written together that it is a prefix of.
 */
function fuzzyMatches(fields: readonly string[], term: string): boolean {
  const length = [...term].length;
  if (length < 4) return false;
  const allowed = length >= 8 ? 2 : 1;
  const typo = fields.flatMap(words).some((w) => {
    const chars = [...w];
    return [length - 1, length, length + 1].some((n) => n >= 1 && n <= chars.length && osaDistance(term, chars.slice(0, n).join('')) <= allowed);
  });
  const together = fields.some((f) => {
    const runs = normalize(f).match(RUN) ?? [];
    return runs.some((_, i) => [2, 3].some((n) => i + n <= runs.length && runs.slice(i, i + n).join('').startsWith(term)));
  });
  return typo || together;
}

export interface RelevanceSpec<T> {
  q: string;
  fuzzy: boolean;
  /** The list's search fields for a record, its `name` first (array fields flattened: each value a field). */
  searchFields: (r: T) => string[];
  where?: (r: T) => boolean;
  /** The number ordering each rank, descending (`members`, `favorites`, …); null last. */
  by: (r: T) => number | string | null;
  /** `-relevance`: the whole list reversed. */
  reverse: boolean;
}

/**
 * A list ordered by relevance (§8.4), from the contract's text: the matches (with `fuzzy`, a term
 * also matches as fuzzyMatches says; words of 1–3 characters as without it) in rank order — (1) a
 * field whose words joined by spaces equal the terms joined by spaces, (2) every term starts a
 * word of `name` and the first term starts its first word, (3) every term starts a word of `name`,
 * (4) the other matches, (5) the matches of `fuzzy` alone — then `by` descending (null last), then
 * `id` ascending.
 */
export function referenceRelevance<T extends { id: string }>(records: readonly T[], spec: RelevanceSpec<T>): T[] {
  const ts = terms(spec.q);
  if (ts.length === 0) throw new RangeError('relevance needs terms (400)');
  const rankOf = (r: T): number | null => {
    const fields = spec.searchFields(r);
    const exact = matches(fields, ts);
    if (!exact && !(spec.fuzzy && ts.every((t) => matches(fields, [t]) || fuzzyMatches(fields, t)))) return null;
    if (!exact) return 5;
    if (fields.some((f) => (normalize(f).match(RUN) ?? []).join(' ') === ts.join(' ') && f.trim() !== '')) return 1;
    const name = fields[0] ?? '';
    if (!matches([name], ts)) return 4;
    const first = (normalize(name).match(RUN) ?? [])[0] ?? '';
    return first.startsWith(ts[0]!) ? 2 : 3;
  };
  const ranked = records.filter((r) => spec.where?.(r) ?? true).flatMap((r) => {
    const rank = rankOf(r);
    return rank === null ? [] : [{ r, rank, v: spec.by(r) }];
  });
  ranked.sort((a, b) => {
    if (a.rank !== b.rank) return a.rank - b.rank;
    if (a.v !== b.v) {
      if (a.v === null || b.v === null) return a.v === null ? 1 : -1;
      return typeof a.v === 'number' && typeof b.v === 'number' ? b.v - a.v : compareCodePoints(String(b.v), String(a.v));
    }
    return compareCodePoints(a.r.id, b.r.id);
  });
  const out = ranked.map((k) => k.r);
  return spec.reverse ? out.reverse() : out;
}

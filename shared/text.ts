/**
 * Text rules of the contract (API.md §1.2 and §1.6): input normalisation, the search
 * normalisation N(s), words of a text, terms of a query, and the keys used for uniqueness.
 */

const COMBINING_MARK = /\p{Mn}/gu;
const APOSTROPHES = /['\u2019]/g;
const WORD_RUN = /[\p{L}\p{N}]+/gu;
const WORD_STARTER = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f]/;
// eslint-disable-next-line no-control-regex -- as above, except \t \n \r
const TEXT_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/**
 * Full Unicode case folding, as far as the JavaScript runtime offers it (ß → ss, ς → σ, …).
 * Lower-casing first makes the capital sharp s fold like ß (ẞ → ß → SS → ss).
 */
export function caseFold(s: string): string {
  return s.toLowerCase().toUpperCase().toLowerCase();
}

/** N(s) of §1.6: NFKD, combining marks removed, case folded, apostrophes removed. */
export function searchNormalize(s: string): string {
  return caseFold(s.normalize('NFKD').replace(COMBINING_MARK, ''))
    .normalize('NFKD')
    .replace(COMBINING_MARK, '')
    .replace(APOSTROPHES, '');
}

/** The maximal runs of letters and digits of N(text). */
function runs(text: string): string[] {
  return searchNormalize(text).match(WORD_RUN) ?? [];
}

/** True when a word may start at this character inside a run (Han, Hiragana, Katakana, Hangul). */
export function startsWordInsideRun(ch: string): boolean {
  return WORD_STARTER.test(ch);
}

/**
 * The searchable form of some texts: their letter/digit runs, each preceded by a space.
 * A term t matches when " t" occurs in it, or — for a term that starts with a Han, kana or
 * Hangul character, which starts a word anywhere inside a run — when t occurs in it.
 * This is exactly "t is a prefix of a word" of §1.6 while storing the text only once.
 */
export function searchText(texts: readonly string[]): string {
  return fieldsText(texts.map(runs));
}

/** The runs of each text (a searched field's words as relevance compares them, API.md §8.4). */
export function searchRuns(texts: readonly string[]): string[][] {
  return texts.map(runs);
}

/** The search text of fields given as their runs (searchText of the texts they are the runs of). */
export function fieldsText(fields: readonly (readonly string[])[]): string {
  const all = fields.flat();
  return all.length === 0 ? ' ' : ` ${all.join(' ')} `;
}

/** The terms of a query `q` (§1.6), or a reason why it is invalid. */
export function queryTerms(q: string): { terms: string[] } | { error: string } {
  if ([...q].length > 100) return { error: 'Ensure this value has at most 100 characters.' };
  const terms = runs(q);
  if (terms.length > 10) return { error: 'Ensure this value has at most 10 terms.' };
  return { terms };
}

/** The substring that must occur in `searchText(...)` for a term to match. */
export function termNeedle(term: string): string {
  const first = [...term][0] ?? '';
  return startsWordInsideRun(first) ? term : ` ${term}`;
}

/** Matches a record's search text against the terms of a query (used where no index applies). */
export function matchesTerms(text: string, terms: readonly string[]): boolean {
  return terms.every((t) => text.includes(termNeedle(t)));
}

/** The value compared for uniqueness (§1.8): NFC, trimmed, case folded. */
export function uniquenessKey(s: string): string {
  return caseFold(s.normalize('NFC').trim()).normalize('NFC');
}

/** Number of Unicode code points (the contract counts lengths this way). */
export function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

export function hasControlChars(s: string): boolean {
  return CONTROL.test(s);
}

/** Control characters other than \n, \r and \t (forbidden in `text` fields). */
export function hasTextControlChars(s: string): boolean {
  return TEXT_CONTROL.test(s);
}

/**
 * What the titles' lists evaluate (API.md §1.5, §1.6; docs/data-model.md "The titles' in-memory
 * index"): each indexed kind's definition (IndexDef: orderings, filters, range numbers, search
 * fields, entries) and a record's **vector** — `id`, `o` (each ordering's raw value), `f` (each
 * filter's values, as a list), `x` (numbers compared by range filters), `sw` (search text,
 * text.ts) and `e` (its entry, when the kind has them and the record one) — what evaluating any
 * filter, `q` and ordering needs, and what a list read whole shows of a record (the schedule's
 * airing animes), never the record itself. The in-memory index holds the vectors (shared/search;
 * shared/domain/index-reader.ts); the brute force here (vectorPage) is what its evaluation
 * equals, and what the per-user lists use.
 */
import type { Cursor } from './sort-keys.js';
import { canonicalJson } from '../json.js';
import { fieldsText, matchesTerms, searchRuns } from '../text.js';
import { rankOfWords, rankPrefix, recordWords, RELEVANCE, wordsMatch } from '../search/relevance.js';
import type { BaseRecord, Ordering } from './records.js';
import { compareCodePoints, sortKey, type OrderValue } from './sort-keys.js';

export interface IndexDef<R extends BaseRecord> {
  /** Key prefix, e.g. `ANIME`. */
  kind: string;
  orderings: Record<string, Ordering<R>>;
  /**
   * Orderings read ascending only, whose value derives from the vector's other values (so it is
   * not stored in the vector) — e.g. home's `members` desc, then name (API.md §4.5). No list's
   * `ordering` names them.
   */
  derived?: Record<string, DerivedOrdering<R>>;
  /** The list's default ordering (`name`, `-created_at`; the resource's `defaultOrdering` is this). */
  listOrder: string;
  /** Equality filters: the values a record has (none, one or several). */
  filters: Record<string, (r: R) => readonly string[]>;
  /** Numbers compared by range filters (e.g. `min_score`); `null` never matches a range. */
  numbers?: Record<string, RangeNumber<R>>;
  /** Texts searched by `q`; the first is the `name` field relevance ranks by (API.md §8.4). */
  searchFields: (r: R) => string[];
  /** The ordering that orders each relevance rank, descending (`members`, `favorites`; news: `created_at`); absent: no relevance ordering. */
  relevance?: string;
  /**
   * The values of the vector that derive from the rankings job's numbers (`score`, `scored_by`,
   * `members`, `favorites`), which the job publishes through the compactor's patch instead of
   * deltas (shared/domain/rankings.ts; docs/decisions.md O13): every value a change of those
   * numbers can change, and nothing else (test/unit/ranked-fields.test.ts).
   */
  ranked?: VectorFields;
  /**
   * The record's entry in the kind's list that is read whole (the schedule of the airing animes,
   * API.md §4.15), or `null` when it is not in it: what that list needs of the record beyond the
   * vector's other values (keep it small — the vector has the orderings' values and the range
   * numbers). The vector carries it (`e`), so the snapshot and the deltas do, and a write shows
   * in the list when it returns (docs/decisions.md O15).
   */
  entry?: (r: R) => Entry | null;
}

/** A record's entry (IndexDef.entry): plain JSON values. */
export type Entry = Record<string, unknown>;

/** What the index gives of a record that has an entry: its id, its orderings' stored values, its range numbers and the entry. */
export interface EntryRow {
  id: string;
  o: Vector['o'];
  x: Vector['x'];
  e: Entry;
}

/** An ascending-only ordering whose value derives from the vector's stored values (IndexDef.derived). */
export interface DerivedOrdering<R> extends Ordering<R> {
  fromVector: (o: Vector['o']) => OrderValue;
}

/** An ordering of the index and how a vector gives its value (stored, or derived from the stored ones). */
export function orderingOf<R extends BaseRecord>(def: IndexDef<R>, name: string, descending: boolean): { type: Ordering<R>['type']; ofVector: (v: Vector) => OrderValue } {
  if (Object.hasOwn(def.orderings, name)) return { type: def.orderings[name]!.type, ofVector: (v) => v.o[name] ?? null };
  const derived = Object.hasOwn(def.derived ?? {}, name) ? def.derived![name]! : undefined;
  if (!derived || descending) throw new Error(`unknown ordering ${descending ? '-' : ''}${name} for ${def.kind}`);
  return { type: derived.type, ofVector: (v) => derived.fromVector(v.o) };
}

/** A number a range filter compares (`score` for `min_score`); `null` never matches a range. */
export interface RangeNumber<R> {
  value: (r: R) => number | null;
}

/**
 * A value that pairs a linked record with one of the linking record's own values: a person with
 * the role a manga credits them in, an anime with the tag of an article about it — what a linked
 * manga's `author_role` filter compares (a person with the role a manga credits them in).
 */
export const linkedValue = (id: string, value: string) => `${id}#${value}`;

export interface Vector {
  id: string;
  o: Record<string, string | number | null>;
  f: Record<string, string[]>;
  x: Record<string, number | null>;
  sw: string;
  /**
   * How many runs of `sw` each searched field has, `name` first (relevance, API.md §8.4); absent
   * in vectors written before it (docs/decisions.md EX6).
   */
  sb?: number[];
  /** The record's entry (IndexDef.entry); absent when it has none. */
  e?: Entry;
}

/** Names of some values of a vector: entries of its `o` and of its `x`. */
export interface VectorFields {
  o: readonly string[];
  x: readonly string[];
}

/** Those values of a vector (an absent one as `null`, as vectorOf gives it). */
export function vectorFields(v: Vector, fields: VectorFields): Pick<Vector, 'o' | 'x'> {
  return { o: Object.fromEntries(fields.o.map((k) => [k, v.o[k] ?? null])), x: Object.fromEntries(fields.x.map((k) => [k, v.x[k] ?? null])) };
}

/** Whether two vectors hold the same values but for `fields`. */
export function sameBut(a: Vector, b: Vector, fields: VectorFields): boolean {
  const but = (v: Vector) => ({ ...v, o: without(v.o, fields.o), x: without(v.x, fields.x) });
  return canonicalJson(but(a)) === canonicalJson(but(b));
}
const without = <T>(values: Record<string, T>, keys: readonly string[]) => Object.fromEntries(Object.entries(values).filter(([k]) => !keys.includes(k)));

export function vectorOf<R extends BaseRecord>(def: IndexDef<R>, r: R): Vector {
  const e = def.entry?.(r) ?? null;
  const fields = searchRuns(def.searchFields(r));
  return {
    id: r.id,
    o: Object.fromEntries(Object.entries(def.orderings).map(([name, o]) => [name, o.value(r)])),
    f: Object.fromEntries(Object.entries(def.filters).map(([name, values]) => [name, [...values(r)]])),
    x: Object.fromEntries(Object.entries(def.numbers ?? {}).map(([name, n]) => [name, n.value(r)])),
    sw: fieldsText(fields),
    sb: fields.map((f) => f.length),
    ...(e ? { e } : {}),
  };
}

export interface IndexQuery {
  ordering: string;
  descending: boolean;
  limit: number;
  cursor: Cursor | null;
  /** Terms of `q` (normalised, text.ts); every one must match. */
  terms: readonly string[];
  /** Equality filters: filter name → value. */
  equals: Readonly<Record<string, string>>;
  /** Range filters: number name → least value. */
  atLeast?: Readonly<Record<string, number>>;
  /** Only these records (`ids`, API.md §8.1). */
  ids?: ReadonlySet<string>;
  /** Exclusions: filter name → values none of which a record may have (`sfw=true`, §8.3). */
  excluded?: Readonly<Record<string, readonly string[]>>;
  /** `fuzzy=true` (§8.4): terms also match typos and words written together. */
  fuzzy?: boolean;
}

/** Whether a query orders by relevance (`ordering` `relevance`, §8.4) or needs what it compares (`fuzzy`). */
export const usesRelevance = (q: IndexQuery): boolean => q.ordering === RELEVANCE || (q.fuzzy === true && q.terms.length > 0);

/**
 * How a query orders records: each matching vector's sort key, and whether keys are read
 * descending. An ordering's key (sort-keys.ts, in the query's direction); relevance's is its
 * rank (relevance.ts rankPrefix) then the key of `def.relevance`'s ordering descending, read
 * descending (best first) — `-relevance` reads the same keys ascending, the exact reverse.
 */
export function listKey<R extends BaseRecord>(def: IndexDef<R>, q: IndexQuery): { descending: boolean; keyOf: (v: Vector) => string } {
  if (q.ordering !== RELEVANCE) {
    const { type, ofVector } = orderingOf(def, q.ordering, q.descending);
    const dir = q.descending ? 'desc' : 'asc';
    return { descending: q.descending, keyOf: (v) => sortKey(ofVector(v), type, v.id, dir) };
  }
  if (!def.relevance || q.terms.length === 0) throw new Error(`${def.kind}: no relevance ordering for this query`);
  const { type, ofVector } = orderingOf(def, def.relevance, true);
  return { descending: !q.descending, keyOf: (v) => rankPrefix(rankOfWords(recordWords(v.sw, v.sb), q.terms)) + sortKey(ofVector(v), type, v.id, 'desc') };
}

/** Whether a vector satisfies every filter and term of a query (the in-memory index's deltas too). */
export function matches(v: Vector, q: IndexQuery): boolean {
  if (q.ids && !q.ids.has(v.id)) return false;
  for (const [name, values] of Object.entries(q.excluded ?? {})) if ((v.f[name] ?? []).some((x) => values.includes(x))) return false;
  for (const [name, value] of Object.entries(q.equals)) if (!(v.f[name] ?? []).includes(value)) return false;
  for (const [name, least] of Object.entries(q.atLeast ?? {})) {
    const x = v.x[name];
    if (x === null || x === undefined || x < least) return false;
  }
  return q.fuzzy ? wordsMatch(recordWords(v.sw, v.sb), q.terms, true) : matchesTerms(v.sw, q.terms);
}

/** One page of an in-memory list in list order, with the cursor rules of index-query.ts. */
export function pageOf<T extends { sk: string }>(sorted: readonly T[], descending: boolean, limit: number, cursor: Cursor | null) {
  const before = (a: string, b: string) => (descending ? compareCodePoints(a, b) > 0 : compareCodePoints(a, b) < 0);
  if (cursor === null || cursor.d === 'n') {
    const start = cursor === null ? 0 : sorted.findIndex((e) => (cursor.i ? !before(e.sk, cursor.k) : before(cursor.k, e.sk)));
    const from = start === -1 ? sorted.length : start;
    const kept = sorted.slice(from, from + limit);
    const next: Cursor | null = from + limit < sorted.length ? { d: 'n', k: kept.at(-1)!.sk } : null;
    const previous: Cursor | null = cursor === null ? null : kept[0] ? { d: 'p', k: kept[0].sk } : flip(cursor, 'p');
    return { kept, next, previous };
  }
  // Records before the boundary (or up to it, when it is included), the last `limit` of them.
  let end = sorted.findIndex((e) => (cursor.i ? before(cursor.k, e.sk) : !before(e.sk, cursor.k)));
  if (end === -1) end = sorted.length;
  const kept = sorted.slice(Math.max(0, end - limit), end);
  const previous: Cursor = kept[0] ? { d: 'p', k: kept[0].sk } : { ...cursor };
  const next: Cursor = kept.length > 0 ? { d: 'n', k: kept.at(-1)!.sk } : flip(cursor, 'n');
  return { kept, next, previous };
}

function flip(c: Cursor, d: Cursor['d']): Cursor {
  return c.i ? { d, k: c.k } : { d, k: c.k, i: true };
}

/**
 * The vectors that satisfy every filter and term of `q`, sorted by the sort key `q`'s ordering
 * partition gives them, and the page at `q`'s cursor; `matched` is how many satisfy `q`.
 */
export function vectorPage<R extends BaseRecord>(def: IndexDef<R>, vectors: readonly Vector[], q: IndexQuery) {
  const { descending, keyOf } = listKey(def, q);
  const sorted = vectors
    .filter((v) => matches(v, q))
    .map((v) => ({ id: v.id, sk: keyOf(v) }))
    .sort((a, b) => (descending ? -1 : 1) * compareCodePoints(a.sk, b.sk));
  const { kept, next, previous } = pageOf(sorted, descending, q.limit, q.cursor);
  return { entries: kept, next, previous, matched: sorted.length };
}

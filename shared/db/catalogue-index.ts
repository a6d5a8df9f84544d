/**
 * What the titles' lists evaluate (API.md §1.5, §1.6; docs/data-model.md "The titles' in-memory
 * index"): each indexed kind's definition (IndexDef: orderings, filters, range numbers, search
 * fields, digests) and a record's **vector** — `id`, `o` (each ordering's raw value), `f` (each
 * filter's values, as a list), `x` (numbers compared by range filters) and `sw` (search text,
 * text.ts) — what evaluating any filter, `q` and ordering needs, never the record itself. The
 * in-memory index holds the vectors (shared/search; shared/domain/index-reader.ts); the brute
 * force here (vectorPage) is what its evaluation equals, and what the per-user lists use.
 *
 * Digests are the one index of records kept as items: `K#D#<digest>` / `<id>`, written with the
 * record (digestChange) and read whole (readDigest): the schedule of the airing animes.
 */
import type { Cursor } from './sort-keys.js';
import { canonicalJson } from '../json.js';
import { matchesTerms, searchText } from '../text.js';
import { queryAll, type Item, type ItemKey } from './batch.js';
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
  /** Texts searched by `q`. */
  searchFields: (r: R) => string[];
  /**
   * Digests: lists that are read whole, each one partition (`K#D#<digest>`) holding a compact
   * entry per record that belongs to it (sort key: the record's id) with what the list needs of
   * the record, kept in the record's own write (titles.ts titleWrite), so a digest is current
   * when the write returns. A digest gives the attributes of the record's entry, or `null` when
   * the record is not in it (the schedule's entry of an airing anime, API.md §4.15).
   */
  digests?: Record<string, (r: R) => object | null>;
  /**
   * The values of the vector that derive from the rankings job's numbers (`score`, `scored_by`,
   * `members`, `favorites`), which the job publishes through the compactor's patch instead of
   * deltas (shared/domain/rankings.ts; docs/decisions.md O13): every value a change of those
   * numbers can change, and nothing else (test/unit/ranked-fields.test.ts).
   */
  ranked?: VectorFields;
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
  return {
    id: r.id,
    o: Object.fromEntries(Object.entries(def.orderings).map(([name, o]) => [name, o.value(r)])),
    f: Object.fromEntries(Object.entries(def.filters).map(([name, values]) => [name, [...values(r)]])),
    x: Object.fromEntries(Object.entries(def.numbers ?? {}).map(([name, n]) => [name, n.value(r)])),
    sw: searchText(def.searchFields(r)),
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
}

/** Whether a vector satisfies every filter and term of a query (the in-memory index's deltas too). */
export function matches(v: Vector, q: IndexQuery): boolean {
  for (const [name, value] of Object.entries(q.equals)) if (!(v.f[name] ?? []).includes(value)) return false;
  for (const [name, least] of Object.entries(q.atLeast ?? {})) {
    const x = v.x[name];
    if (x === null || x === undefined || x < least) return false;
  }
  return matchesTerms(v.sw, q.terms);
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
  const ordering = orderingOf(def, q.ordering, q.descending);
  const dir = q.descending ? 'desc' : 'asc';
  const sorted = vectors
    .filter((v) => matches(v, q))
    .map((v) => ({ id: v.id, sk: sortKey(ordering.ofVector(v), ordering.type, v.id, dir) }))
    .sort((a, b) => (q.descending ? -1 : 1) * compareCodePoints(a.sk, b.sk));
  const { kept, next, previous } = pageOf(sorted, q.descending, q.limit, q.cursor);
  return { entries: kept, next, previous, matched: sorted.length };
}

type AnyIndex = IndexDef<BaseRecord>;
const any = <R extends BaseRecord>(def: IndexDef<R>) => def as unknown as AnyIndex;
const digestPk = (def: AnyIndex, digest: string) => `${def.kind}#D#${digest}`;

export interface IndexChange {
  puts: Item[];
  deletes: ItemKey[];
}

/**
 * What moves in the index's digests when a record changes from `before` to `after` (`null`:
 * created or deleted): the one part of this index a title write still keeps, beside its delta
 * of the in-memory index (titles.ts titleWrite; the schedule's digest, API.md §4.15).
 */
export function digestChange<R extends BaseRecord>(def: IndexDef<R>, before: R | null, after: R | null): IndexChange {
  const d = any(def);
  const entries = (r: R | null) => {
    const out = new Map<string, Item>();
    for (const [name, digest] of Object.entries(def.digests ?? {})) {
      const entry = r ? digest(r) : null;
      if (entry) out.set(`${digestPk(d, name)}\u0000${r!.id}`, { pk: digestPk(d, name), sk: r!.id, ...entry });
    }
    return out;
  };
  const old = entries(before);
  const now = entries(after);
  const puts = [...now].filter(([key, item]) => JSON.stringify(old.get(key)) !== JSON.stringify(item)).map(([, item]) => item);
  const deletes = [...old].filter(([key]) => !now.has(key)).map(([, item]) => ({ pk: String(item.pk), sk: String(item.sk) }));
  return { puts, deletes };
}

/** Every entry of a digest (IndexDef.digests), read whole: one Query per MB of entries. */
export async function readDigest<R extends BaseRecord>(def: IndexDef<R>, digest: string): Promise<Item[]> {
  if (!Object.hasOwn(def.digests ?? {}, digest)) throw new Error(`unknown digest ${digest} of ${def.kind}`);
  return queryAll(digestPk(any(def), digest));
}


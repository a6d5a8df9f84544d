/**
 * The search and filter index of the large catalogue entities (animes, mangas, …) and the
 * planner that answers their lists (API.md §1.5, §1.6; docs/data-model.md "Catalogue index").
 *
 * Every record of an indexed entity K has small index items, each holding the record's
 * **vector** — what evaluating any filter, `q` and ordering needs, never the record itself:
 *   ordering entry  pk = K#O#<ordering>#A|D   sk = <sort key> (sort-keys.ts)
 *   posting         pk = K#P#<filter>#<value> sk = <sort key>  one per value of a filter the record has
 *   word posting    pk = K#W#<2|3 characters> sk = <sort key>  one per distinct 2- and 3-character start of its words
 *   list size       pk = K#L#<list>           sk = N           { n }: about how many postings a list has
 *   digest entry    pk = K#D#<digest>         sk = <id>        a record's compact item in a list read whole (IndexDef.digests)
 * A list's sort key is the record's key in the partition of the default ordering (`listOrder`):
 * a list is that partition restricted to the records with the value or word.
 * The vector: `id`, `o` (each ordering's raw value), `f` (each filter's values, as a list),
 * `x` (numbers compared by range filters) and `sw` (search text, text.ts).
 *
 * The planner reads the sizes of the lists a query names and of its `min_score` range (one
 * BatchGetItem), then
 *  - with no list: walks the ordering partition (one Query);
 *  - in the default ordering: walks the smallest list in order with a filter expression of
 *    every other condition (unless a `min_score` range is far smaller: then as below);
 *  - when the smallest list fits the page's reads: reads it whole, keeps the records that satisfy
 *    every filter and term, and sorts them in memory by the sort key the ordering partition
 *    would give them, so every page is full;
 *  - otherwise: walks the ordering partition with a filter expression, reading as many entries
 *    as the lists' sizes say should hold a page of matches.
 * The first page reads one Query page of index items; later pages up to READS_PER_PAGE.
 * Cursors hold the sort key of the boundary record in every case, so a client may cross from
 * one strategy to the other between pages (the data changed) and still sees each record once.
 * The page's records are then read with one BatchGetItem: a first page costs at most 3 calls.
 */
import type { Cursor } from './sort-keys.js';
import { canonicalJson } from '../json.js';
import { matchesTerms, searchText, startsWordInsideRun, termNeedle } from '../text.js';
import { getItems, queryAll, type Item, type ItemKey } from './batch.js';
import { send, tableName } from './client.js';
import { cancellationReasons, retryOnConflict } from './errors.js';
import { queryIndexPage, type IndexFilter, type KeyBounds } from './index-query.js';
import type { BaseRecord, Ordering } from './records.js';
import { compareCodePoints, sortKey, type OrderValue } from './sort-keys.js';

export interface IndexDef<R extends BaseRecord> {
  /** Key prefix, e.g. `ANIME`. */
  kind: string;
  orderings: Record<string, Ordering<R>>;
  /**
   * Orderings read ascending only, whose value derives from the vector's other values (so it is
   * not stored in the vector): one partition each, `K#O#<ordering>#A`, no descending one — e.g.
   * home's `members` desc, then name (API.md §4.5). No list's `ordering` names them.
   */
  derived?: Record<string, DerivedOrdering<R>>;
  /**
   * The list's default ordering (`name`, `-created_at`; the resource's `defaultOrdering` is this):
   * posting and word lists are sorted as its partition is, so in this ordering a list is walked
   * in order, not read whole.
   */
  listOrder: string;
  /** Equality filters: the values a record has (none, one or several). */
  filters: Record<string, (r: R) => readonly string[]>;
  /**
   * The posting list that serves each filter: the filter itself (its values get posting lists)
   * or another filter whose lists hold a superset (e.g. `studio` → `credited`, any role).
   * A filter not named here is evaluated only (never a driver).
   */
  postings: Record<string, string>;
  /** Numbers compared by range filters (e.g. `min_score`); `null` never matches a range. */
  numbers?: Record<string, RangeNumber<R>>;
  /** Texts searched by `q`. */
  searchFields: (r: R) => string[];
  /**
   * Digests: lists that are read whole, each one partition (`K#D#<digest>`) holding a compact
   * entry per record that belongs to it (sort key: the record's id) with what the list needs of
   * the record, kept with the index items — in the record's own write, so a digest is current
   * when the write returns. A digest gives the attributes of the record's entry, or `null` when
   * the record is not in it (e.g. the schedule's entry of an airing anime, API.md §4.15).
   */
  digests?: Record<string, (r: R) => object | null>;
  /**
   * Exact counts: for each name, the values a record counts towards (`K#C#<name>#<value>` / `N`
   * { n }: the number of records with the value), added to in the record's own write with its
   * index items (titles.ts titleWrite: an unconditional `ADD`, exact when the write returns) —
   * unlike list sizes, which are hints. They give the exact `count` of a list that no record of
   * its own counts (API.md §4.0, §4.16): a season's animes, a person's mangas per role, an
   * anime's news per tag. Not filters: a count may name a filter's values or pairs of them
   * (linkedValue).
   */
  counted?: Record<string, (r: R) => readonly string[]>;
  /**
   * Bytes of an index item of this entity, on average and with a margin (a read of hundreds of
   * items holds about their mean size each; the benchmark measures it on the generated catalogue
   * and fails when the mean is larger): how many one Query page holds (entriesPerRead). A read
   * that still comes back incomplete costs a call, never a wrong result.
   */
  vectorBytes: number;
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

/**
 * A number a range filter compares (`score` for `min_score`). Records with a value at least `v`
 * form one key range of the ordering that sorts by the number, so a range is read, never walked
 * past: as a driver when it is small (its size from the buckets), as the bound of a walk in that
 * ordering otherwise.
 */
export interface RangeNumber<R> {
  value: (r: R) => number | null;
  /** The ordering whose value grows with the number. */
  ordering: string;
  /** The ordering value at or below that of every record whose number is at least `least`. */
  bound: (least: number) => OrderValue;
  /** Buckets floor(value), 0 to `top`: each has a size item, the count of records in it. */
  top: number;
}

/** What one read of index items may hold: a Query page is at most 1 MiB; a margin for key overhead. */
export const READ_BYTES = 1_000_000;

/**
 * Index items one Query reads at most: one Query page of the index's items (`vectorBytes`).
 */
export const entriesPerRead = <R extends BaseRecord>(def: IndexDef<R>): number => Math.floor(READ_BYTES / def.vectorBytes);

/**
 * Query pages of index items a list page may read after the first page (a driver list up to
 * this many pages long is read whole; a walk reads up to this many to fill its page). The
 * first page reads one, so that it costs at most 3 calls.
 */
export const READS_PER_PAGE = 4;

type AnyIndex = IndexDef<BaseRecord>;
const any = <R extends BaseRecord>(def: IndexDef<R>) => def as unknown as AnyIndex;

const orderingPk = (def: AnyIndex, ordering: string, desc: boolean) => `${def.kind}#O#${ordering}#${desc ? 'D' : 'A'}`;
const postingList = (filter: string, value: string) => `P#${filter}#${value}`;
const wordList = (start: string) => `W#${start}`;
const listPk = (def: AnyIndex, list: string) => `${def.kind}#${list}`;
const sizeKey = (def: AnyIndex, list: string): ItemKey => ({ pk: `${def.kind}#L#${list}`, sk: 'N' });
const digestPk = (def: AnyIndex, digest: string) => `${def.kind}#D#${digest}`;

/** The exact count of the records that count towards `value` of the count `name` (IndexDef.counted). */
export const countKey = <R extends BaseRecord>(def: IndexDef<R>, name: string, value: string): ItemKey => {
  if (!Object.hasOwn(def.counted ?? {}, name)) throw new Error(`${def.kind}: ${name} is not counted`);
  return { pk: `${def.kind}#C#${name}#${value}`, sk: 'N' };
};

/**
 * A value that pairs a linked record with one of the linking record's own values: a person with
 * the role a manga credits them in, an anime with the tag of an article about it — what a linked
 * list's `count` per filter value counts (IndexDef.counted), and an equality filter may compare.
 */
export const linkedValue = (id: string, value: string) => `${id}#${value}`;

/** The number an exact count item holds (absent: 0). */
export const countIn = (item: Item | null | undefined): number => Number(item?.n ?? 0);

/** The ordering and direction of an index's lists (its `listOrder`). */
function listOrderOf(def: AnyIndex): { ordering: string; descending: boolean } {
  const descending = def.listOrder.startsWith('-');
  const ordering = def.listOrder.replace(/^-/, '');
  if (!Object.hasOwn(def.orderings, ordering)) throw new Error(`${def.kind}: listOrder ${def.listOrder} is not an ordering`);
  return { ordering, descending };
}

/** The partition-key patterns of every index item of an entity (for `dynamodb:LeadingKeys`). */
export const indexKeys = <R extends BaseRecord>(def: IndexDef<R>): string[] =>
  ['O', 'P', 'W', 'L', 'D', 'C'].map((family) => `${def.kind}#${family}#*`);

/**
 * Word lists are keyed by the first WORD_KEYS[i] characters of a word: a term of 2 characters
 * is looked up in the list of its 2 characters, a longer one in the list of its first 3 (a
 * two-character list of a common start, `sa`, holds tens of thousands of records; `sak` a few
 * hundred). A term of one character has no list: it walks.
 */
const WORD_KEYS = [2, 3] as const;

/** The starts of the words of a search text (2 and 3 characters): the word lists a record is on. */
export function wordStarts(sw: string): string[] {
  const starts = new Set<string>();
  for (const run of sw.split(' ')) {
    const chars = [...run];
    // Words start at the run's start and, for Han, kana and Hangul, at any of their characters.
    for (let i = 0; i + 1 < chars.length; i++) {
      if (i > 0 && !startsWordInsideRun(chars[i]!)) continue;
      for (const n of WORD_KEYS) if (i + n <= chars.length) starts.add(chars.slice(i, i + n).join(''));
    }
  }
  return [...starts];
}

/** The word list a term is looked up in (terms of one character have none: they walk). */
export const termList = (term: string): string | null => {
  const chars = [...term];
  const n = [...WORD_KEYS].reverse().find((k) => chars.length >= k);
  return n === undefined ? null : wordList(chars.slice(0, n).join(''));
};

export interface Vector {
  id: string;
  o: Record<string, string | number | null>;
  f: Record<string, string[]>;
  x: Record<string, number | null>;
  sw: string;
}

export function vectorOf<R extends BaseRecord>(def: IndexDef<R>, r: R): Vector {
  return {
    id: r.id,
    o: Object.fromEntries(Object.entries(def.orderings).map(([name, o]) => [name, o.value(r)])),
    f: Object.fromEntries(Object.entries(def.filters).map(([name, values]) => [name, [...values(r)]])),
    x: Object.fromEntries(Object.entries(def.numbers ?? {}).map(([name, n]) => [name, n.value(r)])),
    sw: searchText(def.searchFields(r)),
  };
}

/** Every index item of a record (its vector's entries and postings, then its digest entries), by key (`pk` NUL `sk`). */
export function indexItems<R extends BaseRecord>(def: IndexDef<R>, r: R): Map<string, Item> {
  const d = any(def);
  const v = vectorOf(def, r);
  const items = new Map<string, Item>();
  const add = (pk: string, sk: string) => items.set(`${pk}\u0000${sk}`, { pk, sk, ...v });
  for (const [name, o] of Object.entries(def.orderings)) {
    for (const desc of [false, true]) add(orderingPk(d, name, desc), sortKey(o.value(r), o.type, r.id, desc ? 'desc' : 'asc'));
  }
  for (const [name, o] of Object.entries(def.derived ?? {})) add(orderingPk(d, name, false), sortKey(o.value(r), o.type, r.id, 'asc'));
  const lists = new Set<string>();
  for (const [name, values] of Object.entries(v.f)) {
    if (def.postings[name] === name) for (const value of values) lists.add(postingList(name, value));
  }
  for (const start of wordStarts(v.sw)) lists.add(wordList(start));
  const { ordering, descending } = listOrderOf(d);
  const o = def.orderings[ordering]!;
  const sk = sortKey(o.value(r), o.type, r.id, descending ? 'desc' : 'asc');
  for (const list of lists) add(listPk(d, list), sk);
  for (const [name, digest] of Object.entries(def.digests ?? {})) {
    const entry = digest(r);
    if (entry) items.set(`${digestPk(d, name)}\u0000${r.id}`, { pk: digestPk(d, name), sk: r.id, ...entry });
  }
  return items;
}

export interface IndexChange {
  puts: Item[];
  deletes: ItemKey[];
}

/**
 * What moves in the index when a record changes from `before` to `after` (`null`: created or
 * deleted). Unchanged items are not rewritten.
 */
export function indexChange<R extends BaseRecord>(def: IndexDef<R>, before: R | null, after: R | null): IndexChange {
  const old = before ? indexItems(def, before) : new Map<string, Item>();
  const now = after ? indexItems(def, after) : new Map<string, Item>();
  const puts: Item[] = [];
  const deletes: ItemKey[] = [];
  for (const [key, item] of now) {
    const was = old.get(key);
    if (!was || JSON.stringify(was) !== JSON.stringify(item)) puts.push(item);
  }
  for (const [key, item] of old) if (!now.has(key)) deletes.push({ pk: String(item.pk), sk: String(item.sk) });
  return { puts, deletes };
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

/**
 * How the exact counts change when a record changes from `before` to `after` (`null`: created or
 * deleted): +1 for each value it gains, −1 for each it loses, as `ADD`
 * updates (unconditional: they go with the write's index items, which are applied exactly once).
 */
export function countUpdates<R extends BaseRecord>(def: IndexDef<R>, before: R | null, after: R | null): object[] {
  const updates: object[] = [];
  for (const [name, values] of Object.entries(def.counted ?? {})) {
    const old = new Set(before ? values(before) : []);
    const now = new Set(after ? values(after) : []);
    const moved: [string, number][] = [...[...now].filter((v) => !old.has(v)).map((v): [string, number] => [v, 1]), ...[...old].filter((v) => !now.has(v)).map((v): [string, number] => [v, -1])];
    for (const [value, d] of moved) {
      updates.push({ Update: { TableName: tableName(), Key: countKey(def, name, value), UpdateExpression: 'ADD #n :d', ExpressionAttributeNames: { '#n': 'n' }, ExpressionAttributeValues: { ':d': d } } });
    }
  }
  return updates;
}

/**
 * The count an operation of a write plan adds to (countUpdates), or `null`: how a bulk load,
 * which puts final values instead of adding, sums them up.
 */
export function countAddedBy(op: { Update?: { Key?: Item; UpdateExpression?: string; ExpressionAttributeValues?: Record<string, unknown> } }): { key: ItemKey; d: number } | null {
  const u = op.Update;
  if (!u?.Key || u.UpdateExpression !== 'ADD #n :d' || !/^[A-Z]+#C#/.test(String(u.Key.pk))) return null;
  return { key: { pk: String(u.Key.pk), sk: String(u.Key.sk) }, d: Number(u.ExpressionAttributeValues?.[':d']) };
}

/** Whether an item is one of the index's exact counts (`K#C#<name>#<value>` / `N`). */
export const isCountItem = <R extends BaseRecord>(def: IndexDef<R>, item: { pk?: unknown; sk?: unknown }): boolean => String(item.pk).startsWith(`${def.kind}#C#`) && item.sk === 'N';

/**
 * The records of an ordering in key order after the key `after` (null: from the first), at most
 * `limit`, with the key of the last one read (null: none left) — how a one-off migration visits
 * every record of an indexed kind. In `created_at`, whose keys never change, a walk resumed from
 * a key visits every record that existed when it started exactly once (new ones come after).
 */
export async function orderingWalk<R extends BaseRecord>(def: IndexDef<R>, ordering: string, after: string | null, limit: number): Promise<{ ids: string[]; last: string | null }> {
  if (!Object.hasOwn(def.orderings, ordering)) throw new Error(`unknown ordering ${ordering} for ${def.kind}`);
  const pk = orderingPk(any(def), ordering, false);
  const out = await send((c) =>
    new c.QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk', '#id': 'id' },
      ExpressionAttributeValues: { ':pk': pk },
      ProjectionExpression: '#id, #sk',
      ExclusiveStartKey: after === null ? undefined : { pk, sk: after },
      Limit: limit,
      ConsistentRead: true,
    }),
  );
  const items = out.Items ?? [];
  return { ids: items.map((i) => String(i.id)), last: out.LastEvaluatedKey ? String(items.at(-1)!.sk) : null };
}

/**
 * Brings a record's index items to what this code writes for it (a migration of a store written
 * by an older version): of the items `indexItems` gives for `record` at revision `rev` — those
 * of the derived orderings only (`derived`), or all — puts the ones the table lacks or holds
 * otherwise, in transactions of up to 99 items with a check that the record (`recordKey`) is
 * still at `rev`, so that a write of the record meanwhile (which moves its items as it reads
 * them) is never overwritten with an older state. Returns the items put, or null when the
 * record changed (read it again and retry).
 */
export async function putIndexDifferences<R extends BaseRecord>(def: IndexDef<R>, recordKey: ItemKey, record: R, rev: number, which: 'derived' | 'all'): Promise<number | null> {
  const derived = new Set(Object.keys(def.derived ?? {}).map((name) => orderingPk(any(def), name, false)));
  const want = [...indexItems(def, record).values()].filter((i) => which === 'all' || derived.has(String(i.pk)));
  const stored = await getItems(want.map((i) => ({ pk: String(i.pk), sk: String(i.sk) })));
  const puts = want.filter((item, n) => stored[n] === null || canonicalJson(stored[n]) !== canonicalJson(item));
  const check = { ConditionCheck: { TableName: tableName(), Key: recordKey, ConditionExpression: '#rev = :rev', ExpressionAttributeNames: { '#rev': 'rev' }, ExpressionAttributeValues: { ':rev': rev } } };
  for (let i = 0; i < puts.length; i += 99) {
    const items = [check, ...puts.slice(i, i + 99).map((Item) => ({ Put: { TableName: tableName(), Item } }))];
    try {
      await retryOnConflict(() => send((c) => new c.TransactWriteCommand({ TransactItems: items as never })));
    } catch (err) {
      if (cancellationReasons(err)?.[0]?.Code === 'ConditionalCheckFailed') return null;
      throw err;
    }
  }
  return puts.length;
}

/** The bucket of a range number's value. */
const bucketOf = (n: RangeNumber<never>, x: number) => Math.min(n.top, Math.max(0, Math.floor(x)));
const bucketKey = (def: AnyIndex, number: string, bucket: number): ItemKey => sizeKey(def, `R#${number}#${bucket}`);
/** The descending partition of a range number's ordering: its entries are counted in buckets. */
const rangePk = (def: AnyIndex, n: RangeNumber<never>) => orderingPk(def, n.ordering, true);

/** The partition keys of the index items a size item counts (for the stream consumer's filter). */
export const countedPrefixes = <R extends BaseRecord>(def: IndexDef<R>): string[] => [
  `${def.kind}#P#`,
  `${def.kind}#W#`,
  ...Object.values(def.numbers ?? {}).map((n) => rangePk(any(def), n as RangeNumber<never>)),
];

/**
 * The size item an index item counts towards (`null`: none): a posting → its list's size; the
 * descending ordering entry of a range number → its value's bucket. The stream consumer adds 1
 * for each such item written and takes 1 for each one removed (a changed value moves the entry:
 * its key holds the value).
 */
export function sizeKeyOf<R extends BaseRecord>(def: IndexDef<R>, item: Item): ItemKey | null {
  const pk = String(item.pk);
  const m = /^([A-Z]+)#([PW]#.*)$/.exec(pk);
  if (m) return m[1] === def.kind ? { pk: `${m[1]}#L#${m[2]}`, sk: 'N' } : null;
  for (const [name, n] of Object.entries(def.numbers ?? {})) {
    const x = (item.x as Record<string, unknown> | undefined)?.[name];
    if (pk === rangePk(any(def), n as RangeNumber<never>) && typeof x === 'number') return bucketKey(any(def), name, bucketOf(n as RangeNumber<never>, x));
  }
  return null;
}

export interface IndexQuery {
  ordering: string;
  descending: boolean;
  limit: number;
  cursor: Cursor | null;
  /** Terms of `q` (normalised, text.ts); every one must match. */
  terms: readonly string[];
  /** Equality filters: filter name → value (a posting list each). */
  equals: Readonly<Record<string, string>>;
  /** Range filters: number name → least value. */
  atLeast?: Readonly<Record<string, number>>;
}

export interface IndexResult {
  /** The page: ids with their sort keys, in list order. */
  entries: { id: string; sk: string }[];
  next: Cursor | null;
  previous: Cursor | null;
  /** The number of records of the entity (read for planning), for an exact `count`. */
  total: number;
  /** The items of `first.also`, read in the first call. */
  alsoItems: (Item | null)[];
  /** DynamoDB calls made (for the benchmark). */
  calls: number;
  strategy: 'walk' | 'driver' | 'list';
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

/** The filter expression of a walk: the same conditions as matches(). */
function walkFilter(q: IndexQuery): IndexFilter | undefined {
  const clauses: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  Object.entries(q.equals).forEach(([name, value], i) => {
    names['#f'] = 'f';
    names[`#e${i}`] = name;
    values[`:e${i}`] = value;
    clauses.push(`contains(#f.#e${i}, :e${i})`);
  });
  Object.entries(q.atLeast ?? {}).forEach(([name, least], i) => {
    names['#x'] = 'x';
    names[`#r${i}`] = name;
    values[`:r${i}`] = least;
    clauses.push(`#x.#r${i} >= :r${i}`);
  });
  q.terms.forEach((term, i) => {
    names['#sw'] = 'sw';
    values[`:t${i}`] = termNeedle(term);
    clauses.push(`contains(#sw, :t${i})`);
  });
  return clauses.length === 0 ? undefined : { expression: clauses.join(' AND '), names, values };
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

/**
 * Every posting of one filter value, read whole (one Query per MB of postings): an exact list,
 * unlike the size hints (e.g. the news of one anime, a few hundred postings at most).
 */
export async function readPostings<R extends BaseRecord>(def: IndexDef<R>, filter: string, value: string): Promise<Vector[]> {
  return (await queryAll(listPk(any(def), postingList(filter, value)))) as unknown as Vector[];
}

/**
 * The vectors of the records whose value of a `count` ordering is at least `least`: the key range
 * of its descending partition from that value, read whole (one Query per MB of vectors) — e.g. the
 * characters with members, which the rankings job compares its new values with.
 */
export async function readCountRange<R extends BaseRecord>(def: IndexDef<R>, ordering: string, least: number): Promise<Vector[]> {
  const o = def.orderings[ordering];
  if (!o || !Object.hasOwn(def.orderings, ordering) || o.type !== 'count') throw new Error(`${def.kind}: ${ordering} is not a count ordering`);
  return (await readWhole(orderingPk(any(def), ordering, true), { lo: sortKey(least, 'count', '', 'desc') }, Infinity, undefined)).vectors!;
}

/** Every entry of a digest (IndexDef.digests), read whole: one Query per MB of entries. */
export async function readDigest<R extends BaseRecord>(def: IndexDef<R>, digest: string): Promise<Item[]> {
  if (!Object.hasOwn(def.digests ?? {}, digest)) throw new Error(`unknown digest ${digest} of ${def.kind}`);
  return queryAll(digestPk(any(def), digest));
}

/**
 * Every item of a partition (or of a key range of it) in at most `pages` Queries, or `null` when
 * they do not fit; `reads` is the number of Queries made either way.
 */
async function readWhole(pk: string, bounds: KeyBounds | null, pages: number, limit: number | undefined): Promise<{ vectors: Vector[] | null; reads: number }> {
  const vectors: Vector[] = [];
  let start: Record<string, unknown> | undefined;
  for (let reads = 1; ; reads++) {
    const out = await send((c) =>
      new c.QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: bounds === null ? '#pk = :pk' : bounds.hi === undefined ? '#pk = :pk AND #sk >= :lo' : '#pk = :pk AND #sk BETWEEN :lo AND :hi',
        ExpressionAttributeNames: bounds === null ? { '#pk': 'pk' } : { '#pk': 'pk', '#sk': 'sk' },
        ExpressionAttributeValues: { ':pk': pk, ...(bounds === null ? {} : { ':lo': bounds.lo, ...(bounds.hi === undefined ? {} : { ':hi': bounds.hi }) }) },
        ExclusiveStartKey: start,
        ConsistentRead: true,
        Limit: limit,
      }),
    );
    vectors.push(...((out.Items ?? []) as unknown as Vector[]));
    start = out.LastEvaluatedKey;
    if (!start) return { vectors, reads };
    if (reads >= pages) return { vectors: null, reads };
  }
}

/** True when every record of the query's one list matches it: a single condition, served by its own list. */
function exactList<R extends BaseRecord>(def: IndexDef<R>, q: IndexQuery): boolean {
  const equals = Object.keys(q.equals);
  const conditions = equals.length + Object.keys(q.atLeast ?? {}).length + q.terms.length;
  if (conditions !== 1) return false;
  if (equals.length === 1) return def.postings[equals[0]!] === equals[0];
  const term = q.terms[0];
  return term !== undefined && (WORD_KEYS as readonly number[]).includes([...term].length);
}

/** The posting and word lists a query names (each once). */
function namedLists<R extends BaseRecord>(def: IndexDef<R>, q: Pick<IndexQuery, 'equals' | 'terms'>): string[] {
  const lists = [
    ...Object.entries(q.equals)
      .filter(([name]) => Object.hasOwn(def.postings, name))
      .map(([name, value]) => postingList(def.postings[name]!, value)),
    ...q.terms.map(termList).filter((l): l is string => l !== null),
  ];
  return [...new Set(lists)];
}

/**
 * What the planner's first call reads for a query: the entity's record counter and the sizes of
 * the lists the query names (queryIndex reads them, then `first.also`; an operation may read them
 * earlier, with the caller's auth state, and hand them over through `first.read`).
 */
export function planKeys<R extends BaseRecord>(def: IndexDef<R>, entityCount: ItemKey, q: Pick<IndexQuery, 'equals' | 'terms' | 'atLeast'>): ItemKey[] {
  return [entityCount, ...namedLists(def, q).map((l) => sizeKey(any(def), l)), ...rangesOf(def, q).flatMap((r) => r.buckets)];
}

interface Range {
  name: string;
  least: number;
  number: RangeNumber<never>;
  /** The size items of the buckets that may hold values at least `least`. */
  buckets: ItemKey[];
}

/** The range filters of a query on numbers with an ordering (each with its buckets). */
function rangesOf<R extends BaseRecord>(def: IndexDef<R>, q: Pick<IndexQuery, 'atLeast'>): Range[] {
  return Object.entries(q.atLeast ?? {}).flatMap(([name, least]) => {
    const number = def.numbers?.[name] as RangeNumber<never> | undefined;
    if (!number || !Object.hasOwn(def.numbers!, name)) return [];
    const buckets: ItemKey[] = [];
    for (let b = bucketOf(number, least); b <= number.top; b++) buckets.push(bucketKey(any(def), name, b));
    return [{ name, least, number, buckets }];
  });
}

/** The key range of a range filter in one partition of its ordering (nulls are outside it). */
function rangeBounds<R extends BaseRecord>(def: IndexDef<R>, r: Range, descending: boolean): KeyBounds {
  const type = def.orderings[r.number.ordering]!.type;
  // Keys are "1" + value + SEP + id; null keys start "0" (descending) or "2" (ascending).
  return descending ? { lo: sortKey(r.number.bound(r.least), type, '', 'desc') } : { lo: sortKey(r.number.bound(r.least), type, '', 'asc'), hi: '2' };
}

/**
 * One page of an indexed list (ids and sort keys). `entityCount` is the key of the entity's
 * record counter, read with the list sizes (it makes the estimate and the exact `count`).
 *
 * The first page reads one Query page of index items (3 calls in all). A later page may read
 * READS_PER_PAGE: a driver list of up to that many pages, or a walk that reads on until its page
 * is full — so that, whatever the filters, a client collects m matches in about m / limit
 * requests, the first of which may be short.
 */
export async function queryIndex<R extends BaseRecord>(
  def: IndexDef<R>,
  entityCount: ItemKey,
  q: IndexQuery,
  first: {
    /** Items to read in the first call too (e.g. the records filters name). */
    also?: readonly ItemKey[];
    /** Called with them before anything else is read (it may throw, e.g. 400 for a missing record). */
    check?: (items: (Item | null)[]) => void;
    /** How to read the first call's items (e.g. with items already read for the request). */
    read?: (keys: readonly ItemKey[]) => Promise<(Item | null)[]>;
    /**
     * Tests: one plan, where it applies (`driver`: the smallest list or range read whole, a walk
     * when it does not fit; `list`: the smallest list walked in the default ordering; `walk`:
     * the ordering partition walked). By default the planner chooses.
     */
    force?: 'driver' | 'list' | 'walk';
    /** Index items per Query (default entriesPerRead; tests set a few, with `Limit`, to make lists and walks span several reads). */
    perRead?: number;
  } = {},
): Promise<IndexResult> {
  const d = any(def);
  orderingOf(def, q.ordering, q.descending);
  const unique = namedLists(def, q);
  const ranges = rangesOf(def, q);
  const perRead = first.perRead ?? entriesPerRead(def);
  const limit = first.perRead === undefined ? undefined : perRead;
  const reads = q.cursor === null ? 1 : READS_PER_PAGE;
  // One call: the record count, the list sizes, the range buckets and what the caller wants read with them.
  const also = first.also ?? [];
  const read = await (first.read ?? getItems)([...planKeys(def, entityCount, q), ...also]);
  const size = (i: number) => Number(read[i]?.n ?? 0);
  const total = size(0);
  let at = 1;
  // Sizes are hints (kept by a stream consumer): a list that turns out longer than the page's
  // reads is walked instead, so a wrong size costs calls, never a wrong result.
  const candidates: { n: number; pk: string; bounds: KeyBounds | null }[] = unique.map((list) => ({ n: size(at++), pk: listPk(d, list), bounds: null }));
  for (const r of ranges) {
    let n = 0;
    for (const _ of r.buckets) n += size(at++);
    candidates.push({ n, pk: orderingPk(d, r.number.ordering, true), bounds: rangeBounds(def, r, true) });
  }
  const alsoItems = read.slice(at);
  first.check?.(alsoItems);
  let calls = 1;
  const bySize = [...candidates].sort((a, b) => a.n - b.n);
  const smallest = bySize[0];
  /** The share of the records that pass the lists' and ranges' conditions, taken as independent. */
  const shareOf = (cs: readonly (typeof candidates)[number][]) => cs.reduce((x, c) => x * Math.min(1, c.n / Math.max(total, 1)), 1);
  /**
   * Entries a walk evaluates at first: what should hold a page of matches. The first page has
   * one read, and the share is an estimate (filters taken as independent of each other and of
   * the order; a one-letter term has none): it reads a whole Query page, so that the page comes
   * back full whenever one read can fill it. Later pages start from the estimate and read on.
   */
  const budgetFor = (share: number) =>
    q.cursor === null || q.terms.some((t) => termList(t) === null) ? perRead : Math.min(perRead, Math.max(q.limit + 1, Math.ceil(((q.limit + 1) / Math.max(share, 1e-6)) * 1.25)));
  /** A page of a partition in list order (an ordering's, or a list in the default ordering), filtered by every condition. */
  const walk = async (strategy: IndexResult['strategy'], pk: string, budget: number, bounds: KeyBounds | undefined): Promise<IndexResult> => {
    const page = await queryIndexPage(
      { pk, forward: !q.descending, limit: q.limit, cursor: q.cursor, filter: walkFilter(q), budget, maxBudget: perRead, maxReads: reads, ...(bounds ? { bounds } : {}) },
      (item) => String(item.id),
    );
    calls += page.reads;
    return { entries: page.items.map((i) => ({ id: i.value, sk: i.sk })), next: page.next, previous: page.previous, total, alsoItems, calls, strategy };
  };

  // In the default ordering the smallest list is walked in order: it reads until the page is
  // full, never more than the list. Only a range far smaller than that walk is read instead.
  const inOrder = `${q.descending ? '-' : ''}${q.ordering}` === def.listOrder;
  const list = bySize.find((c) => c.bounds === null);
  if (inOrder && list && first.force !== 'walk' && first.force !== 'driver') {
    // Every entry of the list passes its own condition; the others pass in about this share.
    const density = shareOf(candidates.filter((c) => c !== list));
    const walked = Math.min(list.n, ((q.limit + 1) / Math.max(density, 1e-6)) * 1.25);
    const rangeFirst = smallest !== list && smallest!.n <= perRead * reads && smallest!.n < walked;
    // When the list is exactly the query's one condition every entry matches: a page reads limit + 1.
    const budget = exactList(def, q) ? q.limit + 1 : budgetFor(density);
    if (first.force === 'list' || !rangeFirst) return walk('list', list.pk, budget, undefined);
  }
  // The query's one condition is a range on the ordering's own number (`min_score` with `ordering=score`
  // or `-score`): a key range of the partition walked, every entry of which matches, so a page reads
  // limit + 1 entries rather than the range whole (measured: ~100 ms of CPU for a range of ~1,200).
  const own = ranges.find((r) => r.number.ordering === q.ordering);
  if (own && first.force === undefined && Object.keys(q.equals).length === 0 && q.terms.length === 0 && Object.keys(q.atLeast ?? {}).length === 1) {
    return walk('walk', orderingPk(d, q.ordering, q.descending), q.limit + 1, rangeBounds(def, own, q.descending));
  }
  if (smallest && first.force !== 'walk' && (first.force === 'driver' || smallest.n <= perRead * reads)) {
    const whole = await readWhole(smallest.pk, smallest.bounds, reads, limit);
    calls += whole.reads;
    if (whole.vectors) {
      const { entries, next, previous } = vectorPage(def, whole.vectors, q);
      return { entries, next, previous, total, alsoItems, calls, strategy: 'driver' };
    }
  }
  // Walk the ordering partition, reading what should hold a page of matches if the filters were
  // independent. A range on the ordering's own number bounds the walk: it ends where the range does.
  const bounded = ranges.find((r) => r.number.ordering === q.ordering);
  return walk('walk', orderingPk(d, q.ordering, q.descending), budgetFor(shareOf(candidates)), bounded ? rangeBounds(def, bounded, q.descending) : undefined);
}

/** The ids of the records with `value` among a posting filter's values (every posting of the list). */
export async function postingIds<R extends BaseRecord>(def: IndexDef<R>, filter: string, value: string): Promise<string[]> {
  const d = any(def);
  const items = await queryAll(listPk(d, postingList(def.postings[filter] ?? filter, value)));
  return items.map((i) => String(i.id));
}

/** Whether any record has `value` among a posting filter's values (one posting read). */
export async function hasPostings<R extends BaseRecord>(def: IndexDef<R>, filter: string, value: string): Promise<boolean> {
  const out = await send((c) =>
    new c.QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': 'pk' },
      ExpressionAttributeValues: { ':pk': listPk(any(def), postingList(def.postings[filter] ?? filter, value)) },
      ProjectionExpression: '#pk',
      Limit: 1,
      ConsistentRead: true,
    }),
  );
  return (out.Items ?? []).length > 0;
}

/**
 * The first records of an ordering with a value (nulls never), in the ordering's order, that
 * `keep` accepts: up to `limit` of them, reading Query pages of the ordering's partition until
 * there are `limit` or the values end — at most `maxReads` Queries, each asking for `limit`
 * entries plus those refused so far. Serves the lists that are a head of an ordering: the
 * popular recommendations (`popularity` asc, API.md §5.4) and home's latest news (§4.5).
 */
export async function orderingHead<R extends BaseRecord>(
  def: IndexDef<R>,
  ordering: string,
  opts: { descending: boolean; limit: number; keep?: (id: string) => boolean; refusals?: number; maxReads?: number },
): Promise<{ id: string; sk: string }[]> {
  if (!Object.hasOwn(def.orderings, ordering)) throw new Error(`unknown ordering ${ordering} for ${def.kind}`);
  const pk = orderingPk(any(def), ordering, opts.descending);
  // Ascending: values start "1", nulls "2"; descending (read backwards): nulls start "0".
  const condition = opts.descending ? '#pk = :pk AND #sk >= :v' : '#pk = :pk AND #sk < :v';
  const out: { id: string; sk: string }[] = [];
  let start: Record<string, unknown> | undefined;
  let refused = 0;
  for (let reads = 0; reads < (opts.maxReads ?? 4) && out.length < opts.limit; reads++) {
    const page = await send((c) =>
      new c.QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: condition,
        ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk', '#id': 'id' },
        ExpressionAttributeValues: { ':pk': pk, ':v': opts.descending ? '1' : '2' },
        ProjectionExpression: '#id, #sk',
        ScanIndexForward: !opts.descending,
        ExclusiveStartKey: start,
        Limit: Math.min(entriesPerRead(def), opts.limit - out.length + Math.max(refused, opts.refusals ?? 0)),
        ConsistentRead: true,
      }),
    );
    for (const i of page.Items ?? []) {
      if (out.length >= opts.limit) break;
      if (opts.keep && !opts.keep(String(i.id))) refused++;
      else out.push({ id: String(i.id), sk: String(i.sk) });
    }
    start = page.LastEvaluatedKey;
    if (!start) break;
  }
  return out;
}

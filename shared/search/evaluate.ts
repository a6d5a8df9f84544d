/**
 * One page of a catalogue list (API.md §1.5, §1.6) evaluated over a kind's snapshot
 * (snapshot.ts) and the deltas written since it: exactly what evaluating the query over the
 * kind's current vectors gives (catalogue-index.ts vectorPage and pageOf: the same matches, the
 * same order, the same cursors), with an exact `count`.
 *
 * The matches among the snapshot's records are a bitset: each equality filter's posting list,
 * each term's union of the postings of the words it is a prefix of, each range number's
 * column, the records `ids` names and the complement of each exclusion's postings, intersected; a record a delta changed or deleted is cleared (its delta's vector, if
 * any, is evaluated as such). The page then walks the ordering's permutation from the cursor's
 * boundary (a binary search of the sort keys, computed from the columns) and merges the
 * matching deltas in sort-key order. When the matches are few, they are put in list order
 * through the ordering's ranks instead of walking past the records between them.
 */
import { listKey, matches, type EntryRow, type IndexDef, type IndexQuery, type Vector } from '../db/catalogue-index.js';
import type { BaseRecord } from '../db/records.js';
import { compareCodePoints, type OrderValue } from '../db/sort-keys.js';
import type { Cursor } from '../db/sort-keys.js';
import { allowedEdits, fuzzyMatches } from './fuzzy.js';
import { looselyMatches, rankOfWords, rankPrefix, recordWords, RELEVANCE, typoTest, type Rank, type RecordWords } from './relevance.js';
import { termNeedle } from '../text.js';
import { idAt, keyAt, numberOf, orderOf, valueAt, type Dictionary, type OrderColumn, type RelevanceWords, type Snapshot } from './snapshot.js';

/** A record changed since the snapshot: its vector now, or `null` when it was deleted. */
export interface Delta {
  id: string;
  vector: Vector | null;
}

/**
 * The deltas since a snapshot, prepared once for every query evaluated over them (a function
 * holds them between requests): what they replace in the snapshot, and the current vectors with
 * their sort keys per ordering, computed on first use.
 */
export interface DeltaSet {
  /** The snapshot's records that no delta replaced (`null`: every one). */
  live: Uint32Array | null;
  /** The vectors of the changed and added records (the last delta of each id). */
  vectors: Vector[];
  /** Their sort keys, by ordering and direction (`name/asc`). */
  keys: Map<string, string[]>;
  /** The changed and added records' vectors by id (valuesOf; built on first use). */
  byId?: Map<string, Vector>;
  /** Each vector's words, for `fuzzy` and relevance (relevance.ts recordWords; built on first use). */
  words?: RecordWords[];
}

/**
 * Whether each delta's vector matches `q` (catalogue-index.ts matches). With `fuzzy`, a term
 * matches as relevance.ts wordsMatch has it, over each vector's words prepared once per delta
 * set and a typo test prepared once per term.
 */
function deltaMatcher(set: DeltaSet, q: IndexQuery): (v: Vector, x: number) => boolean {
  if (!q.fuzzy || q.terms.length === 0) return (v) => matches(v, q);
  const others: IndexQuery = { ...q, terms: [], fuzzy: false };
  const words = wordsOf(set);
  const tests = q.terms.map((term) => ({ term, needle: termNeedle(term), typo: typoTest(term) }));
  return (v, x) => matches(v, others) && tests.every(({ term, needle, typo }) => v.sw.includes(needle) || looselyMatches(words[x]!, term, typo));
}

const wordsOf = (set: DeltaSet): RecordWords[] => (set.words ??= set.vectors.map((v) => recordWords(v.sw, v.sb)));

/** The deltas' sort keys in an ordering and direction (computed once per delta set). */
function deltaKeys<R extends BaseRecord>(def: IndexDef<R>, set: DeltaSet, ordering: string, descending: boolean): string[] {
  const cacheKey = `${ordering}/${descending ? 'desc' : 'asc'}`;
  let keys = set.keys.get(cacheKey);
  if (!keys) {
    const { keyOf } = listKey(def, { ordering, descending, limit: 0, cursor: null, terms: [], equals: {} });
    set.keys.set(cacheKey, (keys = set.vectors.map(keyOf)));
  }
  return keys;
}

export function prepareDeltas(s: Snapshot, deltas: readonly Delta[]): DeltaSet {
  const latest = new Map<string, Vector | null>();
  for (const d of deltas) latest.set(d.id, d.vector);
  let live: Uint32Array | null = null;
  const vectors: Vector[] = [];
  for (const [id, v] of latest) {
    const i = numberOf(s, id);
    if (i >= 0) {
      live ??= allBits(s.n);
      live[i >>> 5]! &= ~(1 << (i & 31));
    }
    if (v) vectors.push(v);
  }
  return { live, vectors, keys: new Map() };
}

export interface SnapshotPage {
  /** The page: ids with their sort keys (as cursors hold them), in list order. */
  entries: { id: string; sk: string }[];
  next: Cursor | null;
  previous: Cursor | null;
  /** How many records match the query (the list's `count`). */
  count: number;
}

/** Matches at most this share of the records are put in order through the ordering's ranks rather than walked to. */
const FEW = 1 / 64;

type Bits = Uint32Array;
const has = (b: Bits, i: number) => (b[i >>> 5]! >>> (i & 31)) & 1;
const newBits = (n: number) => new Uint32Array((n + 31) >>> 5);
/** Records 0 … n−1, every one set (and nothing past them). */
function allBits(n: number): Bits {
  const b = newBits(n).fill(0xffffffff);
  if (n & 31) b[b.length - 1] = (1 << (n & 31)) - 1;
  return b;
}

function popcount32(v: number): number {
  v -= (v >>> 1) & 0x55555555;
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

function popcount(b: Bits): number {
  let c = 0;
  for (let w = 0; w < b.length; w++) c += popcount32(b[w]!);
  return c;
}

/** The records of postings lists x in [from, to) of a dictionary, as a bitset. */
function listBits(n: number, d: Dictionary, from: number, to: number): Bits {
  const b = newBits(n);
  const { offsets, recs } = d.lists;
  for (let i = offsets[from]!; i < offsets[to]!; i++) b[recs[i]! >>> 5]! |= 1 << (recs[i]! & 31);
  return b;
}

/** The first index of a sorted string array whose value is at least `v` (code unit order, as built). */
function lowerBound(values: readonly string[], v: string): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid]! < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function and(into: Bits | null, b: Bits): Bits {
  if (into === null) return b;
  for (let w = 0; w < into.length; w++) into[w]! &= b[w]!;
  return into;
}

/** The records having a word of a dictionary that starts with `prefix` (the words are contiguous in the sorted table). */
function prefixBits(n: number, d: Dictionary, prefix: string): Bits {
  const from = lowerBound(d.values, prefix);
  let to = from;
  while (to < d.values.length && d.values[to]!.startsWith(prefix)) to++;
  return listBits(n, d, from, to);
}

/** The records having a word of a dictionary that equals `value`. */
function equalBits(n: number, d: Dictionary, value: string): Bits {
  const x = lowerBound(d.values, value);
  return d.values[x] === value ? listBits(n, d, x, x + 1) : newBits(n);
}

function or(into: Bits, b: Bits): Bits {
  for (let w = 0; w < into.length; w++) into[w]! |= b[w]!;
  return into;
}

/** What relevance needs of a snapshot (versions before 3, or one built from vectors without `sb`, lack it: 503 upstream). */
function relevanceOf(s: Snapshot): RelevanceWords {
  if (!s.relevance) throw new Error(`${s.kind}: the snapshot has no relevance words (version ${s.version})`);
  return s.relevance;
}

/** A term's records with `fuzzy=true` (§8.4): its exact matches, the words within its typo distance, and words written together it starts. */
function looseBits(s: Snapshot, term: string, exact: Bits): Bits {
  if (allowedEdits([...term].length) === 0) return exact;
  const out = or(newBits(s.n), exact);
  const { offsets, recs } = s.words.lists;
  for (const x of fuzzyMatches(s.words.values, term)) for (let i = offsets[x]!; i < offsets[x + 1]!; i++) out[recs[i]! >>> 5]! |= 1 << (recs[i]! & 31);
  return or(out, prefixBits(s.n, relevanceOf(s).joined, term));
}

/**
 * The snapshot's records that satisfy every condition of `q` and no delta replaced (`bits`,
 * `null`: every record), and among them those every term matches exactly (`exact`: what `fuzzy`
 * adds is the rest; `null` without terms).
 */
function snapshotMatches(s: Snapshot, q: IndexQuery, live: Bits | null): { bits: Bits | null; exact: Bits | null } {
  let bits: Bits | null = null;
  for (const [name, value] of Object.entries(q.equals)) {
    const d = s.filters.get(name);
    bits = and(bits, d ? equalBits(s.n, d, value) : newBits(s.n));
  }
  let exact: Bits | null = null;
  for (const term of q.terms) {
    const b = prefixBits(s.n, s.words, term);
    const loose = q.fuzzy ? looseBits(s, term, b) : b;
    bits = and(bits, loose === b ? b.slice() : loose);
    exact = and(exact, b);
  }
  for (const [name, least] of Object.entries(q.atLeast ?? {})) {
    const col = s.numbers.get(name);
    const b = newBits(s.n);
    // NaN (null) is never at least anything; an unknown number never matches (as vectors have none).
    if (col) for (let i = 0; i < s.n; i++) if (col[i]! >= least) b[i >>> 5]! |= 1 << (i & 31);
    bits = and(bits, b);
  }
  for (const [name, values] of Object.entries(q.excluded ?? {})) {
    const d = s.filters.get(name);
    if (!d) continue;
    const out = allBits(s.n);
    for (const value of values) {
      const x = lowerBound(d.values, value);
      if (d.values[x] !== value) continue;
      const { offsets, recs } = d.lists;
      for (let i = offsets[x]!; i < offsets[x + 1]!; i++) out[recs[i]! >>> 5]! &= ~(1 << (recs[i]! & 31));
    }
    bits = and(bits, out);
  }
  if (q.ids) {
    const b = newBits(s.n);
    for (const id of q.ids) {
      const i = numberOf(s, id);
      if (i >= 0) b[i >>> 5]! |= 1 << (i & 31);
    }
    bits = and(bits, b);
  }
  return { bits: live === null ? bits : and(bits, live), exact };
}

/**
 * The matches in each relevance rank (§8.4), ranks 1 to 5: (1) a field equal to the terms, (2)
 * every term starting a word of `name` and the first its first word, (3) every term starting a
 * word of `name`, (4) the other exact matches, (5) the matches of `fuzzy` alone.
 */
function rankGroups(s: Snapshot, q: IndexQuery, bits: Bits, exact: Bits): Bits[] {
  const r = relevanceOf(s);
  const full = equalBits(s.n, r.fulls, q.terms.join(' '));
  let named: Bits | null = null;
  for (const term of q.terms) named = and(named, prefixBits(s.n, r.names, term));
  const first = prefixBits(s.n, r.firsts, q.terms[0]!);
  const groups = [1, 2, 3, 4, 5].map(() => newBits(s.n));
  for (let w = 0; w < bits.length; w++) {
    const b = bits[w]!;
    const e = exact[w]!;
    const f = full[w]! & b;
    const n = named![w]! & b & e & ~f;
    groups[0]![w] = f;
    groups[1]![w] = n & first[w]!;
    groups[2]![w] = n & ~first[w]!;
    groups[3]![w] = b & e & ~f & ~named![w]!;
    groups[4]![w] = b & ~e;
  }
  return groups;
}

/** The reverse of a list order (built on first use). */
const reversed = new WeakMap<Uint32Array, Uint32Array>();
function reverseOf(order: Uint32Array): Uint32Array {
  let r = reversed.get(order);
  if (!r) reversed.set(order, (r = order.slice().reverse()));
  return r;
}

/** The position of each record in an ordering's list order (built on first use). */
const ranks = new WeakMap<Uint32Array, Uint32Array>();
function rankOf(order: Uint32Array): Uint32Array {
  let r = ranks.get(order);
  if (!r) {
    r = new Uint32Array(order.length);
    for (let p = 0; p < order.length; p++) r[order[p]!] = p;
    ranks.set(order, r);
  }
  return r;
}

/** A run of the list: records in list order (those `test` has, every one when null), and each one's sort key. */
interface Segment {
  list: Uint32Array;
  test: Bits | null;
  key: (i: number) => string;
}

/**
 * The snapshot's candidates of a query in list order, as segments one after the other: one for an
 * ordering (its permutation, tested against the matches), one per rank for relevance (the
 * permutation of `def.relevance` descending, tested against the rank's matches; reversed for
 * `-relevance`). A segment whose matches are few lists only them, put in order through the
 * ordering's ranks instead of walking past the records between them.
 */
function segmentsOf<R extends BaseRecord>(def: IndexDef<R>, s: Snapshot, q: IndexQuery, bits: Bits | null, exact: Bits | null, few: number): Segment[] {
  let segments: Segment[];
  if (q.ordering === RELEVANCE) {
    const col = s.orderings.get(def.relevance!)!;
    const best = orderOf(col, true);
    segments = rankGroups(s, q, bits!, exact!).map((test, r) => {
      const prefix = rankPrefix((r + 1) as Rank);
      return { list: q.descending ? reverseOf(best) : best, test, key: (i: number) => prefix + keyAt(s, col, i, true) };
    });
    if (q.descending) segments.reverse();
  } else {
    const col: OrderColumn = s.orderings.get(q.ordering)!;
    segments = [{ list: orderOf(col, q.descending), test: bits, key: (i: number) => keyAt(s, col, i, q.descending) }];
  }
  return segments.map((g) => {
    if (g.test === null || popcount(g.test) > s.n * few) return g;
    const rank = rankOf(g.list);
    const positions = new Uint32Array(popcount(g.test));
    let m = 0;
    for (let w = 0; w < g.test.length; w++) {
      for (let v = g.test[w]!; v !== 0; v &= v - 1) positions[m++] = rank[w * 32 + (31 - Math.clz32(v & -v))]!;
    }
    positions.sort();
    return { list: positions.map((p) => g.list[p]!), test: null, key: g.key };
  });
}

/**
 * A page of `q` over the snapshot and the deltas since it (later deltas of an id replace earlier
 * ones). Throws for an ordering the index does not have (as the planner does).
 */
export function evaluate<R extends BaseRecord>(
  def: IndexDef<R>,
  s: Snapshot,
  q: IndexQuery,
  deltas: DeltaSet | readonly Delta[] = [],
  /** Tests: the share of matches at most which they are put in order through the ranks (default FEW; 0: always walk, 1: always ranks). */
  few = FEW,
): SnapshotPage {
  const { descending } = listKey(def, q);
  /** Negative when key a comes before key b in list order. */
  const cmp = (a: string, b: string) => (descending ? compareCodePoints(b, a) : compareCodePoints(a, b));

  const set = Array.isArray(deltas) ? prepareDeltas(s, deltas as readonly Delta[]) : (deltas as DeltaSet);
  const added: { id: string; sk: string }[] = [];
  const matching = deltaMatcher(set, q);
  if (q.ordering === RELEVANCE) {
    // The rank depends on the query; the key after it is the relevance ordering's, descending (catalogue-index.ts listKey).
    const words = wordsOf(set);
    const keys = deltaKeys(def, set, def.relevance!, true);
    set.vectors.forEach((v, x) => {
      if (matching(v, x)) added.push({ id: v.id, sk: rankPrefix(rankOfWords(words[x]!, q.terms)) + keys[x]! });
    });
  } else {
    const keys = deltaKeys(def, set, q.ordering, q.descending);
    set.vectors.forEach((v, x) => {
      if (matching(v, x)) added.push({ id: v.id, sk: keys[x]! });
    });
  }
  added.sort((a, b) => cmp(a.sk, b.sk));

  const { bits, exact } = snapshotMatches(s, q, set.live);
  const matched = bits === null ? s.n : popcount(bits);
  // The segments one after the other make the list; a position of the list is one of a segment.
  const segments = segmentsOf(def, s, q, bits, exact, few);
  const starts = segments.map((_, i) => segments.slice(0, i).reduce((n, g) => n + g.list.length, 0));
  const length = starts.length === 0 ? 0 : starts.at(-1)! + segments.at(-1)!.list.length;
  /** The segment holding position p. */
  const segmentAt = (p: number) => {
    let i = 0;
    while (i + 1 < segments.length && p >= starts[i + 1]!) i++;
    return i;
  };
  const recordAt = (p: number) => segments[segmentAt(p)]!.list[p - starts[segmentAt(p)]!]!;
  const keyOf = (p: number) => segments[segmentAt(p)]!.key(recordAt(p));
  const ok = (p: number) => {
    const test = segments[segmentAt(p)]!.test;
    return test === null || has(test, recordAt(p)) === 1;
  };
  const entryAt = (p: number) => ({ id: idAt(s, recordAt(p)), sk: keyOf(p) });
  /** The first position whose key is after `k` (or at it, when `atOrAfter`) in list order. */
  const bound = (n: number, key: (p: number) => string, k: string, atOrAfter: boolean) => {
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const c = cmp(key(mid), k);
      if (c < 0 || (c === 0 && !atOrAfter)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };

  const entries: { id: string; sk: string }[] = [];
  const c = q.cursor;
  if (c === null || c.d === 'n') {
    let p = c === null ? 0 : bound(length, keyOf, c.k, c.i === true);
    let a = c === null ? 0 : bound(added.length, (x) => added[x]!.sk, c.k, c.i === true);
    while (entries.length <= q.limit) {
      while (p < length && !ok(p)) p++;
      const fromSnapshot = p < length ? entryAt(p) : null;
      const fromDeltas = added[a] ?? null;
      if (!fromSnapshot && !fromDeltas) break;
      if (fromSnapshot && (!fromDeltas || cmp(fromSnapshot.sk, fromDeltas.sk) < 0)) {
        entries.push(fromSnapshot);
        p++;
      } else {
        entries.push(fromDeltas!);
        a++;
      }
    }
    const more = entries.length > q.limit;
    const kept = entries.slice(0, q.limit);
    return {
      entries: kept,
      next: more ? { d: 'n', k: kept.at(-1)!.sk } : null,
      previous: c === null ? null : kept[0] ? { d: 'p', k: kept[0].sk } : flip(c, 'p'),
      count: matched + added.length,
    };
  }
  // Backwards: the last `limit` records before the boundary (or up to it, when it is included).
  let p = bound(length, keyOf, c.k, c.i !== true) - 1;
  let a = bound(added.length, (x) => added[x]!.sk, c.k, c.i !== true) - 1;
  while (entries.length < q.limit) {
    while (p >= 0 && !ok(p)) p--;
    const fromSnapshot = p >= 0 ? entryAt(p) : null;
    const fromDeltas = a >= 0 ? added[a]! : null;
    if (!fromSnapshot && !fromDeltas) break;
    if (fromSnapshot && (!fromDeltas || cmp(fromSnapshot.sk, fromDeltas.sk) > 0)) {
      entries.push(fromSnapshot);
      p--;
    } else {
      entries.push(fromDeltas!);
      a--;
    }
  }
  entries.reverse();
  return {
    entries,
    previous: entries[0] ? { d: 'p', k: entries[0].sk } : { ...c },
    next: entries.length > 0 ? { d: 'n', k: entries.at(-1)!.sk } : flip(c, 'n'),
    count: matched + added.length,
  };
}

/**
 * The id of the match of `q`'s filters (not its ordering, limit or cursor) at `r` × the number of
 * matches (0 ≤ r < 1): drawn uniformly among the current matches when `r` is (a random pick with
 * filters, `sfw=true`); null when nothing matches.
 */
export function matchAt(s: Snapshot, q: IndexQuery, set: DeltaSet, r: number): string | null {
  const { bits } = snapshotMatches(s, q, set.live);
  const matched = bits === null ? s.n : popcount(bits);
  const added = set.vectors.filter((v) => matches(v, q));
  const total = matched + added.length;
  if (total === 0) return null;
  let k = Math.min(total - 1, Math.floor(r * total));
  if (k >= matched) return added[k - matched]!.id;
  if (bits === null) return idAt(s, k);
  for (let w = 0; w < bits.length; w++) {
    let v = bits[w]!;
    const c = popcount32(v);
    if (k >= c) {
      k -= c;
      continue;
    }
    for (; k > 0; k--) v &= v - 1;
    return idAt(s, w * 32 + (31 - Math.clz32(v & -v)));
  }
  return null;
}

function flip(c: Cursor, d: Cursor['d']): Cursor {
  return c.i ? { d, k: c.k } : { d, k: c.k, i: true };
}

/**
 * Every record's entry now (IndexDef.entry: the schedule's airing animes), with its id, its
 * stored orderings' values and its range numbers: the snapshot's records that have one and no
 * delta replaced, then the deltas' current vectors that have one. Null when the snapshot's
 * entries are not known (snapshot.ts: version 1, or built from vectors that predate them).
 */
export function entryRows<R extends BaseRecord>(def: IndexDef<R>, s: Snapshot, set: DeltaSet): EntryRow[] | null {
  if (s.entries === null) return null;
  const stored = Object.keys(def.orderings).map((name) => [name, s.orderings.get(name)!] as const);
  const rows: EntryRow[] = [];
  for (const [i, e] of s.entries) {
    if (set.live !== null && has(set.live, i) === 0) continue;
    const o = Object.fromEntries(stored.map(([name, col]) => [name, valueAt(s, col, i)]));
    const x = Object.fromEntries([...s.numbers].map(([name, col]) => [name, Number.isNaN(col[i]!) ? null : col[i]!]));
    rows.push({ id: idAt(s, i), o, x, e });
  }
  for (const v of set.vectors) if (v.e) rows.push({ id: v.id, o: v.o, x: v.x, e: v.e });
  return rows;
}

/**
 * The value each record of `ids` has now in `ordering` (a person's `voices/`: its animes' names
 * and start dates, its characters' names): a delta's vector, else the snapshot's record that no
 * delta replaced. Ids of records not in the index (deleted, never written) are left out.
 */
export function valuesOf(s: Snapshot, set: DeltaSet, ordering: string, ids: Iterable<string>): Map<string, OrderValue> {
  const col = s.orderings.get(ordering);
  if (!col) throw new Error(`${s.kind}: no ordering ${ordering} in the snapshot`);
  set.byId ??= new Map(set.vectors.map((v) => [v.id, v]));
  const out = new Map<string, OrderValue>();
  for (const id of ids) {
    const v = set.byId.get(id);
    if (v) {
      out.set(id, v.o[ordering] ?? null);
      continue;
    }
    const i = numberOf(s, id);
    if (i >= 0 && (set.live === null || has(set.live, i) === 1)) out.set(id, valueAt(s, col, i));
  }
  return out;
}

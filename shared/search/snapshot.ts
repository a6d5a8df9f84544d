/**
 * The snapshot of a kind's in-memory index (issue 19; docs/decisions.md E1–): what evaluating any
 * filter, `q` and ordering of a catalogue list needs, for every record of the kind, built from
 * the records' vectors (catalogue-index.ts vectorOf) — never the records themselves.
 *
 * Records are numbered 0…n−1 in id order (code point order: ids are ASCII), so a tie of an
 * ordering, broken by id ascending, is broken by record number ascending. It holds:
 *  - ids: one ASCII string of n fixed-length ids (an id's number by binary search);
 *  - per ordering (stored and derived): each record's value (a float64 column, or a string
 *    table and an index per record; values that all end with their record's id — the rank and
 *    popularity orders — are stored without it), the records in ascending order (a permutation) and a bit
 *    per position that starts a group of equal encoded values. The ascending list is the
 *    ordering's ascending partition (sort-keys.ts); the descending list is the same groups in
 *    reverse (ties stay by id ascending), nulls last in both: one permutation serves both;
 *  - per equality filter: its values (sorted) → the ascending record numbers that have each;
 *  - per range number: a float64 column (NaN: null);
 *  - words for `q`: every word of the records' search texts (sorted, code unit order: the words
 *    starting with a term are contiguous) → the record numbers having it. A word is a run of the
 *    search text, or — inside a run — its rest from a Han, kana or Hangul character: a term
 *    matches a record exactly when it is a prefix of one of its words, which is what
 *    text.ts matchesTerms checks on `sw` (" t" in sw, or t in sw for such a first character);
 *  - entries (IndexDef.entry, the vectors' `e`: the schedule's airing animes): the record
 *    numbers that have one, ascending, and their entries as one JSON array;
 *  - relevance (version 3, API.md §8.4; relevance.ts): the words of `name`, its first word,
 *    each searched field's runs joined by spaces, and 2–3 runs of a field written together,
 *    each as words → the record numbers having it.
 * Encoded as one byte array (a versioned header, then the sections in the header's order), then
 * gzipped (node:zlib).
 *
 * Version 1 (before schema version 4, docs/decisions.md O15) had no entries: it is still read,
 * with its entries unknown (`null`), as is a snapshot built from vectors that predate them (a
 * compaction over an older vectors object). Its lists are right; what reads the entries
 * refuses it (index-reader.ts indexEntries: 503 until the migration rebuilds the index).
 * Likewise versions 1 and 2, and snapshots built from vectors without their fields' runs (`sb`),
 * have no relevance sections (`relevance` null): relevance and `fuzzy` answer 503 over them
 * until the migration to schema version 7 rebuilds the indexes (docs/decisions.md EX6).
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { orderingOf, type Entry, type IndexDef, type Vector } from '../db/catalogue-index.js';
import type { BaseRecord } from '../db/records.js';
import { compareCodePoints, sortKey, type OrderType, type OrderValue } from '../db/sort-keys.js';
import { ByteReader, ByteWriter, type PostingLists } from './codec.js';
import { fieldRuns, firstWord, fullForms, joinedForms, nameWords, searchWords } from './relevance.js';

/** Bumped with every change of the encoding: a reader refuses other versions than these. */
export const SNAPSHOT_VERSION = 3;
/** The versions this code reads: 1 (without entries), 2 (without relevance) and the one it writes. */
const READABLE = [1, 2, SNAPSHOT_VERSION];
const MAGIC = 'CIXS';

/** One ordering's column: values by record number, and the records in ascending order. */
export interface OrderColumn {
  name: string;
  type: OrderType;
  /** Whether the column holds numbers (float64, NaN: null) or strings (a table and an index per record). */
  numeric: boolean;
  nums: Float64Array | null;
  strs: { table: string[]; index: Uint32Array } | null;
  /** Every string value ends with its record's id (rank and popularity orders): the table holds them without it. */
  idSuffix: boolean;
  /** Record numbers in ascending order (the ascending partition's order). */
  asc: Uint32Array;
  /** Bit i set: position i of `asc` starts a group of equal encoded values. */
  groups: Uint8Array;
  /** Positions holding a value (nulls come after them). */
  valued: number;
  /** The descending order (built from `asc` on first use). */
  desc?: Uint32Array;
}

/** Values (sorted) → the ascending record numbers that have each. */
export interface Dictionary {
  values: string[];
  lists: PostingLists;
}

export interface Snapshot {
  version: number;
  kind: string;
  n: number;
  idLength: number;
  /** n ids of idLength characters, ascending. */
  ids: string;
  orderings: Map<string, OrderColumn>;
  filters: Map<string, Dictionary>;
  numbers: Map<string, Float64Array>;
  words: Dictionary;
  /** Each record's entry by record number, for those that have one; null: not known (see above). */
  entries: Map<number, Entry> | null;
  /** What relevance and `fuzzy` compare (relevance.ts); null: not known (see above). */
  relevance: RelevanceWords | null;
}

/** Per record, the words relevance and `fuzzy` compare (API.md §8.4; relevance.ts), as dictionaries. */
export interface RelevanceWords {
  /** The words of `name` (rank 3). */
  names: Dictionary;
  /** The first word of `name` (rank 2). */
  firsts: Dictionary;
  /** Each field's runs joined by spaces (rank 1). */
  fulls: Dictionary;
  /** Two and three consecutive runs of a field written together (`fuzzy`). */
  joined: Dictionary;
}

const RELEVANCE_PARTS = ['names', 'firsts', 'fulls', 'joined'] as const;

export const idAt = (s: Snapshot, i: number): string => s.ids.slice(i * s.idLength, (i + 1) * s.idLength);

/** The record number of an id, or −1. */
export function numberOf(s: Snapshot, id: string): number {
  let lo = 0;
  let hi = s.n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const x = idAt(s, mid);
    if (x === id) return mid;
    if (x < id) lo = mid + 1;
    else hi = mid;
  }
  return -1;
}

export function valueAt(s: Snapshot, c: OrderColumn, i: number): OrderValue {
  if (c.nums) {
    const v = c.nums[i]!;
    return Number.isNaN(v) ? null : v;
  }
  const x = c.strs!.index[i]!;
  if (x === c.strs!.table.length) return null;
  return c.idSuffix ? c.strs!.table[x]! + idAt(s, i) : c.strs!.table[x]!;
}

/** The sort key record `i` has in an ordering's partition (sort-keys.ts), as cursors hold it. */
export const keyAt = (s: Snapshot, c: OrderColumn, i: number, descending: boolean): string => sortKey(valueAt(s, c, i), c.type, idAt(s, i), descending ? 'desc' : 'asc');

/** The records of an ordering in list order: ascending, or its groups reversed with nulls still last. */
export function orderOf(c: OrderColumn, descending: boolean): Uint32Array {
  if (!descending) return c.asc;
  if (c.desc) return c.desc;
  const out = new Uint32Array(c.asc.length);
  let at = 0;
  let end = c.valued;
  for (let start = c.valued - 1; start >= 0; start--) {
    if ((c.groups[start >>> 3]! & (1 << (start & 7))) === 0) continue;
    out.set(c.asc.subarray(start, end), at);
    at += end - start;
    end = start;
  }
  out.set(c.asc.subarray(c.valued), at);
  c.desc = out;
  return out;
}

/** Sorted values → sorted record lists, from each record's values. */
function dictionary(n: number, valuesOf: (i: number) => readonly string[]): Dictionary {
  const lists = new Map<string, number[]>();
  for (let i = 0; i < n; i++) {
    for (const v of new Set(valuesOf(i))) {
      const l = lists.get(v);
      if (l) l.push(i);
      else lists.set(v, [i]);
    }
  }
  const values = [...lists.keys()].sort();
  const recs = new Uint32Array(values.reduce((s, v) => s + lists.get(v)!.length, 0));
  const offsets = new Uint32Array(values.length + 1);
  values.forEach((v, x) => {
    recs.set(lists.get(v)!, offsets[x]!);
    offsets[x + 1] = offsets[x]! + lists.get(v)!.length;
  });
  return { values, lists: { offsets, recs } };
}

/** Every ordering a query may name: the stored ones, then the derived (ascending only). */
const orderingNames = <R extends BaseRecord>(def: IndexDef<R>) => [...Object.keys(def.orderings), ...Object.keys(def.derived ?? {})];

/**
 * The snapshot of a kind from the vectors of all its records (any order; ids unique, of one
 * length). `entriesKnown` false: the vectors may lack their entries (an older vectors object),
 * so the snapshot holds none (`entries` null) — a kind without entries always knows them all.
 */
export function buildSnapshot<R extends BaseRecord>(def: IndexDef<R>, vectors: readonly Vector[], entriesKnown = true): Snapshot {
  const sorted = [...vectors].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const n = sorted.length;
  const idLength = sorted[0]?.id.length ?? 0;
  for (let i = 0; i < n; i++) {
    const id = sorted[i]!.id;
    if (id.length !== idLength || !/^[\x21-\x7e]*$/.test(id)) throw new Error(`${def.kind}: id ${id} is not of ${idLength} printable ASCII characters`);
    if (i > 0 && id === sorted[i - 1]!.id) throw new Error(`${def.kind}: id ${id} twice`);
  }
  const snap: Snapshot = {
    version: SNAPSHOT_VERSION,
    kind: def.kind,
    n,
    idLength,
    ids: sorted.map((v) => v.id).join(''),
    orderings: new Map(),
    filters: new Map(),
    numbers: new Map(),
    words: dictionary(n, (i) => searchWords(sorted[i]!.sw)),
    entries: null,
    relevance: null,
  };
  if (sorted.every((v) => v.sb)) {
    const fields = sorted.map((v) => fieldRuns(v.sw, v.sb));
    snap.relevance = {
      names: dictionary(n, (i) => nameWords(fields[i]!)),
      firsts: dictionary(n, (i) => firstWord(fields[i]!)),
      fulls: dictionary(n, (i) => fullForms(fields[i]!)),
      joined: dictionary(n, (i) => joinedForms(fields[i]!)),
    };
  }
  if (entriesKnown || !def.entry) {
    snap.entries = new Map();
    sorted.forEach((v, i) => v.e && snap.entries!.set(i, v.e));
  }
  for (const name of orderingNames(def)) {
    const { type, ofVector } = orderingOf(def, name, false);
    const values = sorted.map(ofVector);
    const numeric = values.every((v) => v === null || typeof v === 'number');
    if (!numeric && !values.every((v) => v === null || typeof v === 'string')) throw new Error(`${def.kind}: ordering ${name} mixes numbers and strings`);
    const idSuffix = !numeric && values.some((v) => v !== null) && values.every((v, i) => v === null || (v as string).endsWith(sorted[i]!.id));
    const col: OrderColumn = { name, type, numeric, nums: null, strs: null, idSuffix, asc: new Uint32Array(0), groups: new Uint8Array(0), valued: 0 };
    if (numeric) col.nums = Float64Array.from(values, (v) => (v === null ? NaN : (v as number)));
    else {
      const stored = values.map((v) => (v === null || !idSuffix ? v : (v as string).slice(0, -idLength)));
      const table = [...new Set(stored.filter((v): v is string => v !== null))].sort();
      const at = new Map(table.map((v, x) => [v, x]));
      col.strs = { table, index: Uint32Array.from(stored, (v) => (v === null ? table.length : at.get(v as string)!)) };
    }
    // The order of the ascending partition: by sort key, exactly as DynamoDB orders them.
    const keys = values.map((v, i) => sortKey(v, type, sorted[i]!.id, 'asc'));
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => compareCodePoints(keys[a]!, keys[b]!));
    col.asc = Uint32Array.from(order);
    col.groups = new Uint8Array((n + 7) >>> 3);
    const valuePart = (i: number) => keys[i]!.slice(0, keys[i]!.length - idLength - 1);
    for (let p = 0; p < n; p++) {
      if (values[order[p]!] !== null) col.valued = p + 1;
      if (p === 0 || valuePart(order[p]!) !== valuePart(order[p - 1]!)) col.groups[p >>> 3]! |= 1 << (p & 7);
    }
    snap.orderings.set(name, col);
  }
  for (const name of Object.keys(def.filters)) snap.filters.set(name, dictionary(n, (i) => sorted[i]!.f[name] ?? []));
  for (const name of Object.keys(def.numbers ?? {})) snap.numbers.set(name, Float64Array.from(sorted, (v) => v.x[name] ?? NaN));
  return snap;
}

/** What a snapshot's header declares: the kind, its size, and the shape of its sections. */
interface Header {
  kind: string;
  n: number;
  idLength: number;
  orderings: { name: string; type: OrderType; numeric: boolean; idSuffix: boolean; valued: number; table: number }[];
  filters: string[];
  numbers: string[];
  /** Whether the entries section follows (version 2; version 1 has none). */
  entries?: boolean;
  /** Whether the relevance sections follow (version 3; earlier ones have none). */
  relevance?: boolean;
}

const writePostings = (w: ByteWriter, d: Dictionary) => {
  const lists: number[][] = [];
  for (let x = 0; x < d.values.length; x++) lists.push(Array.from(d.lists.recs.subarray(d.lists.offsets[x]!, d.lists.offsets[x + 1]!)));
  w.postings(lists);
};

const readDictionary = (r: ByteReader): Dictionary => {
  const values = r.strings();
  const lists = r.postings();
  if (lists.offsets.length !== values.length + 1) throw new Error('snapshot: a dictionary does not add up');
  return { values, lists };
};

/** The snapshot as bytes (not yet compressed): magic, version, header, sections. */
export function encodeSnapshot(s: Snapshot, sections?: Map<string, number>): Uint8Array {
  const w = new ByteWriter();
  let mark = 0;
  /** Bytes written since the last section ended, added to `sections` under `name` (for the benchmark's breakdown). */
  const section = (name: string) => {
    sections?.set(name, (sections.get(name) ?? 0) + w.length - mark);
    mark = w.length;
  };
  for (const ch of MAGIC) w.u8(ch.charCodeAt(0));
  w.u32(SNAPSHOT_VERSION);
  const cols = [...s.orderings.values()];
  const header: Header = {
    kind: s.kind,
    n: s.n,
    idLength: s.idLength,
    orderings: cols.map((c) => ({ name: c.name, type: c.type, numeric: c.numeric, idSuffix: c.idSuffix, valued: c.valued, table: c.strs?.table.length ?? 0 })),
    filters: [...s.filters.keys()],
    numbers: [...s.numbers.keys()],
    entries: s.entries !== null,
    relevance: s.relevance !== null,
  };
  w.text(JSON.stringify(header));
  section('header');
  w.text(s.ids);
  section('ids');
  for (const c of cols) {
    if (c.nums) w.f64s(c.nums);
    else {
      w.strings(c.strs!.table);
      w.uints(c.strs!.index, c.strs!.table.length + 1);
    }
    section(`ordering values`);
    w.uints(c.asc, s.n);
    w.bytes(c.groups);
    section(`ordering permutations`);
  }
  for (const d of s.filters.values()) {
    w.strings(d.values);
    section(`filter values`);
    writePostings(w, d);
    section(`filter postings`);
  }
  for (const x of s.numbers.values()) w.f64s(x);
  section('range numbers');
  w.strings(s.words.values);
  section('words');
  writePostings(w, s.words);
  section('word postings');
  if (s.entries) {
    const numbers = [...s.entries.keys()].sort((a, b) => a - b);
    w.uints(numbers, s.n);
    w.text(JSON.stringify(numbers.map((i) => s.entries!.get(i))));
    section('entries');
  }
  if (s.relevance) {
    // One length-prefixed block, so that a reader decodes it only when a query needs it.
    const block = new ByteWriter();
    for (const part of RELEVANCE_PARTS) {
      block.strings(s.relevance[part].values);
      writePostings(block, s.relevance[part]);
    }
    const bytes = block.done();
    w.u32(bytes.length);
    w.bytes(bytes);
    section('relevance');
  }
  return w.done();
}

/** The snapshot from its bytes; refuses another version, or one not built for `def`'s shape. */
export function decodeSnapshot<R extends BaseRecord>(def: IndexDef<R>, bytes: Uint8Array): Snapshot {
  const r = new ByteReader(bytes);
  const magic = String.fromCharCode(r.u8(), r.u8(), r.u8(), r.u8());
  if (magic !== MAGIC) throw new Error('snapshot: not a snapshot');
  const version = r.u32();
  if (!READABLE.includes(version)) throw new Error(`snapshot: version ${version}, this code reads ${READABLE.join(' and ')}`);
  const h = JSON.parse(r.text()) as Header;
  const expected = { kind: def.kind, orderings: orderingNames(def), filters: Object.keys(def.filters), numbers: Object.keys(def.numbers ?? {}) };
  const found = { kind: h.kind, orderings: h.orderings.map((o) => o.name), filters: h.filters, numbers: h.numbers };
  if (JSON.stringify(found) !== JSON.stringify(expected)) throw new Error(`snapshot: built for ${JSON.stringify(found)}, not ${JSON.stringify(expected)}`);
  const ids = r.text();
  if (ids.length !== h.n * h.idLength) throw new Error('snapshot: the ids do not add up');
  const s: Snapshot = { version, kind: h.kind, n: h.n, idLength: h.idLength, ids, orderings: new Map(), filters: new Map(), numbers: new Map(), words: { values: [], lists: { offsets: new Uint32Array(1), recs: new Uint32Array(0) } }, entries: null, relevance: null };
  for (const o of h.orderings) {
    const col: OrderColumn = { name: o.name, type: o.type, numeric: o.numeric, nums: null, strs: null, idSuffix: o.idSuffix === true, asc: new Uint32Array(0), groups: new Uint8Array(0), valued: o.valued };
    if (o.numeric) col.nums = r.f64s(h.n);
    else {
      const table = r.strings();
      col.strs = { table, index: r.uints(table.length + 1) };
    }
    col.asc = r.uints(h.n);
    col.groups = Uint8Array.from(r.bytesOf((h.n + 7) >>> 3));
    s.orderings.set(o.name, col);
  }
  for (const f of h.filters) s.filters.set(f, readDictionary(r));
  for (const x of h.numbers) s.numbers.set(x, r.f64s(h.n));
  s.words = readDictionary(r);
  if (h.entries === true) {
    const numbers = r.uints(h.n);
    const entries = JSON.parse(r.text()) as Entry[];
    if (entries.length !== numbers.length || numbers.some((i, x) => i >= h.n || (x > 0 && i <= numbers[x - 1]!))) throw new Error('snapshot: the entries do not add up');
    s.entries = new Map(entries.map((e, x) => [numbers[x]!, e]));
  }
  if (h.relevance === true) {
    // Decoded on first use (most requests never rank by relevance): a function's load and memory stay as before.
    const block = r.bytesOf(r.u32());
    let words: RelevanceWords | undefined;
    Object.defineProperty(s, 'relevance', {
      enumerable: true,
      get: () => {
        if (!words) {
          const b = new ByteReader(block);
          const [names, firsts, fulls, joined] = RELEVANCE_PARTS.map(() => readDictionary(b)) as [Dictionary, Dictionary, Dictionary, Dictionary];
          b.end();
          words = { names, firsts, fulls, joined };
        }
        return words;
      },
    });
  }
  r.end();
  return s;
}

/** The stored form: the encoding, gzipped. */
export const packSnapshot = (s: Snapshot): Uint8Array => new Uint8Array(gzipSync(encodeSnapshot(s)));

export const unpackSnapshot = <R extends BaseRecord>(def: IndexDef<R>, gz: Uint8Array): Snapshot => decodeSnapshot(def, new Uint8Array(gunzipSync(gz)));

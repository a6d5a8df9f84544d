/**
 * A function's copy of the kinds' in-memory indexes (issue 19; docs/in-memory-index.md, decisions
 * D1–): the snapshot it loaded and the deltas written since, kept between requests, brought up
 * to date at every request with what was written since the last one.
 *
 * The first request of a kind in a function reads the pointer, loads the snapshot it names (one
 * S3 GET; an empty index before the kind's first snapshot) and reads the deltas after it. Every
 * later request reads the deltas after the last one it has (one strongly consistent Query,
 * which also returns the pointer: a write that returned is among them, API.md §1.8). When the
 * pointer moved, the new snapshot is loaded and the deltas it folded dropped: the deltas the
 * function holds and those just read cover every number after the new pointer's, since a
 * compaction deletes only what the snapshot before it folded (index-compaction.ts).
 *
 * Queries are evaluated over snapshot and deltas in memory (shared/search/evaluate.ts); what a
 * page costs the table is that Query, then the page's records.
 */
import { usesRelevance, type EntryRow, type IndexDef, type IndexQuery, type Vector } from '../db/catalogue-index.js';
import { loadVectors, MissingVectors } from './index-compaction.js';
import { tableName } from '../db/client.js';
import { Unavailable } from '../db/errors.js';
import { indexKeys, readDeltas, readPointer, type IndexDelta, type IndexPointer } from '../db/index-deltas.js';
import { grant, type KeyGrants } from '../db/key-patterns.js';
import type { BaseRecord } from '../db/records.js';
import { entryRows, evaluate, matchAt, prepareDeltas, valuesOf, type DeltaSet, type SnapshotPage } from '../search/evaluate.js';
import type { OrderValue } from '../db/sort-keys.js';
import { buildSnapshot, unpackSnapshot, type Snapshot } from '../search/snapshot.js';
import { getIndexObject, indexObjectKey } from '../storage/index-objects.js';

/** What reading the indexes of `kinds` does to the table: their pointers (GetItem) and deltas (Query). Its function also loads their snapshots (`index-read`, `index: 'read'`). */
export const indexReads = (...kinds: string[]): KeyGrants => grant(indexKeys(kinds), 'GetItem', 'Query');

interface Held {
  pointer: IndexPointer | null;
  snapshot: Snapshot;
  /** The deltas after the pointer's, in order; the last number read. */
  deltas: IndexDelta[];
  after: number;
  /** The deltas prepared for evaluation (dropped when deltas are added). */
  prepared: DeltaSet | null;
  /** The current entries (indexEntries; dropped with `prepared`). */
  entries?: EntryRow[] | null;
}

/** Copies by table and kind (a function has one table; tests and the bench switch TABLE_NAME in one process). */
const held = new Map<string, Held>();
const heldKey = (kind: string) => `${tableName()}\u0000${kind}`;

/** The snapshot a pointer names (an empty one before the first). Null when its object is gone: a newer pointer exists. */
async function snapshotOf<R extends BaseRecord>(def: IndexDef<R>, pointer: IndexPointer | null): Promise<Snapshot | null> {
  if (!pointer) return buildSnapshot(def, []);
  const gz = await getIndexObject(indexObjectKey(def.kind, pointer.name, 'snapshot'));
  return gz ? unpackSnapshot(def, gz) : null;
}

/** A fresh copy: the current pointer's snapshot and the deltas after it. */
async function load<R extends BaseRecord>(def: IndexDef<R>): Promise<Held> {
  for (let attempt = 1; ; attempt++) {
    const pointer = await readPointer(def.kind);
    const snapshot = await snapshotOf(def, pointer);
    if (!snapshot) {
      // Deleted by the compaction after the one that wrote it, between the two reads: read the pointer again.
      if (attempt < 3) continue;
      // Gone for good (a bucket emptied by hand): the lists answer 503 until it is rebuilt (decision O14).
      throw new Unavailable(`${def.kind}: the index snapshot ${pointer!.name} is missing; \`npm run migrate\` rebuilds it from the records`);
    }
    const after = pointer?.seq ?? 0;
    const { deltas } = await readDeltas(def.kind, after);
    return { pointer, snapshot, deltas, after: deltas.at(-1)?.seq ?? after, prepared: null };
  }
}

/**
 * Loads of a copy under way, by table and kind: requests that need a kind the function does not
 * hold yet share one load (home's season pages and its popular recommendations, at a cold start),
 * then each brings it up to date as a warm request does — a load begun before the request may
 * have read the deltas before a write that returned since.
 */
const loading = new Map<string, Promise<Held>>();

/** The kind's index as of now: the held copy brought up to date (see above). */
async function current<R extends BaseRecord>(def: IndexDef<R>): Promise<Held> {
  const key = heldKey(def.kind);
  let h = held.get(key);
  if (!h) {
    const under = loading.get(key);
    if (!under) {
      const started = load(def)
        .then((fresh) => (held.set(key, fresh), fresh))
        .finally(() => loading.delete(key));
      loading.set(key, started);
      return started;
    }
    h = await under;
  }
  const { deltas, pointer } = await readDeltas(def.kind, h.after);
  // Another request of this function may have refreshed the copy meanwhile (requests run at once
  // locally): only numbers after what it holds now are new, so the deltas stay in order, each once.
  const now = held.get(key) ?? h;
  const fresh = deltas.filter((d) => d.seq > now.after);
  if ((pointer?.version ?? 0) !== (now.pointer?.version ?? 0)) {
    if ((pointer?.version ?? 0) < (now.pointer?.version ?? 0)) return now;
    const snapshot = await snapshotOf(def, pointer);
    const next: Held = snapshot
      ? { pointer, snapshot, deltas: [...now.deltas, ...fresh].filter((d) => d.seq > pointer!.seq), after: Math.max(fresh.at(-1)?.seq ?? now.after, pointer!.seq), prepared: null }
      : await load(def);
    held.set(key, next);
    return next;
  }
  if (fresh.length > 0) {
    now.deltas.push(...fresh);
    now.after = fresh.at(-1)!.seq;
    now.prepared = null;
    delete now.entries;
  }
  return now;
}

/** A page of `q` over the kind's current index: the ids in list order with their sort keys, cursors, and how many match. */
export async function indexPage<R extends BaseRecord>(def: IndexDef<R>, q: IndexQuery | Promise<IndexQuery>): Promise<SnapshotPage> {
  return (await indexPages(def, Promise.resolve(q).then((x) => [x])))[0]!;
}

/**
 * Pages of several queries over one read of the kind's current index (home's two seasons). The
 * queries may still be on their way (a promise: `sfw=true` needs the tombstone shard read beside
 * the index), so that the index is read in the same round as what they need.
 */
export async function indexPages<R extends BaseRecord>(def: IndexDef<R>, pending: readonly IndexQuery[] | Promise<readonly IndexQuery[]>): Promise<SnapshotPage[]> {
  const [h, queries] = await Promise.all([current(def), pending]);
  if (queries.some(usesRelevance) && (h.snapshot.relevance === null || h.deltas.some((d) => d.vector !== null && !d.vector.sb))) {
    // An index written before §8.4 (decision EX6): 503 until the migration rebuilds it, never a wrong order.
    throw new Unavailable(`${def.kind}: the index ${h.pointer?.name ?? ''} predates relevance; \`npm run migrate\` rebuilds it from the records`);
  }
  h.prepared ??= prepareDeltas(h.snapshot, h.deltas);
  return queries.map((q) => evaluate(def, h.snapshot, q, h.prepared!));
}

/**
 * A record drawn uniformly among the kind's current records that `q`'s filters match (random
 * picks with `sfw=true`; `q` may still be on its way, read beside the index); null when none do.
 */
export async function indexPick<R extends BaseRecord>(def: IndexDef<R>, q: Promise<IndexQuery>, random: () => number = Math.random): Promise<string | null> {
  const [h, query] = await Promise.all([current(def), q]);
  h.prepared ??= prepareDeltas(h.snapshot, h.deltas);
  return matchAt(h.snapshot, query, h.prepared, random());
}

/** The ids of every record of the kind with the values `equals` (jobs and consumers: a genre's animes, the airing animes), in the kind's list order. */
export async function indexIds<R extends BaseRecord>(def: IndexDef<R>, equals: Readonly<Record<string, string>>): Promise<string[]> {
  const h = await current(def);
  h.prepared ??= prepareDeltas(h.snapshot, h.deltas);
  const all = h.snapshot.n + h.prepared.vectors.length;
  const descending = def.listOrder.startsWith('-');
  const page = evaluate(def, h.snapshot, { ordering: def.listOrder.replace(/^-/, ''), descending, limit: Math.max(1, all), cursor: null, terms: [], equals }, h.prepared);
  return page.entries.map((e) => e.id);
}

/**
 * The kind's index as of now, to look up records' values in its orderings (a person's `voices/`):
 * `values(ordering, ids)` leaves out ids not in the index (deleted, never written; valuesOf).
 */
export async function indexLookup<R extends BaseRecord>(def: IndexDef<R>): Promise<{ values(ordering: string, ids: Iterable<string>): Map<string, OrderValue> }> {
  const h = await current(def);
  const set = (h.prepared ??= prepareDeltas(h.snapshot, h.deltas));
  return { values: (ordering, ids) => valuesOf(h.snapshot, set, ordering, ids) };
}

/**
 * Every record's entry of the kind now (IndexDef.entry: the schedule's airing animes), with its
 * id, orderings' values and range numbers, in no particular order: the snapshot's, replaced or
 * removed by the deltas after it. Kept with the copy until new deltas come. A snapshot whose
 * entries are not known (one written before schema version 4, decision O15) answers 503 until
 * the migration rebuilds the index: an empty or partial list would be wrong.
 */
export async function indexEntries<R extends BaseRecord>(def: IndexDef<R>, excluded?: Promise<IndexQuery['excluded']>): Promise<EntryRow[]> {
  const [h, exclusions] = await Promise.all([current(def), excluded]);
  const prepared = (h.prepared ??= prepareDeltas(h.snapshot, h.deltas));
  if (h.entries === undefined) h.entries = entryRows(def, h.snapshot, prepared);
  if (h.entries === null) throw new Unavailable(`${def.kind}: the index snapshot ${h.pointer?.name ?? ''} predates its entries; \`npm run migrate\` rebuilds it from the records`);
  if (!exclusions) return h.entries;
  // Exclusions given (`sfw=true`, read beside the index): the entries' records that none excludes.
  const kept = keptOf(def, h, h.entries.map((e) => e.id), exclusions);
  return h.entries.filter((e) => kept.has(e.id));
}

/** Of `ids`, the current records that no exclusion leaves out (a set). */
function keptOf<R extends BaseRecord>(def: IndexDef<R>, h: Held, ids: readonly string[], excluded: IndexQuery['excluded']): Set<string> {
  const q = { ordering: def.listOrder.replace(/^-/, ''), descending: def.listOrder.startsWith('-'), limit: Math.max(1, ids.length), cursor: null, terms: [], equals: {}, ids: new Set(ids), excluded };
  return new Set(evaluate(def, h.snapshot, q, (h.prepared ??= prepareDeltas(h.snapshot, h.deltas))).entries.map((e) => e.id));
}

/**
 * Of `ids`, those of the kind's current records that the exclusions do not leave out (`sfw=true`
 * on a list the index does not make, e.g. personalised recommendations): a set, unordered.
 */
export async function indexKept<R extends BaseRecord>(def: IndexDef<R>, ids: readonly string[], excluded: IndexQuery['excluded']): Promise<Set<string>> {
  return keptOf(def, await current(def), ids, excluded);
}

/**
 * Every record's vector of the kind now (jobs: the rankings read the characters' and persons'
 * numbers): the compactor's vectors object of the current snapshot (one S3 GET), with the
 * deltas after it applied. Not kept between calls.
 */
export async function indexVectors<R extends BaseRecord>(def: IndexDef<R>): Promise<Map<string, Vector>> {
  for (let attempt = 1; ; attempt++) {
    const pointer = await readPointer(def.kind);
    let vectors: Map<string, Vector>;
    try {
      vectors = await loadVectors(def.kind, pointer);
    } catch (err) {
      // Deleted by the compaction after the next one, between the two reads: read the pointer again.
      if (!(err instanceof MissingVectors) || attempt >= 3) throw err;
      continue;
    }
    for (const d of (await readDeltas(def.kind, pointer?.seq ?? 0)).deltas) {
      if (d.vector) vectors.set(d.id, d.vector);
      else vectors.delete(d.id);
    }
    return vectors;
  }
}

/** Tests: forget every held copy (a function starting afresh). */
export function forgetIndexes(): void {
  held.clear();
}

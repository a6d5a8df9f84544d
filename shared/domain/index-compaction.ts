/**
 * The compactor of the in-memory index (issue 19; docs/in-memory-index.md, decisions O1–): folds
 * a kind's deltas (shared/db/index-deltas.ts) into its next snapshot.
 *
 * A snapshot is two objects of the index bucket (shared/storage/index-objects.ts) under a name
 * of their own (`<version>-<new id>`): `snapshot` (shared/search/snapshot.ts, what the list
 * functions load) and `vectors` (every record's vector as JSON, gzipped: what the next
 * compaction starts from, since a snapshot cannot give its words' texts back). A compaction:
 *  1. reads the pointer (version v, folding deltas up to s_v) and the deltas after s_v;
 *  2. loads v's vectors (none before the first snapshot: an empty kind), replaces each changed
 *     record's vector by its last delta's (a deletion drops it) and applies `patch` (the rankings
 *     job's new numbers, published this way instead of as deltas);
 *  3. writes both objects of version v + 1, then moves the pointer from v to them — conditioned
 *     on v, so of two compactions at once one wins and the other deletes what it wrote;
 *  4. deletes what the previous snapshot (v − 1) folded or was: the deltas up to s_{v−1} and its
 *     objects. One snapshot later, so a function that read the pointer just before it moved
 *     still finds v's objects and the deltas after s_v.
 * Deltas written meanwhile are numbered after what it read: the next compaction folds them, and
 * readers read them after the new pointer. Idempotent and safe to run at any time.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import type { IndexDef, Vector } from '../db/catalogue-index.js';
import { deleteDeltas, indexKeys, movePointer, PointerMoved, readDeltas, readPointer, type IndexPointer } from '../db/index-deltas.js';
import { grant, type KeyGrants } from '../db/key-patterns.js';
import { INDEXED_KINDS } from './index-kinds.js';
import type { BaseRecord } from '../db/records.js';
import { canonicalJson } from '../json.js';
import { buildSnapshot, packSnapshot } from '../search/snapshot.js';
import { deleteIndexObjects, getIndexObject, indexObjectKey, indexVersionName, putIndexObject } from '../storage/index-objects.js';

/** A kind's deltas are folded at every COMPACT_EVERY-th (the stream trigger), and by the scheduled job between. */
export const COMPACT_EVERY = 256;

/**
 * What a compaction of `kinds` does to the table: reads the pointer (GetItem) and the deltas
 * (Query), moves the pointer (PutItem) and deletes folded deltas (Query of their keys,
 * BatchWriteItem).
 */
export const compactionKeys = (kinds: readonly string[]): KeyGrants => grant(indexKeys(kinds), 'GetItem', 'Query', 'PutItem', 'BatchWriteItem');
/** A compaction of any kind (the compactors). */
export const COMPACTION_KEYS = compactionKeys(INDEXED_KINDS);

/** The vectors object: every record's vector, and the last delta they fold. */
interface VectorsFile {
  kind: string;
  seq: number;
  vectors: Vector[];
  /**
   * Whether the vectors carry their entries (IndexDef.entry, `e`): true in every object this code
   * writes from vectors that do. Absent in the objects written before schema version 4
   * (decision O15), and in those compacted from them: their snapshots' entries are not known.
   */
  entries?: boolean;
}

/** New numbers for records (the rankings job): each replaces those values of the record's vector. */
export type VectorPatch = ReadonlyMap<string, Partial<Pick<Vector, 'o' | 'x'>>>;

export interface Compaction {
  kind: string;
  /** The version published (null: nothing to fold, or another compaction won). */
  version: number | null;
  /** Records in it, deltas folded, sizes of its objects (bytes, gzip). */
  records: number;
  folded: number;
  snapshotBytes: number;
  vectorsBytes: number;
  ms: number;
}

export const encodeVectors = (file: VectorsFile): Uint8Array => new Uint8Array(gzipSync(JSON.stringify(file)));
const decodeVectors = (gz: Uint8Array): VectorsFile => JSON.parse(gunzipSync(gz).toString('utf8')) as VectorsFile;

/** The vectors object a pointer names is gone: a newer pointer exists (its compaction's successor deleted it). */
export class MissingVectors extends Error {
  constructor(kind: string, pointer: IndexPointer) {
    super(`${kind}: the vectors of index version ${pointer.version} (${pointer.name}) are missing (gone for good: \`npm run migrate\` rebuilds the index from the records)`);
    this.name = 'MissingVectors';
  }
}

/** The vectors a pointer's snapshot holds (an empty kind without one), by id, and whether they carry their entries. */
async function readVectors(kind: string, pointer: IndexPointer | null): Promise<{ vectors: Map<string, Vector>; entries: boolean }> {
  if (!pointer) return { vectors: new Map(), entries: true };
  const gz = await getIndexObject(indexObjectKey(kind, pointer.name, 'vectors'));
  if (!gz) throw new MissingVectors(kind, pointer);
  const file = decodeVectors(gz);
  return { vectors: new Map(file.vectors.map((v) => [v.id, v])), entries: file.entries === true };
}

/** The vectors a pointer's snapshot holds (an empty kind without one), by id. */
export async function loadVectors(kind: string, pointer: IndexPointer | null): Promise<Map<string, Vector>> {
  return (await readVectors(kind, pointer)).vectors;
}

/** Whether the pointer's vectors with the deltas after it are exactly `vectors`, entries known (false when its objects are gone). */
async function sameAsCurrent<R extends BaseRecord>(def: IndexDef<R>, pointer: IndexPointer, vectors: ReadonlyMap<string, Vector>): Promise<boolean> {
  const kind = def.kind;
  let current: Map<string, Vector>;
  try {
    const file = await readVectors(kind, pointer);
    if (def.entry && !file.entries) return false;
    current = file.vectors;
  } catch (err) {
    if (err instanceof MissingVectors) return false;
    throw err;
  }
  for (const d of (await readDeltas(kind, pointer.seq)).deltas) {
    if (d.vector) current.set(d.id, d.vector);
    else current.delete(d.id);
  }
  if (current.size !== vectors.size) return false;
  for (const [id, v] of vectors) if (canonicalJson(current.get(id)) !== canonicalJson(v)) return false;
  return true;
}

/** A rebuild found deltas after its head deleted by a compaction meanwhile: scan the records again. */
export class RebuildRaced extends Error {
  constructor(kind: string) {
    super(`${kind}: a compaction deleted deltas a rebuild needed; rebuild again`);
    this.name = 'RebuildRaced';
  }
}

/**
 * Folds the kind's deltas into its next snapshot (see above). Without deltas and `patch`,
 * nothing is written unless `always` (a kind's first, empty snapshot).
 */
export async function compactIndex<R extends BaseRecord>(
  def: IndexDef<R>,
  opts: {
    patch?: VectorPatch;
    always?: boolean;
    /** The kind's records' vectors where it has no snapshot yet (a store's migration, a bulk load); deltas since are applied over them. Ignored once it has one, unless `rebuild`. */
    base?: readonly Vector[];
    /**
     * Start from `base` even when the kind has a snapshot (a migration, objects that are gone),
     * with the deltas after `rebuild.after` applied over it: the kind's head when the records
     * were about to be read, so every write the read may have missed is applied, in order (one
     * it saw too is applied again, to the same state or a later one). RebuildRaced when a
     * compaction deleted some of them meanwhile.
     */
    rebuild?: { after: number };
  } = {},
): Promise<Compaction> {
  const started = Date.now();
  const kind = def.kind;
  const pointer = await readPointer(kind);
  const fromBase = opts.base !== undefined && (!pointer || opts.rebuild !== undefined);
  const after = fromBase && opts.rebuild ? opts.rebuild.after : (pointer?.seq ?? 0);
  const { deltas } = await readDeltas(kind, after);
  if (fromBase && opts.rebuild && (deltas[0]?.seq ?? pointer?.seq ?? 0) > after + 1 && (pointer?.seq ?? 0) > after) throw new RebuildRaced(kind);
  const nothing: Compaction = { kind, version: null, records: 0, folded: 0, snapshotBytes: 0, vectorsBytes: 0, ms: 0 };
  const first = !pointer && (opts.always || opts.base !== undefined);
  if (deltas.length === 0 && !opts.patch && !first && !fromBase) return { ...nothing, ms: Date.now() - started };
  // Vectors read from the records carry their entries; those of an older vectors object may not (O15).
  const { vectors, entries } = fromBase || !pointer ? { vectors: new Map((opts.base ?? []).map((v) => [v.id, v])), entries: true } : await readVectors(kind, pointer);
  for (const d of deltas) {
    if (d.vector) vectors.set(d.id, d.vector);
    else vectors.delete(d.id);
  }
  for (const [id, p] of opts.patch ?? []) {
    const v = vectors.get(id);
    if (v) vectors.set(id, { ...v, o: { ...v.o, ...p.o }, x: { ...v.x, ...p.x } });
  }
  // A rebuild that gives what the current snapshot and its deltas hold writes nothing (a second run of a migration).
  if (fromBase && pointer && !opts.patch && (await sameAsCurrent(def, pointer, vectors))) return { ...nothing, ms: Date.now() - started };
  const seq = deltas.at(-1)?.seq ?? pointer?.seq ?? 0;
  const all = [...vectors.values()];
  const snapshot = packSnapshot(buildSnapshot(def, all, entries));
  const file = encodeVectors({ kind, seq, vectors: all, ...(entries ? { entries } : {}) });
  const version = (pointer?.version ?? 0) + 1;
  const next: IndexPointer = { version, seq, name: indexVersionName(version), at: new Date().toISOString(), ...(pointer ? { previous: { name: pointer.name, seq: pointer.seq } } : {}) };
  const keys = [indexObjectKey(kind, next.name, 'snapshot'), indexObjectKey(kind, next.name, 'vectors')];
  await Promise.all([putIndexObject(keys[0]!, snapshot), putIndexObject(keys[1]!, file)]);
  try {
    await movePointer(kind, pointer, next);
  } catch (err) {
    if (!(err instanceof PointerMoved)) throw err;
    await deleteIndexObjects(keys);
    return { ...nothing, ms: Date.now() - started };
  }
  if (pointer?.previous) {
    await deleteDeltas(kind, pointer.previous.seq);
    await deleteIndexObjects([indexObjectKey(kind, pointer.previous.name, 'snapshot'), indexObjectKey(kind, pointer.previous.name, 'vectors')]);
  }
  return { kind, version, records: all.length, folded: deltas.length, snapshotBytes: snapshot.length, vectorsBytes: file.length, ms: Date.now() - started };
}

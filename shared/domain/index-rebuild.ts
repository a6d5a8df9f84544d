/**
 * A title kind's index rebuilt from its records (issue 19; docs/decisions.md O9, O12): one Scan
 * of the table gives every record's vector, and each kind asked for gets a new snapshot from them
 * (index-compaction.ts compactIndex with `base` and `rebuild`: the deltas after its pointer, if
 * any, applied over them — a record written during the Scan shows its latest state). Used by the
 * migrations to schema versions 3 and 4 (store-v3.ts, store-v4.ts) and by `npm start` for a kind without a snapshot
 * (a first start's bulk import, which cannot reach the index bucket from its staging engine, or
 * a copied catalogue) or whose snapshot's objects are gone (infra/local/runtime.ts).
 */
import { getItems, type Item } from '../db/batch.js';
import { counterKeyOfKind } from '../db/records.js';
import { vectorOf, type Vector } from '../db/catalogue-index.js';
import { readHead, readPointer } from '../db/index-deltas.js';
import { scanTable } from '../db/migrations.js';
import { getIndexObject, indexObjectKey } from '../storage/index-objects.js';
import { compactIndex, RebuildRaced, type Compaction } from './index-compaction.js';
import { INDEXED, INDEXED_KINDS } from './index-kinds.js';

const RECORD = new RegExp(`^(${INDEXED_KINDS.join('|')})#[A-Za-z0-9_-]+$`);

/** The kind and vector of an item that is a record of an indexed kind (null: any other item). */
export function vectorOfItem(item: Item): [string, Vector] | null {
  const m = RECORD.exec(String(item.pk));
  return m && item.sk === 'R' && item.rec ? [m[1]!, vectorOf(INDEXED[m[1]!]!, item.rec as never)] : null;
}

/**
 * The kinds that have records but no snapshot (an empty kind needs none: its writes' deltas are
 * its index, and a bulk load publishes its first snapshot), or whose snapshot's object is gone.
 */
export async function indexesToRebuild(): Promise<string[]> {
  const out: string[] = [];
  const counters = await getItems(INDEXED_KINDS.map((k) => counterKeyOfKind(k)));
  for (const [i, kind] of INDEXED_KINDS.entries()) {
    const pointer = await readPointer(kind);
    if (pointer ? !(await getIndexObject(indexObjectKey(kind, pointer.name, 'vectors'))) : Number(counters[i]?.n ?? 0) > 0) out.push(kind);
  }
  return out;
}

/** Every record's vector of the indexed kinds, by kind (one Scan; `onPage`: the items read so far). */
export async function recordVectors(segments: number, onPage?: (scanned: number) => void): Promise<Map<string, Vector[]>> {
  const vectors = new Map<string, Vector[]>(INDEXED_KINDS.map((k) => [k, []]));
  let scanned = 0;
  await scanTable({
    segments,
    filter: { expression: 'sk = :r', values: { ':r': 'R' } },
    onPage: async (items, n) => {
      for (const item of items) {
        const found = vectorOfItem(item);
        if (found) vectors.get(found[0])!.push(found[1]);
      }
      scanned += n;
      onPage?.(scanned);
    },
  });
  return vectors;
}

/** New snapshots of `kinds` from their records (see above); scanned again when a compaction raced it. `onPage`: the items scanned so far. */
export async function rebuildIndexes(kinds: readonly string[], segments = 4, onPage?: (scanned: number) => void): Promise<Compaction[]> {
  if (kinds.length === 0) return [];
  for (let attempt = 1; ; attempt++) {
    const heads = await Promise.all(kinds.map((k) => readHead(k)));
    const vectors = await recordVectors(segments, onPage);
    try {
      const out: Compaction[] = [];
      for (const [i, kind] of kinds.entries()) out.push(await compactIndex(INDEXED[kind]!, { base: vectors.get(kind)!, rebuild: { after: heads[i]! } }));
      return out;
    } catch (err) {
      if (!(err instanceof RebuildRaced) || attempt >= 3) throw err;
    }
  }
}

/**
 * The migration to schema version 7 (issue 20; docs/decisions.md EX6): relevance and `fuzzy`
 * (API.md §8.4) compare what the vectors of version 6 lack — each searched field's runs (`sb`)
 * — and what its snapshots lack — the relevance words (snapshot format version 3). Every index
 * kind whose snapshot has no relevance words, or whose deltas after it hold a vector without
 * `sb`, is rebuilt from its records (index-rebuild.ts rebuildIndexes, decision O12: one Scan,
 * the deltas after the head as it was before applied over it). Until then its relevance and
 * fuzzy lists answer 503, never a wrong order (index-reader.ts); its other lists are unchanged.
 * Idempotent: a second run finds every index with its relevance words and rebuilds nothing.
 */
import { readDeltas, readPointer } from '../db/index-deltas.js';
import { unpackSnapshot } from '../search/snapshot.js';
import { getIndexObject, indexObjectKey } from '../storage/index-objects.js';
import { rebuildIndexes } from './index-rebuild.js';
import { INDEXED, INDEXED_KINDS } from './index-kinds.js';
import type { MigrationStep, StepContext, StepSummary } from './migrations.js';

/** Whether a kind's index lacks what relevance compares (see above). An empty kind before its first snapshot lacks nothing its deltas do not. */
export async function lacksRelevance(kind: string): Promise<boolean> {
  const pointer = await readPointer(kind);
  if (pointer) {
    const gz = await getIndexObject(indexObjectKey(kind, pointer.name, 'snapshot'));
    if (!gz || unpackSnapshot(INDEXED[kind]!, gz).relevance === null) return true;
  }
  const { deltas } = await readDeltas(kind, pointer?.seq ?? 0);
  return deltas.some((d) => d.vector !== null && !d.vector.sb);
}

async function run(ctx: StepContext): Promise<StepSummary> {
  const kinds: string[] = [];
  for (const kind of INDEXED_KINDS) if (await lacksRelevance(kind)) kinds.push(kind);
  const rebuilt = await rebuildIndexes(kinds, ctx.segments, (scanned) => ctx.progress({ phase: 'reading the records', done: scanned, total: null }));
  return { indexes: kinds.length, records: rebuilt.reduce((n, c) => n + c.records, 0) };
}

export const storeV7: MigrationStep = {
  from: 6,
  to: 7,
  title: "the title indexes rebuilt from the records with what relevance and fuzzy search compare (each searched field's words)",
  run,
};

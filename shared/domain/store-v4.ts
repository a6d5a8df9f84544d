/**
 * The migration to schema version 4 (issue 19; docs/decisions.md O15): the schedule is served from
 * the anime index, whose vectors now carry each airing anime's entry (IndexDef.entry), instead of
 * its digest items.
 *  - The anime index is rebuilt from the records (index-rebuild.ts rebuildIndexes, decision O12:
 *    one Scan, the deltas after the head as it was before applied over it): the snapshot and the
 *    vectors that version 3 published lack the entries, so the schedule answers 503 until this
 *    step has run (index-reader.ts indexEntries);
 *  - the schedule's digest partition (`ANIME#D#schedule`, one item per airing anime) is deleted.
 * Idempotent: a second run finds the index as the records give it (nothing published) and no
 * digest item; a run stopped anywhere and run again ends as one run would. A compaction that
 * deletes deltas the rebuild needs is scanned again (up to 3 times), as at `npm start`.
 */
import { animeIndex } from '../db/animes.js';
import { deletePartition, SCHEDULE_DIGEST_PK } from '../db/migrations.js';
import { rebuildIndexes } from './index-rebuild.js';
import type { MigrationStep, StepContext, StepSummary } from './migrations.js';

async function run(ctx: StepContext): Promise<StepSummary> {
  const [anime] = await rebuildIndexes([animeIndex.kind], ctx.segments, (scanned) => ctx.progress({ phase: 'reading the records', done: scanned, total: null }));
  ctx.progress({ phase: "deleting the schedule's digest", done: 0, total: null });
  const deleted = await deletePartition(SCHEDULE_DIGEST_PK);
  return { records: anime!.records, snapshots: anime!.version === null ? 0 : 1, deleted };
}

export const storeV4: MigrationStep = {
  from: 3,
  to: 4,
  title: "the schedule from the anime index: its snapshot rebuilt from the records with the airing animes' entries; the schedule's digest deleted",
  run,
};

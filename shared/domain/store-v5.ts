/**
 * The migration to schema version 5 (issue 19; docs/decisions.md O17): `GET /api/persons/{id}/voices/`
 * reads a person's voice groups and orders them in memory by the anime and character indexes, and
 * counts them, so the items versions 2–4 kept for it are deleted: every voice entry's six ordering
 * items (`PERSON#<p>#V#…`) and the persons' voice counts (`VN`, `VC#<c>`) — 6 items per voice
 * credit and one per (person, character), most of a catalogue's items. One Scan of the table with a
 * filter, each page's matches deleted as it comes. The voice groups stay as they are (the hash
 * `h` that guarded the counts' transactions is no longer read; a title's next reconcile writes
 * its groups without it).
 * Idempotent: a second run finds nothing to delete; a run stopped anywhere and run again ends as
 * one run would. The code of version 5 neither reads nor writes these items, so it serves
 * `voices/` before the step has run, too.
 */
import { writeItems, type ItemKey } from '../db/batch.js';
import { scanTable, VOICE_ITEMS_V4 } from '../db/migrations.js';
import type { MigrationStep, StepContext, StepSummary } from './migrations.js';

async function run(ctx: StepContext): Promise<StepSummary> {
  let scanned = 0;
  let deleted = 0;
  await scanTable({
    segments: ctx.segments,
    filter: VOICE_ITEMS_V4.filter,
    onPage: async (items, n) => {
      const keys: ItemKey[] = items.filter(VOICE_ITEMS_V4.test).map((i) => ({ pk: String(i.pk), sk: String(i.sk) }));
      await writeItems([], keys);
      scanned += n;
      deleted += keys.length;
      ctx.progress({ phase: "deleting voices/' ordering entries and counts", done: scanned, total: null });
    },
  });
  return { deleted };
}

export const storeV5: MigrationStep = {
  from: 4,
  to: 5,
  title: "voices/ ordered by the indexes: the voice entries' ordering items and the persons' voice counts deleted",
  run,
};

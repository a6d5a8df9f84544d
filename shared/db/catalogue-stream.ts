/**
 * What the catalogue stream consumer keeps in step (functions/streams/catalogue.ts), decided
 * per changed item:
 *  - a taxonomy record whose counts a title's write changed (genres, themes, demographics,
 *    magazines, producers) → its ordering entries move to the new counts (reorderPlan), so
 *    the `anime_count`/`manga_count` orderings follow within seconds; the counts shown are
 *    read from the records themselves and are exact at once (shared/http/crud.ts);
 *  - a taxonomy record deleted → every ordering entry of its last image goes. The deletion's
 *    own transaction removed the entries of the record as it was then, but a count change still
 *    in the stream before the REMOVE is applied after it and writes the entries of its image
 *    again; the REMOVE comes after every change of the item, so it leaves none (decision Z4).
 * (The titles' list sizes it kept for the planner went with the planner: issue 19, decision O7.)
 */
import type { Item } from './batch.js';
import { send } from './client.js';
import { grant } from './key-patterns.js';
import { reorderPlan, unorderPlan, type BaseRecord, type EntityDef } from './records.js';
import { demographicEntity, genreEntity, magazineEntity, producerEntity, themeEntity } from './taxonomy.js';

const COUNTED: EntityDef<BaseRecord>[] = [genreEntity, themeEntity, demographicEntity, magazineEntity, producerEntity] as never;

export const CATALOGUE_STREAM = {
  /** Partition-key prefixes of the items the consumer is given. */
  prefixes: COUNTED.map((e) => `${e.kind}#`),
  /** What it writes, reading nothing: taxonomy ordering entries (put and deleted as they move). */
  keys: grant(COUNTED.map((e) => `${e.kind}#O#*`), 'PutItem', 'DeleteItem'),
};

/** Applies one changed item (old and new images; either may be absent). */
export async function applyCatalogueChange(keys: Item, before: Item | undefined, after: Item | undefined): Promise<void> {
  const pk = String(keys.pk);
  const entity = COUNTED.find((e) => pk.startsWith(`${e.kind}#`) && keys.sk === 'R' && pk.split('#').length === 2);
  if (!entity || !before?.rec) return;
  const ops = after?.rec ? reorderPlan(entity, before.rec as BaseRecord, after.rec as BaseRecord) : unorderPlan(entity, before.rec as BaseRecord);
  for (let i = 0; i < ops.length; i += 100) await send((c) => new c.TransactWriteCommand({ TransactItems: ops.slice(i, i + 100) as never }));
}

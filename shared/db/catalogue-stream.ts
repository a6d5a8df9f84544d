/**
 * What the catalogue stream consumer keeps in step (functions/streams/catalogue.ts), decided
 * per changed item:
 *  - a posting of the catalogue index written or removed → its list's size item ±1, and the
 *    same for the descending entries of a range number's ordering → its bucket's size (sizes are
 *    the planner's hints, catalogue-index.ts; a redelivered record may count twice, which costs a
 *    query plan, never a wrong result);
 *  - a taxonomy record whose counts a title's write changed (genres, themes, demographics,
 *    magazines, producers) → its ordering entries move to the new counts (reorderPlan), so
 *    the `anime_count`/`manga_count` orderings follow within seconds; the counts shown are
 *    read from the records themselves and are exact at once (shared/http/crud.ts);
 *  - a taxonomy record deleted → every ordering entry of its last image goes. The deletion's
 *    own transaction removed the entries of the record as it was then, but a count change still
 *    in the stream before the REMOVE is applied after it and writes the entries of its image
 *    again; the REMOVE comes after every change of the item, so it leaves none (decision Z4).
 */
import { animeIndex } from './animes.js';
import { characterIndex } from './characters.js';
import { personIndex } from './persons.js';
import type { Item, ItemKey } from './batch.js';
import { countedPrefixes, indexKeys, sizeKeyOf, type IndexDef } from './catalogue-index.js';
import { send, tableName } from './client.js';
import { grant, grants } from './key-patterns.js';
import { mangaIndex } from './mangas.js';
import { newsIndex } from './news.js';
import { reorderPlan, unorderPlan, type BaseRecord, type EntityDef } from './records.js';
import { demographicEntity, genreEntity, magazineEntity, producerEntity, themeEntity } from './taxonomy.js';

const INDEXED: IndexDef<BaseRecord>[] = [animeIndex, mangaIndex, characterIndex, personIndex, newsIndex] as never;
const COUNTED: EntityDef<BaseRecord>[] = [genreEntity, themeEntity, demographicEntity, magazineEntity, producerEntity] as never;

export const CATALOGUE_STREAM = {
  /** Partition-key prefixes of the items the consumer is given. */
  prefixes: [...INDEXED.flatMap((d) => countedPrefixes(d)), ...COUNTED.map((e) => `${e.kind}#`)],
  /** What it writes, reading nothing: list sizes (an UpdateItem that adds), taxonomy ordering entries (put and deleted as they move). */
  keys: grants(
    grant(INDEXED.map((d) => indexKeys(d).find((k) => k.includes('#L#'))!), 'UpdateItem'),
    grant(COUNTED.map((e) => `${e.kind}#O#*`), 'PutItem', 'DeleteItem'),
  ),
};

/** The size item an index item of any indexed entity counts towards (catalogue-index.ts sizeKeyOf). */
export function sizeKeyOfItem(item: Item): ItemKey | null {
  const kind = String(item.pk).split('#')[0];
  const def = INDEXED.find((d) => d.kind === kind);
  return def ? sizeKeyOf(def, item) : null;
}

/** Applies one changed item (old and new images; either may be absent). */
export async function applyCatalogueChange(keys: Item, before: Item | undefined, after: Item | undefined): Promise<void> {
  const pk = String(keys.pk);
  // An item a size counts, written (no old image) or removed (no new image); a rewrite changes no size.
  const d = !before && after ? 1 : before && !after ? -1 : 0;
  const size = sizeKeyOfItem((after ?? before ?? keys) as Item);
  if (size) {
    if (d !== 0) {
      await send((c) => new c.UpdateCommand({ TableName: tableName(), Key: size, UpdateExpression: 'ADD n :d', ExpressionAttributeValues: { ':d': d } }));
    }
    return;
  }
  const entity = COUNTED.find((e) => pk.startsWith(`${e.kind}#`) && keys.sk === 'R' && pk.split('#').length === 2);
  if (!entity || !before?.rec) return;
  const ops = after?.rec ? reorderPlan(entity, before.rec as BaseRecord, after.rec as BaseRecord) : unorderPlan(entity, before.rec as BaseRecord);
  for (let i = 0; i < ops.length; i += 100) await send((c) => new c.TransactWriteCommand({ TransactItems: ops.slice(i, i + 100) as never }));
}

/**
 * Links from a catalogue source's items to the titles they became (docs/data-model.md "Imported
 * titles"): a refresh finds the title of an item here and updates it instead of adding it again,
 * and an item whose title a contributor deleted is never added again (its link stays).
 *
 *   source link   pk = SOURCE#<source>#<item key>   sk = L   { id: the anime's id }
 *
 * A link is put in the transaction that creates its title, conditioned on not existing, so two
 * imports that add the same item at once make one title.
 */
import type { ItemKey } from './batch.js';
import { getItems, type Item } from './batch.js';
import type { KeyPattern } from './key-patterns.js';
import { put, type WritePlan } from './records.js';

export const SOURCE_KEYS: KeyPattern = 'SOURCE#*';

const linkKey = (source: string, key: string): ItemKey => ({ pk: `SOURCE#${source}#${key}`, sk: 'L' });

/** The link item of an item's title (for a bulk load, which writes items without conditions). */
export const sourceLinkItem = (source: string, key: string, id: string): Item => ({ ...linkKey(source, key), id });

/** The link of a new title, in its creation's transaction: fails (StaleRecord) when another import linked the item first. */
export const sourceLinkPlan = (source: string, key: string, id: string): WritePlan => ({
  items: [put(sourceLinkItem(source, key, id), { expression: 'attribute_not_exists(pk)' })],
  meanings: [{ what: 'record', kind: 'SOURCE' }],
});

/** The title ids of the linked items among `keys` (BatchGetItem, 100 keys per call, in parallel). */
export async function sourceLinks(source: string, keys: readonly string[]): Promise<Map<string, string>> {
  const items = await getItems(keys.map((k) => linkKey(source, k)));
  const out = new Map<string, string>();
  items.forEach((item, i) => {
    if (item) out.set(keys[i]!, String(item.id));
  });
  return out;
}

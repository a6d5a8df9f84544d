/**
 * The reverse side of the relations written on animes and mangas (API.md §1.8 "Relations and
 * their freshness"): items in the partition of the record an entry names, kept by the catalogue
 * stream consumer from the title's current state (shared/domain/reverse-views.ts says what each
 * holds; docs/data-model.md "Reverse views").
 *
 *   reverse item   pk = <TARGET>#<id>#X    sk = <what>#<source id>[#…]    { v: <view entry> }
 *   fan-out        pk = <SOURCE>#<id>#F    sk = <n>                       { keys: [[pk, sk, hash]…] }
 *
 * A title's fan-out lists the reverse items last written for it (with a hash of each), so that
 * reconciling a title with its current state writes only what changed and deletes what it no
 * longer names — whatever the order and number of the stream records that asked for it.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../json.js';
import { queryAll, writeItems, type Item, type ItemKey } from './batch.js';
import { chunk } from './titles.js';
import { CASCADE_KEYS } from './cascades.js';
import { grant, grants, type KeyGrants } from './key-patterns.js';
import { TOMBSTONE_KEYS } from './tombstones.js';

export const reversePk = (kind: string, id: string) => `${kind}#${id}#X`;
const fanOutPk = (kind: string, id: string) => `${kind}#${id}#F`;

export interface ReverseItem {
  pk: string;
  sk: string;
  /** The entry the target's views show (or sort by). */
  v: Record<string, unknown>;
}

const hashOf = (v: unknown) => createHash('sha256').update(canonicalJson(v)).digest('base64url').slice(0, 12);
const keyOf = (pk: string, sk: string) => `${pk}\u0000${sk}`;

/** The reverse items of a target, optionally only those whose sort key starts with `prefix`. */
export async function readReverse(kind: string, id: string, prefix?: string): Promise<ReverseItem[]> {
  return (await queryAll(reversePk(kind, id), prefix)) as unknown as ReverseItem[];
}

/**
 * Makes the reverse items of a title (`kind`, `id`) equal to `desired` (empty: the title is
 * gone): puts the new and changed ones, deletes those no longer named, then records the new
 * fan-out. Idempotent. With `force`, every desired item is written whatever the fan-out says.
 * Returns the keys of the items written or deleted.
 */
export async function reconcileReverse(kind: string, id: string, desired: readonly ReverseItem[], force = false): Promise<{ changed: ItemKey[] }> {
  const fanItems = await queryAll(fanOutPk(kind, id));
  const old = new Map<string, { pk: string; sk: string; hash: string }>();
  for (const f of fanItems) for (const [pk, sk, hash] of f.keys as [string, string, string][]) old.set(keyOf(pk, sk), { pk, sk, hash });
  const now = new Map(desired.map((d) => [keyOf(d.pk, d.sk), { item: d, hash: hashOf(d.v) }]));
  const puts: Item[] = [];
  const deletes: ItemKey[] = [];
  for (const [k, { item, hash }] of now) if (force || old.get(k)?.hash !== hash) puts.push({ pk: item.pk, sk: item.sk, v: item.v });
  for (const [k, o] of old) if (!now.has(k)) deletes.push({ pk: o.pk, sk: o.sk });
  await writeItems(puts, deletes);
  const fanPuts = fanOutItems(kind, id, desired);
  const fanDeletes = fanItems.slice(fanPuts.length).map((f) => ({ pk: String(f.pk), sk: String(f.sk) }));
  // Unchanged fan-out items are written again only when the list changed.
  if (puts.length > 0 || deletes.length > 0 || fanItems.length !== fanPuts.length) await writeItems(fanPuts, fanDeletes);
  return { changed: [...puts.map((p) => ({ pk: String(p.pk), sk: String(p.sk) })), ...deletes] };
}

/** The fan-out items recording `desired` as the reverse items written for a title (none when it has none). */
export function fanOutItems(kind: string, id: string, desired: readonly ReverseItem[]): Item[] {
  const entries = desired.map((d) => [d.pk, d.sk, hashOf(d.v)]);
  return entries.length === 0 ? [] : chunk(entries).map((keys, n) => ({ pk: fanOutPk(kind, id), sk: String(n), keys }));
}

/** Removes every reverse item of a target (the target is deleted; its views went with it). */
export async function dropReverse(kind: string, id: string): Promise<ReverseItem[]> {
  const items = await readReverse(kind, id);
  await writeItems([], items.map((i) => ({ pk: i.pk, sk: i.sk })));
  return items;
}

const CATALOGUE_KINDS = ['ANIME', 'MANGA', 'CHARACTER', 'PERSON', 'GENRE', 'THEME', 'PRODUCER', 'DEMOGRAPHIC', 'MAGAZINE'];
/**
 * Kinds whose record changes the relations consumer follows (its stream filter): the catalogue's,
 * news (journals left behind) and user accounts (a deleted account's news articles lose their author).
 */
export const EFFECT_KINDS = [...CATALOGUE_KINDS, 'NEWS', 'USER', 'REVIEW', 'CASCADE'];
/**
 * What the relations consumer reads and writes (key-patterns.ts), never users' records: the
 * titles and news (rewritten as a title write does, shared/domain/title-writes.ts; their reverse
 * views reconciled in batches; the users listing a title), the taxonomy records (read, their
 * counts updated), the users' lists (items changed or removed in list transactions, their titles'
 * counters with them) and reviews (removed with their votes, in transactions and batches), its
 * cascades' progress items, and the tombstones (read, cleared).
 */
export const RELATION_KEYS: KeyGrants = grants(
  grant(['ANIME#*', 'MANGA#*', 'CHARACTER#*', 'PERSON#*', 'NEWS#*'], 'GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'),
  grant(['GENRE#*', 'THEME#*', 'PRODUCER#*', 'DEMOGRAPHIC#*', 'MAGAZINE#*'], 'BatchGetItem', 'UpdateItem'),
  grant(['ANIMELIST#*', 'MANGALIST#*'], 'GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'),
  grant('REVIEW#*', 'BatchGetItem', 'Query', 'PutItem', 'DeleteItem', 'BatchWriteItem'),
  grant('REVIEWS#*', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'),
  grant(CASCADE_KEYS, 'PutItem', 'DeleteItem'),
  grant(TOMBSTONE_KEYS, 'BatchGetItem', 'UpdateItem'),
);

/**
 * Storage of the users' anime and manga lists (API.md §3.11, §4.10; docs/data-model.md
 * "Playlists"). For a list kind K (`ANIMELIST`, `MANGALIST`) and a user U:
 *
 *   list           pk = K#U      sk = R              { rec, rev, n_<status> }   counts: `ADD`, created by the first use
 *   item           pk = K#U      sk = I#<item id>    { rec, rev }
 *   claim          pk = K#U      sk = T#<title id>   { id: item id }            one item per title (409 existing_id)
 *   vector         pk = K#U#V    sk = <item id>      the item's index vector    the page reads them whole
 *   listed         pk = T#<title id>#L  sk = U       { item, score, fav }       who lists a title (T: ANIME, MANGA), for cascades and jobs
 *
 * A list edit is one transaction: the item and what derives from it — its vector, the claim,
 * the list's counts and the title's counters (`st_*` of its record item, titles.ts) — so every
 * number is exact when the request returns. Concurrent edits of one title conflict on its
 * record item and are retried (commitContended).
 */
import type { ItemRecord, ListRecord, PlaylistKind } from '../domain/playlists.js';
import { itemIndex } from '../domain/playlists.js';
import { getItems, queryAll, type Item, type ItemKey } from './batch.js';
import { vectorOf, type Vector } from './catalogue-index.js';
import { send, tableName } from './client.js';
import type { KeyPattern } from './key-patterns.js';
import { del, put, recordKeyOfKind, type Meaning, type WritePlan } from './records.js';
import { scoreKey, statAttribute } from './titles.js';
import type { Deleted } from './tombstones.js';

const listPk = (kind: PlaylistKind, userId: string) => `${kind.store}#${userId}`;
export const listKey = (kind: PlaylistKind, userId: string): ItemKey => ({ pk: listPk(kind, userId), sk: 'R' });
export const itemKey = (kind: PlaylistKind, userId: string, itemId: string): ItemKey => ({ pk: listPk(kind, userId), sk: `I#${itemId}` });
const claimKey = (kind: PlaylistKind, userId: string, titleId: string): ItemKey => ({ pk: listPk(kind, userId), sk: `T#${titleId}` });
const vectorPk = (kind: PlaylistKind, userId: string) => `${listPk(kind, userId)}#V`;
const listedKey = (kind: PlaylistKind, titleId: string, userId: string): ItemKey => ({ pk: `${kind.titleKind}#${titleId}#L`, sk: userId });
const countAttribute = (status: string) => `n_${status}`;

/** The title postings of who lists what (`<KIND>#<title id>#L`). */
export const listedKeys = (kind: PlaylistKind): KeyPattern => listedKey(kind, '*', '').pk;
/** The lists' own partitions (the list record with its counts, and its items). */
export const listPartitionKeys = (kind: PlaylistKind): KeyPattern => `${kind.store}#*`;
/** The title record items whose counters a list edit changes. */
export const titleCounterKeys = (kind: PlaylistKind): KeyPattern => `${kind.titleKind}#*`;

export interface StoredList {
  record: ListRecord;
  rev: number;
  /** Items per status. */
  counts: Record<string, number>;
}

export interface StoredItem {
  record: ItemRecord;
  rev: number;
}

function listOf(kind: PlaylistKind, item: Item): StoredList {
  return {
    record: item.rec as ListRecord,
    rev: Number(item.rev),
    counts: Object.fromEntries(kind.statuses.map((s) => [s, Number(item[countAttribute(s)] ?? 0)])),
  };
}

/** The list item as read (`null`: none), or the stored item of an item key's item. */
export const storedList = (kind: PlaylistKind, item: Item | null | undefined): StoredList | null => (item ? listOf(kind, item) : null);
export const storedItem = (item: Item | null | undefined): StoredItem | null => (item ? { record: item.rec as ItemRecord, rev: Number(item.rev) } : null);

/** The caller's list, created (blank) if it does not exist yet: one UpdateItem that keeps an existing one. */
export async function ensureList(kind: PlaylistKind, userId: string, blank: ListRecord): Promise<StoredList> {
  const out = await send((c) =>
    new c.UpdateCommand({
      TableName: tableName(),
      Key: listKey(kind, userId),
      UpdateExpression: 'SET #rec = if_not_exists(#rec, :rec), #rev = if_not_exists(#rev, :one)',
      ExpressionAttributeNames: { '#rec': 'rec', '#rev': 'rev' },
      ExpressionAttributeValues: { ':rec': blank, ':one': 1 },
      ReturnValues: 'ALL_NEW',
    }),
  );
  return listOf(kind, out.Attributes!);
}

export async function getList(kind: PlaylistKind, userId: string): Promise<StoredList | null> {
  const out = await send((c) => new c.GetCommand({ TableName: tableName(), Key: listKey(kind, userId), ConsistentRead: true }));
  return storedList(kind, out.Item);
}

/**
 * A list's counts without the items of titles deleted since (API.md §5.1: a deleted title's items
 * leave their owners' counts at once; docs/decisions.md V1). `counts` are the list item's, read
 * with (or after) `deleted`, a tombstone shard. The relations consumer's cascade removes such an
 * item and takes it out of the counts in one transaction, with its claim; so:
 *  - no title of the kind pending: the counts as read (the usual case, no further call);
 *  - none of the pending titles claimed on this list now: the list read again — read after the
 *    claims, its counts hold none of them (a claim never comes back: a deleted title cannot be
 *    listed again), even if a cascade ran between the first read and the claims';
 *  - some still claimed: counted from the list's vectors, leaving out the pending titles' (the
 *    vectors go in the same transactions as the counts, so nothing is subtracted twice).
 */
export async function countsWithoutDeleted(kind: PlaylistKind, userId: string, counts: Record<string, number>, deleted: Deleted): Promise<Record<string, number>> {
  const pending = deleted.ids(kind.titleKind);
  if (pending.length === 0) return counts;
  const claims = await getItems(pending.map((titleId) => claimKey(kind, userId, titleId)));
  if (claims.every((c) => c === null)) return (await getList(kind, userId))?.counts ?? counts;
  const live: Record<string, number> = Object.fromEntries(kind.statuses.map((s) => [s, 0]));
  for (const v of await listVectors(kind, userId)) {
    const status = v.f.status?.[0];
    if (status !== undefined && !deleted.has(kind.titleKind, v.f.title?.[0] ?? '')) live[status] = (live[status] ?? 0) + 1;
  }
  return live;
}

/** A list's new fields, at the revision read (its counts are not touched). */
export function listUpdatePlan(kind: PlaylistKind, userId: string, stored: StoredList, after: ListRecord): WritePlan {
  return {
    items: [
      {
        Update: {
          TableName: tableName(),
          Key: listKey(kind, userId),
          UpdateExpression: 'SET #rec = :rec, #rev = :next',
          ConditionExpression: '#rev = :rev',
          ExpressionAttributeNames: { '#rec': 'rec', '#rev': 'rev' },
          ExpressionAttributeValues: { ':rec': after, ':rev': stored.rev, ':next': stored.rev + 1 },
        },
      },
    ],
    meanings: [{ what: 'record', kind: kind.store }],
  };
}

/** Every item vector of a user's list (one Query per MB: about 5,000 items). */
export async function listVectors(kind: PlaylistKind, userId: string): Promise<Vector[]> {
  return (await queryAll(vectorPk(kind, userId))) as unknown as Vector[];
}

/** The counted facts of an item: its status, its score (1–10, 0 = none) and whether it is a favourite. */
interface Counted {
  status: string;
  score: number;
  favorite: boolean;
}
const counted = (r: ItemRecord): Counted => ({ status: r.status as string, score: r.score as number, favorite: r.is_favorite === true });

/** The additions to a title's counters and a list's counts for an item going from `before` to `after` (null: none). */
function deltas(before: Counted | null, after: Counted | null) {
  const title = new Map<string, number>();
  const list = new Map<string, number>();
  const add = (m: Map<string, number>, k: string, d: number) => m.set(k, (m.get(k) ?? 0) + d);
  for (const [c, d] of [
    [before, -1],
    [after, 1],
  ] as const) {
    if (!c) continue;
    add(title, c.status, d);
    add(list, c.status, d);
    if (c.score >= 1) add(title, scoreKey(c.score), d);
    if (c.favorite) add(title, 'favorites', d);
  }
  const changed = (m: Map<string, number>) => [...m].filter(([, d]) => d !== 0);
  return { title: changed(title), list: changed(list) };
}

/** `ADD` of counters to an item: `SET`-free, so it creates the attributes (and, for the list, the item). */
function addCounters(key: ItemKey, counters: [string, number][], attribute: (k: string) => string, extra: { set?: Record<string, unknown>; condition?: string } = {}): object {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const adds = counters.map(([k, d], i) => {
    names[`#c${i}`] = attribute(k);
    values[`:c${i}`] = d;
    return `#c${i} :c${i}`;
  });
  const sets = Object.entries(extra.set ?? {}).map(([k, v], i) => {
    names[`#s${i}`] = k;
    values[`:s${i}`] = v;
    return `#s${i} = if_not_exists(#s${i}, :s${i})`;
  });
  if (extra.condition) names['#pk'] = 'pk';
  return {
    Update: {
      TableName: tableName(),
      Key: key,
      UpdateExpression: [sets.length ? `SET ${sets.join(', ')}` : '', adds.length ? `ADD ${adds.join(', ')}` : ''].filter(Boolean).join(' '),
      ...(extra.condition ? { ConditionExpression: extra.condition } : {}),
      ExpressionAttributeNames: names,
      ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
    },
  };
}

export interface ItemChange {
  kind: PlaylistKind;
  userId: string;
  /** The stored item (null: a creation). */
  before: StoredItem | null;
  /** The new item (null: a deletion). */
  after: ItemRecord | null;
  /** The list as a first use creates it (a creation may be the list's first use). */
  blank: ListRecord;
  /** What a missing title means (its record gone: the title was deleted). */
  titleGone: Meaning;
  /** Leave the title's counters alone (it was deleted: its record is gone). */
  withoutTitle?: boolean;
}

/**
 * The transaction of an item's creation, change or deletion: the item (at its revision), its
 * vector, its claim and the title's `listed` posting (creation, deletion), the list's counts and
 * the title's counters (what changed; the title's record must exist).
 */
export function itemPlan(c: ItemChange): WritePlan {
  const { kind, userId, before, after } = c;
  const record = (after ?? before!.record) as ItemRecord;
  const titleId = record[kind.idField] as string;
  const entries: [object, Meaning][] = [];
  const key = itemKey(kind, userId, record.id);
  const atRev: Meaning = { what: 'record', kind: kind.store };
  if (after) {
    const item = { ...key, rec: after, rev: before ? before.rev + 1 : 1 };
    entries.push([before ? put(item, { expression: '#rev = :rev', names: { '#rev': 'rev' }, values: { ':rev': before.rev } }) : put(item, { expression: 'attribute_not_exists(pk)' }), atRev]);
    entries.push([put({ pk: vectorPk(kind, userId), sk: after.id, ...vectorOf(itemIndex(kind), after) }), null]);
  } else {
    entries.push([del(key, { expression: '#rev = :rev', names: { '#rev': 'rev' }, values: { ':rev': before!.rev } }), atRev]);
    entries.push([del({ pk: vectorPk(kind, userId), sk: record.id }), null]);
  }
  if (!before) {
    entries.push([put({ ...claimKey(kind, userId, titleId), id: record.id }, { expression: 'attribute_not_exists(pk)' }), { what: 'unique', field: kind.idField, message: `This ${kind.titleKind.toLowerCase()} is already on the list.` }]);
  }
  // The posting carries what the rankings and recommendations jobs read (favourite, score): put
  // by a creation and by every change of either.
  if (after && (!before || before.record.score !== after.score || before.record.is_favorite !== after.is_favorite)) {
    entries.push([put({ ...listedKey(kind, titleId, userId), item: record.id, score: after.score, fav: after.is_favorite }), null]);
  }
  if (!after) {
    entries.push([del(claimKey(kind, userId, titleId)), null]);
    entries.push([del(listedKey(kind, titleId, userId)), null]);
  }
  const d = deltas(before ? counted(before.record) : null, after ? counted(after) : null);
  // A creation makes the list if it is the first use (the counts' ADD creates the item).
  if (d.list.length > 0 || !before) entries.push([addCounters(listKey(kind, userId), d.list, countAttribute, { set: { rec: c.blank, rev: 1 } }), null]);
  if (d.title.length > 0 && !c.withoutTitle) {
    entries.push([addCounters(recordKeyOfKind(kind.titleKind, titleId), d.title, statAttribute, { condition: 'attribute_exists(#pk)' }), c.titleGone]);
  }
  return { items: entries.map((e) => e[0]), meanings: entries.map((e) => e[1]) };
}

/**
 * A title's record item as the creation of `item` leaves its counters (itemPlan adds to them):
 * the card of the creation's answer, known before its transaction (API.md §8.7 stores it there).
 */
export function titleWithItem(kind: PlaylistKind, title: Item, item: ItemRecord): Item {
  const out: Item = { ...title };
  for (const [k, d] of deltas(null, counted(item)).title) out[statAttribute(k)] = Number(out[statAttribute(k)] ?? 0) + d;
  return out;
}

// ---- What the relations consumer reads for cascades

/** The users listing a title (a page of them, at most `limit`, after the user `after`), with their item ids, scores and favourites. */
export async function listingUsers(kind: PlaylistKind, titleId: string, limit: number, after?: string): Promise<{ userId: string; itemId: string; score: number; fav: boolean }[]> {
  const pk = listedKey(kind, titleId, '').pk;
  const out = await send((c) =>
    new c.QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': 'pk' },
      ExpressionAttributeValues: { ':pk': pk },
      ...(after === undefined ? {} : { ExclusiveStartKey: { pk, sk: after } }),
      Limit: limit,
      ConsistentRead: true,
    }),
  );
  return (out.Items ?? []).map((i) => ({ userId: String(i.sk), itemId: String(i.item), score: Number(i.score ?? 0), fav: i.fav === true }));
}

/**
 * The users listing a title with a score at least `least` (the recommendations job's "high"
 * items, API.md §5.4): every page of the title's listed postings, filtered by score.
 */
export async function usersScoring(kind: PlaylistKind, titleId: string, least: number): Promise<string[]> {
  const pk = listedKey(kind, titleId, '').pk;
  const users: string[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await send((c) =>
      new c.QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: '#pk = :pk',
        FilterExpression: '#score >= :least',
        ProjectionExpression: '#sk',
        ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk', '#score': 'score' },
        ExpressionAttributeValues: { ':pk': pk, ':least': least },
        ExclusiveStartKey: start,
      }),
    );
    for (const i of out.Items ?? []) users.push(String(i.sk));
    start = out.LastEvaluatedKey;
  } while (start);
  return users;
}

/** The stored items of a user's list (at most `limit`). */
export async function userItems(kind: PlaylistKind, userId: string, limit: number): Promise<StoredItem[]> {
  const out = await send((c) =>
    new c.QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :items)',
      ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk' },
      ExpressionAttributeValues: { ':pk': listPk(kind, userId), ':items': 'I#' },
      Limit: limit,
      ConsistentRead: true,
    }),
  );
  return (out.Items ?? []).map((i) => storedItem(i)!);
}

export async function getItem(kind: PlaylistKind, userId: string, itemId: string): Promise<StoredItem | null> {
  const out = await send((c) => new c.GetCommand({ TableName: tableName(), Key: itemKey(kind, userId, itemId), ConsistentRead: true }));
  return storedItem(out.Item);
}

/** A user's list record goes (its items are gone). */
export async function deleteList(kind: PlaylistKind, userId: string): Promise<void> {
  await send((c) => new c.DeleteCommand({ TableName: tableName(), Key: listKey(kind, userId) }));
}

/**
 * Stored files due for removal (API.md §4.9, §5.5: "removes stored files of deleted pictures").
 * An uploaded picture's file lives in object storage (shared/storage/pictures.ts), its record in
 * the table; the file must go once the record has gone, and only then. So the record's side
 * names the files in the table, in its own transactions:
 *
 *   files due   pk = FILE#GONE   sk = <due_at>#<id>   { keys, due_at }
 *
 *  - Whoever deletes Pictures that have uploaded files (a person's deletion, a `PUT`/`PATCH` of
 *    its `pictures` that drops some) adds their files to the same transaction (`goneFilesPlan`,
 *    due at once): the files are queued exactly when their records go. One item holds up to
 *    100 keys, so a person's 100 pictures cost one item of the transaction (DynamoDB allows 100
 *    items in all), not a hundred.
 *  - An upload stores its file before the transaction that appends the Picture, which may fail
 *    (the person deleted meanwhile, the 100-pictures cap, an outage). So it first puts an item
 *    due an hour later (`putUploadGuard`) and that transaction deletes it (`keepUploadPlan`):
 *    a file whose Picture was never written is removed like a deleted one.
 *
 * The cleanup job reads the items that are due, oldest first (`dueFiles`), deletes their files
 * from storage and then the item (`removeDueFiles`): a crash in between leaves the item and the
 * next run deletes the files again (deleting a missing object succeeds). One partition: uploads
 * and deletions are rare (60 uploads per user per hour, §7.2), far below its write limit
 * (docs/decisions.md 71).
 */
import { newId } from '../ids.js';
import { send, tableName } from './client.js';
import type { KeyPattern } from './key-patterns.js';
import { del, put, type WritePlan } from './records.js';

const DUE_PK = 'FILE#GONE';

/** Every item of this module (the files due for removal). */
export const FILE_KEYS: KeyPattern = DUE_PK;

/** How long an upload has to append its Picture before its file counts as unwanted. */
export const UPLOAD_GUARD_SECONDS = 3600;
/** Keys per item (a person has at most 100 pictures, API.md §4.9). */
export const KEYS_PER_ITEM = 100;

export interface DueFiles {
  /** The object keys of the files (e.g. `pictures/<person id>/<id>.png`). */
  keys: string[];
  due_at: string;
  /** The item's sort key. */
  sk: string;
}

const item = (keys: readonly string[], dueAt: Date) => {
  const due_at = dueAt.toISOString();
  return { pk: DUE_PK, sk: `${due_at}#${newId()}`, keys: [...keys], due_at };
};

/**
 * The items that queue deleted Pictures' files for removal (none for no file); commit them with
 * the deletion.
 */
export function goneFilesPlan(keys: readonly string[], now = new Date()): WritePlan {
  const items: object[] = [];
  for (let i = 0; i < keys.length; i += KEYS_PER_ITEM) items.push(put(item(keys.slice(i, i + KEYS_PER_ITEM), now)));
  return { items, meanings: items.map(() => null) };
}

/**
 * Before an upload stores its file: the file is removed an hour later unless the transaction
 * that appends its Picture (`keepUploadPlan` of the returned guard) runs first. One PutItem.
 */
export async function putUploadGuard(key: string, now = new Date()): Promise<DueFiles> {
  const guard = item([key], new Date(now.getTime() + UPLOAD_GUARD_SECONDS * 1000));
  await send((c) => new c.PutCommand({ TableName: tableName(), Item: guard }));
  return { keys: guard.keys, due_at: guard.due_at, sk: guard.sk };
}

/** The deletion of an upload's guard, in the transaction that appends its Picture: the file stays. */
export function keepUploadPlan(guard: Pick<DueFiles, 'sk'>): WritePlan {
  return { items: [del({ pk: DUE_PK, sk: guard.sk })], meanings: [null] };
}

/**
 * Items due at or before `now`, oldest first (`after`: the `sk` of the last item of the previous
 * page). One Query on the partition.
 */
export async function dueFiles(now: Date, limit: number, after?: string): Promise<{ entries: DueFiles[]; more: boolean }> {
  const out = await send((c) =>
    new c.QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND sk <= :bound',
      // '~' sorts after every id character, so items due exactly at `now` are included.
      ExpressionAttributeValues: { ':pk': DUE_PK, ':bound': `${now.toISOString()}#~` },
      ...(after ? { ExclusiveStartKey: { pk: DUE_PK, sk: after } } : {}),
      Limit: limit,
      ConsistentRead: true,
    }),
  );
  const entries = (out.Items ?? []).map((i) => ({ keys: (i.keys as string[]).map(String), due_at: String(i.due_at), sk: String(i.sk) }));
  return { entries, more: out.LastEvaluatedKey !== undefined };
}

/** Removes an item once its files are deleted (an item already gone is fine). */
export async function removeDueFiles(entry: Pick<DueFiles, 'sk'>): Promise<void> {
  await send((c) => new c.DeleteCommand({ TableName: tableName(), Key: { pk: DUE_PK, sk: entry.sk } }));
}

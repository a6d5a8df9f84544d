/**
 * Stored files due for removal (API.md §4.9, §5.5: "removes stored files of deleted pictures").
 * An uploaded picture's file lives in object storage (shared/storage/pictures.ts), its record in
 * the table; the file must go once the record has gone, and only then. So the record's side
 * names the file in the table, in its own transactions:
 *
 *   file due   pk = FILE#GONE   sk = <due_at>#<key>   { key, due_at }
 *
 *  - Whoever deletes Pictures that have uploaded files (a person's deletion, a `PUT`/`PATCH` of
 *    its `pictures` that drops some) adds one such item per file to the same transaction
 *    (`goneFilePlan`, due at once): the file is queued exactly when its record goes.
 *  - An upload stores its file before the transaction that appends the Picture, which may fail
 *    (the person deleted meanwhile, the 100-pictures cap, an outage). So it first puts the item
 *    due an hour later (`putUploadGuard`) and that transaction deletes it (`keepUploadPlan`):
 *    a file whose Picture was never written is removed like a deleted one.
 *
 * The cleanup job reads the items that are due, oldest first (`dueFiles`), deletes each file
 * from storage and then its item (`removeDueFile`): a crash in between leaves the item and the
 * next run deletes the file again (deleting a missing object succeeds). One partition: uploads
 * and deletions are rare (60 uploads per user per hour, §7.2), far below its write limit
 * (docs/decisions.md 71).
 */
import { DeleteCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.js';
import type { KeyPattern } from './key-patterns.js';
import { del, itemPlan, put, type WritePlan } from './records.js';

const DUE_PK = 'FILE#GONE';
const dueKey = (dueAt: string, key: string) => ({ pk: DUE_PK, sk: `${dueAt}#${key}` });

/** Every item of this module (the files due for removal). */
export const FILE_KEYS: KeyPattern = DUE_PK;

/** How long an upload has to append its Picture before its file counts as unwanted. */
export const UPLOAD_GUARD_SECONDS = 3600;

export interface DueFile {
  /** The object key of the file (e.g. `pictures/<person id>/<id>.png`). */
  key: string;
  due_at: string;
  /** The item's sort key. */
  sk: string;
}

const item = (key: string, dueAt: Date) => {
  const due_at = dueAt.toISOString();
  return { ...dueKey(due_at, key), key, due_at };
};

/** The item that queues a deleted Picture's file for removal; commit it with the deletion. */
export function goneFilePlan(key: string, now = new Date()): WritePlan {
  return itemPlan(put(item(key, now)));
}

/**
 * Before an upload stores its file: the file is removed an hour later unless the transaction
 * that appends its Picture (`keepUploadPlan` of the returned guard) runs first. One PutItem.
 */
export async function putUploadGuard(key: string, now = new Date()): Promise<DueFile> {
  const guard = item(key, new Date(now.getTime() + UPLOAD_GUARD_SECONDS * 1000));
  await db().send(new PutCommand({ TableName: tableName(), Item: guard }));
  return { key, due_at: guard.due_at, sk: guard.sk };
}

/** The deletion of an upload's guard, in the transaction that appends its Picture: the file stays. */
export function keepUploadPlan(guard: Pick<DueFile, 'sk'>): WritePlan {
  return itemPlan(del({ pk: DUE_PK, sk: guard.sk }));
}

/**
 * Files due at or before `now`, oldest first (`after`: the `sk` of the last item of the previous
 * page). One Query on the partition.
 */
export async function dueFiles(now: Date, limit: number, after?: string): Promise<{ files: DueFile[]; more: boolean }> {
  const out = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND sk <= :bound',
      // '~' sorts after every key character, so files due exactly at `now` are included.
      ExpressionAttributeValues: { ':pk': DUE_PK, ':bound': `${now.toISOString()}#~` },
      ...(after ? { ExclusiveStartKey: { pk: DUE_PK, sk: after } } : {}),
      Limit: limit,
      ConsistentRead: true,
    }),
  );
  const files = (out.Items ?? []).map((i) => ({ key: String(i.key), due_at: String(i.due_at), sk: String(i.sk) }));
  return { files, more: out.LastEvaluatedKey !== undefined };
}

/** Removes the item of a file once the file is deleted (an item already gone is fine). */
export async function removeDueFile(file: Pick<DueFile, 'sk'>): Promise<void> {
  await db().send(new DeleteCommand({ TableName: tableName(), Key: { pk: DUE_PK, sk: file.sk } }));
}

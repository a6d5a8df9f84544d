/**
 * Writes larger than one DynamoDB transaction (100 items), e.g. an anime with hundreds of index
 * entries (docs/data-model.md "Catalogue writes").
 *
 * A write is a `main` plan (the record and everything whose condition must hold with it) and a
 * `rest` plan of unconditional follow-ups (index entries, chunk deletions). When both fit in one
 * transaction they are committed together. Otherwise:
 *  1. the rest is cut into batches of at most 99 items and each batch is saved in a journal item
 *     beside the record (`<record pk>` / `J#<rev>#<n>`), inert until the record has that revision;
 *  2. the main plan is committed (on failure the journal items are deleted and the error thrown);
 *  3. each batch is applied in a transaction that also deletes its journal item (condition: it
 *     still exists), so a batch is applied exactly once even if two writers finish it at once.
 * The request returns only after step 3, so what it wrote is complete when it returns. A write
 * that dies between 2 and 3 leaves journal items of the record's current revision: the next
 * writer of the record applies them first (finishJournal), before reading the record again.
 */
import { DeleteCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { Item, ItemKey } from './batch.js';
import { db, tableName } from './client.js';
import { cancellationReasons, retryOnConflict } from './errors.js';
import { commit, type WritePlan } from './records.js';

const MAX_ITEMS = 100;

export interface JournalEntry {
  key: ItemKey;
  rev: number;
  ops: object[];
}

const journalKey = (recordPk: string, rev: number, n: number): ItemKey => ({ pk: recordPk, sk: `J#${String(rev).padStart(10, '0')}#${n}` });

/** Journal entries among the items of a record's partition. */
export function journalOf(items: readonly Item[]): JournalEntry[] {
  return items
    .filter((i) => String(i.sk).startsWith('J#'))
    .map((i) => ({ key: { pk: String(i.pk), sk: String(i.sk) }, rev: Number(i.rev), ops: i.ops as object[] }));
}

/** Applies one journal batch (exactly once: the journal item's deletion is part of it). */
async function applyBatch(entry: JournalEntry): Promise<void> {
  const remove = {
    Delete: { TableName: tableName(), Key: entry.key, ConditionExpression: 'attribute_exists(pk)' },
  };
  await retryOnConflict(() =>
    db()
      .send(new TransactWriteCommand({ TransactItems: [...entry.ops, remove] as never }))
      .catch((err: unknown) => {
        const reasons = cancellationReasons(err);
        // Someone else applied it already.
        if (reasons?.at(-1)?.Code === 'ConditionalCheckFailed') return;
        throw err;
      }),
  );
}

/**
 * Brings a record's derived items up to date before it is written again: applies the journal
 * of its current revision `rev` and drops journals of revisions that never committed.
 */
export async function finishJournal(entries: readonly JournalEntry[], rev: number): Promise<boolean> {
  for (const e of entries) {
    if (e.rev === rev) await applyBatch(e);
    else await db().send(new DeleteCommand({ TableName: tableName(), Key: e.key }));
  }
  return entries.length > 0;
}

/** Commits `main` and `rest` (see above); `recordPk` and `rev` name the record's new revision. */
export async function commitStaged(main: WritePlan, rest: WritePlan, recordPk: string, rev: number): Promise<void> {
  if (main.items.length + rest.items.length <= MAX_ITEMS) {
    await commit(main, rest);
    return;
  }
  const entries: JournalEntry[] = [];
  for (let i = 0; i < rest.items.length; i += MAX_ITEMS - 1) {
    entries.push({ key: journalKey(recordPk, rev, entries.length), rev, ops: rest.items.slice(i, i + MAX_ITEMS - 1) });
  }
  await Promise.all(entries.map((e) => db().send(new PutCommand({ TableName: tableName(), Item: { ...e.key, rev: e.rev, ops: e.ops } }))));
  try {
    await commit(main);
  } catch (err) {
    await Promise.all(entries.map((e) => db().send(new DeleteCommand({ TableName: tableName(), Key: e.key }))));
    throw err;
  }
  for (const e of entries) await applyBatch(e);
}

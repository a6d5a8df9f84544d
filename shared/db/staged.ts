/**
 * Writes larger than one DynamoDB transaction (100 items), e.g. an anime with hundreds of index
 * entries (docs/data-model.md "Catalogue writes").
 *
 * A write is a `main` plan (the record and everything whose condition must hold with it) and a
 * `rest` plan of unconditional follow-ups (index entries, chunk deletions). When both fit in one
 * transaction they are committed together. Otherwise:
 *  1. the rest is cut into batches of at most 99 items and each batch is saved in a journal item
 *     beside the record (`<record pk>` / `J#<rev>#<write>#<n>`), inert until the record has that
 *     revision by that write (the record item names the write that made it: `write`);
 *  2. the main plan is committed; a deletion's main plan also puts a marker beside the record
 *     (`<record pk>` / `W` { rev, write }: the record is gone, so the marker names the write
 *     whose journal this is). On a failure that says the transaction was not committed (a
 *     cancellation, a refused request) the journal items are deleted; on one that leaves it
 *     unknown (a timeout, a reset connection, a 5xx: the commit may have happened) they are left,
 *     inert unless the record has that revision by that write;
 *  3. each batch is applied in a transaction that also deletes its journal item (condition: it
 *     still exists), so a batch is applied exactly once even if two writers finish it at once.
 *     Batches touch distinct items (a plan names an item once), so they are applied
 *     APPLY_AT_ONCE at a time: a write at the maxima (~600 index items, 8–10 batches) waits for
 *     three rounds of transactions, not ten.
 * A creation's stored answer (an Idempotency-Key, shared/db/idempotency.ts) belongs to `main`;
 * only when `main` alone is over one transaction does it follow in the rest (deferAnswers).
 * The request returns only after step 3 (a deletion's marker is then deleted), so what it wrote
 * is complete when it returns. A write that dies between 2 and 3 leaves journal items of the
 * record's current revision: the next writer of the record applies them first (finishJournal),
 * before reading the record again, and the relations consumer does so at the record's stream
 * record; a deletion's, which no later write will find, the relations consumer applies at the
 * record's REMOVE (finishDeletion).
 */
import { mapLimit } from '../concurrency.js';
import { queryAll, type Item, type ItemKey } from './batch.js';
import { send, tableName } from './client.js';
import { cancellationReasons, isTransactionConflict, isUnavailable, retryOnConflict } from './errors.js';
import { deferredFormOf } from './idempotency.js';
import { commit, itemPlan, joinPlans, put, type WritePlan } from './records.js';

const MAX_ITEMS = 100;
/** JSON bytes of operations per journal item (DynamoDB's item limit is 400 KB). */
const JOURNAL_BYTES = 300_000;
/** Journal batches applied at once (step 3). */
const APPLY_AT_ONCE = 4;

export interface JournalEntry {
  key: ItemKey;
  rev: number;
  /** The write that staged it (the record item names the write of its revision: `write`). */
  write: string;
  ops: object[];
}

const journalKey = (recordPk: string, rev: number, write: string, n: number): ItemKey => ({
  pk: recordPk,
  sk: `J#${String(rev).padStart(10, '0')}#${write}#${n}`,
});

/** Journal entries among the items of a record's partition. */
export function journalOf(items: readonly Item[]): JournalEntry[] {
  return items
    .filter((i) => String(i.sk).startsWith('J#'))
    .map((i) => ({ key: { pk: String(i.pk), sk: String(i.sk) }, rev: Number(i.rev), write: String(i.write), ops: i.ops as object[] }));
}

/**
 * Applies one journal batch (exactly once: the journal item's deletion is part of it). An
 * operation whose condition fails (a lost link whose record is gone, titles.ts) is dropped and
 * the rest applied.
 */
async function applyBatch(entry: JournalEntry): Promise<void> {
  const remove = {
    Delete: { TableName: tableName(), Key: entry.key, ConditionExpression: 'attribute_exists(pk)' },
  };
  let ops = entry.ops;
  for (;;) {
    const failed = await retryOnConflict(() =>
      send((c) => new c.TransactWriteCommand({ TransactItems: [...ops, remove] as never }))
        .then(() => null)
        .catch((err: unknown) => {
          const reasons = cancellationReasons(err);
          if (!reasons || isTransactionConflict(err)) throw err;
          return reasons;
        }),
    );
    if (failed === null) return;
    // Someone else applied it already.
    if (failed.at(-1)?.Code === 'ConditionalCheckFailed') return;
    const gone = new Set(failed.flatMap((r, i) => (r.Code === 'ConditionalCheckFailed' && i < ops.length ? [i] : [])));
    if (gone.size === 0) throw Object.assign(new Error('journal batch cancelled'), { name: 'TransactionCanceledException', CancellationReasons: failed });
    ops = ops.filter((_, i) => !gone.has(i));
  }
}

/**
 * Brings a record's derived items up to date before it is written again: applies the journal
 * of the write that made its current revision (`rev`, `write`), drops journals of writes that
 * never committed (an older revision, or the current one by another write) and leaves those of
 * later revisions, which may belong to a write in flight. True when it applied anything.
 */
export async function finishJournal(entries: readonly JournalEntry[], rev: number, write: string | undefined): Promise<boolean> {
  let applied = false;
  for (const e of entries) {
    if (e.rev === rev && e.write === write) {
      await applyBatch(e);
      applied = true;
    } else if (e.rev <= rev) await send((c) => new c.DeleteCommand({ TableName: tableName(), Key: e.key }));
  }
  return applied;
}

/**
 * Step 1: cuts `rest` into batches of at most 99 operations (one transaction with the journal
 * item's deletion) and JOURNAL_BYTES of JSON (a journal item is at most 400 KB), and saves
 * each in a journal item of revision `rev`.
 */
export async function stageJournal(rest: WritePlan, recordPk: string, rev: number, write: string): Promise<JournalEntry[]> {
  const entries: JournalEntry[] = [];
  let ops: object[] = [];
  let bytes = 0;
  const close = () => {
    if (ops.length > 0) entries.push({ key: journalKey(recordPk, rev, write, entries.length), rev, write, ops });
    ops = [];
    bytes = 0;
  };
  for (const op of rest.items) {
    const size = Buffer.byteLength(JSON.stringify(op));
    if (ops.length >= MAX_ITEMS - 1 || bytes + size > JOURNAL_BYTES) close();
    ops.push(op);
    bytes += size;
  }
  close();
  await Promise.all(entries.map((e) => send((c) => new c.PutCommand({ TableName: tableName(), Item: { ...e.key, rev: e.rev, write: e.write, ops: e.ops } }))));
  return entries;
}

/**
 * A main plan over one transaction that holds a creation's stored answer (an Idempotency-Key,
 * API.md §8.7) and a uniqueness claim: the answer follows in the rest (idempotency.ts
 * deferredFormOf says why that is safe). Any other plan is left as it is.
 */
function deferAnswers(main: WritePlan, rest: WritePlan): [WritePlan, WritePlan] {
  if (!main.meanings.some((m) => m?.what === 'unique')) return [main, rest];
  const deferred = main.items.map((item) => deferredFormOf(item));
  if (deferred.every((d) => d === undefined)) return [main, rest];
  const kept = main.items.flatMap((item, i) => (deferred[i] ? [] : [{ item, meaning: main.meanings[i]! }]));
  const moved = deferred.filter((d): d is object => d !== undefined);
  return [
    { items: kept.map((k) => k.item), meanings: kept.map((k) => k.meaning) },
    { items: [...rest.items, ...moved], meanings: [...rest.meanings, ...moved.map(() => null)] },
  ];
}

/**
 * A main plan still over one transaction (a title at the maxima of links with every external id
 * and its relations: 90 gained links, the record, six claims, its delta, slot and chunks): the
 * record's own relation chunks that it puts follow in the rest. They carry no condition (the
 * record's revision and the links' conditions guard the write), the journal is applied before
 * the request returns, and a writer that dies first leaves it to the next writer of the record
 * (finishJournal): so what the write returns is complete, as for any staged write.
 */
function deferChunks(main: WritePlan, rest: WritePlan, recordPk: string): [WritePlan, WritePlan] {
  const isChunk = (item: object, i: number) => {
    const putItem = (item as { Put?: { Item?: { pk?: unknown; sk?: unknown }; ConditionExpression?: unknown } }).Put;
    return main.meanings[i] === null && putItem?.ConditionExpression === undefined && putItem?.Item?.pk === recordPk && String(putItem.Item.sk).startsWith('C#');
  };
  const moved = main.items.filter(isChunk);
  if (moved.length === 0) return [main, rest];
  const kept = main.items.flatMap((item, i) => (isChunk(item, i) ? [] : [{ item, meaning: main.meanings[i]! }]));
  return [
    { items: kept.map((k) => k.item), meanings: kept.map((k) => k.meaning) },
    { items: [...moved, ...rest.items], meanings: [...moved.map(() => null), ...rest.meanings] },
  ];
}

/** The marker of a staged deletion whose journal is not applied yet: the record is gone, the marker names its write. */
const deletionKey = (recordPk: string): ItemKey => ({ pk: recordPk, sk: 'W' });

/**
 * Commits `main` and `rest` (see above); `recordPk`, `rev` and `write` name the record's new
 * revision and the write (the main plan's record item carries `write`; a deletion's, `deletion`,
 * its marker).
 *
 * `feed`: the write's change-feed change (feed.ts), committed with the main plan — unless a write
 * at the maxima leaves no room for it there (its main plan is then 100 items of record, claims
 * and gained links), when it goes first into the journal: it is then written after the record,
 * by the journal's first batch, exactly once like every journal operation, and never before the
 * record shows the change.
 */
export async function commitStaged(
  main: WritePlan,
  rest: WritePlan,
  recordPk: string,
  rev: number,
  write: string,
  opts: { deletion?: boolean; feed?: WritePlan } = {},
): Promise<void> {
  if (main.items.length > MAX_ITEMS) [main, rest] = deferAnswers(main, rest);
  if (main.items.length > MAX_ITEMS) [main, rest] = deferChunks(main, rest, recordPk);
  const feed = opts.feed ?? { items: [], meanings: [] };
  if (main.items.length + feed.items.length + rest.items.length <= MAX_ITEMS) {
    await commit(main, feed, rest);
    return;
  }
  const marker = opts.deletion ? 1 : 0;
  const withMain = main.items.length + feed.items.length + marker <= MAX_ITEMS;
  const entries = await stageJournal(withMain ? rest : joinPlans(feed, rest), recordPk, rev, write);
  const first = withMain ? joinPlans(main, feed) : main;
  const marked = opts.deletion ? joinPlans(first, itemPlan(put({ ...deletionKey(recordPk), rev, write }))) : first;
  try {
    await commit(marked);
  } catch (err) {
    // Not committed for sure: the journal goes (if that fails too, it stays inert). Maybe committed: it stays.
    if (!isUnavailable(err)) await Promise.all(entries.map((e) => send((c) => new c.DeleteCommand({ TableName: tableName(), Key: e.key })))).catch(() => undefined);
    throw err;
  }
  await mapLimit(entries, APPLY_AT_ONCE, applyBatch);
  if (opts.deletion) await send((c) => new c.DeleteCommand({ TableName: tableName(), Key: deletionKey(recordPk) }));
}

/**
 * Finishes a staged deletion whose writer died before applying its journal (the relations
 * consumer, at the record's REMOVE): when the record is gone and its marker is there, the
 * marker's journal is applied, the journals of writes that never committed are dropped, and the
 * marker goes. True when there was one to finish.
 */
export async function finishDeletion(recordPk: string): Promise<boolean> {
  const items = await queryAll(recordPk);
  const marker = items.find((i) => i.sk === 'W');
  if (!marker || items.some((i) => i.sk === 'R')) return false;
  await finishJournal(journalOf(items), Number(marker.rev), String(marker.write));
  await send((c) => new c.DeleteCommand({ TableName: tableName(), Key: deletionKey(recordPk) }));
  return true;
}

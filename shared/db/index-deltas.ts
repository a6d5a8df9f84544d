/**
 * The table's part of a kind's in-memory index (issue 19; docs/in-memory-index.md, decisions O1–):
 * the pointer to its current snapshot (an S3 object, shared/storage/index-objects.ts) and one
 * delta per record write since, in one partition per kind:
 *
 *   delta    <KIND>#IX   D#<sequence, 12 digits>   { id, v: vector | null (deleted) }
 *   pointer  <KIND>#IX   P                         { version, seq, name, at, previous? }
 *
 * **Deltas are numbered without gaps, in commit order.** A record's write reads the kind's head
 * (`readHead`: the last delta's number, or the pointer's when every delta is folded) and puts
 * its delta at the next number in its own transaction, on the condition that no delta has that
 * number yet; two writes that read the same head both aim at one number and one of them fails
 * (DeltaMoved: the write is planned again). So delta n + 1 exists only after delta n committed,
 * and a reader that has read every delta up to n misses none when it next reads "after n" —
 * which a timestamp key could not promise (a write may commit after a later timestamp was read).
 *
 * **A reader** keeps the snapshot it loaded (version v, folding deltas up to `seq`) and the
 * deltas it read since; a request reads `after` its last number: one strongly consistent Query
 * from `D#<after + 1>` to the end of the partition, which returns the new deltas and the pointer
 * (`D#…` < `P`) together. A warm function reads the few deltas written since its last request.
 *
 * **The compactor** folds the deltas into the next snapshot, moves the pointer (conditioned on
 * the one it started from) and deletes the deltas the previous snapshot had folded — one
 * snapshot later, so that a reader which read the old pointer still finds the deltas after it.
 * The pointer's `seq` keeps the head when every delta is folded and deleted.
 */
import type { Vector } from './catalogue-index.js';
import { send, tableName } from './client.js';
import { writeItems, type Item, type ItemKey } from './batch.js';
import { put, type WritePlan } from './records.js';

export const indexPk = (kind: string) => `${kind}#IX`;
/** The index partitions of `kinds` (grants). */
export const indexKeys = (kinds: readonly string[]): string[] => kinds.map(indexPk);
const SEQ_DIGITS = 12;
const deltaSk = (seq: number) => `D#${String(seq).padStart(SEQ_DIGITS, '0')}`;
const POINTER_SK = 'P';
export const pointerKey = (kind: string): ItemKey => ({ pk: indexPk(kind), sk: POINTER_SK });

/** A record written since the snapshot: its vector now, or `null` when it was deleted. */
export interface IndexDelta {
  seq: number;
  id: string;
  vector: Vector | null;
}

/** The kind's current snapshot: its version, the last delta it folds and the name of its objects. */
export interface IndexPointer {
  version: number;
  seq: number;
  /** Its objects' name in the index bucket (`<version>-<id>`: two compactions never write the same objects). */
  name: string;
  /** When it was published (ISO). */
  at: string;
  /** The snapshot before it: what the next compaction deletes (its objects and the deltas up to its `seq`). */
  previous?: { name: string; seq: number };
}

/** Another write of the kind took the delta number this one read: planned again. */
export class DeltaMoved extends Error {
  constructor(kind: string) {
    super(`${kind}: another write took the next index delta`);
    this.name = 'DeltaMoved';
  }
}

function pointerOf(item: Item | undefined): IndexPointer | null {
  if (!item) return null;
  const previous = item.previous as { name: string; seq: number } | undefined;
  return { version: Number(item.version), seq: Number(item.seq), name: String(item.name), at: String(item.at), ...(previous ? { previous: { name: String(previous.name), seq: Number(previous.seq) } } : {}) };
}
const deltaOf = (item: Item): IndexDelta => ({ seq: Number(String(item.sk).slice(2)), id: String(item.id), vector: (item.v as Vector | null | undefined) ?? null });

/**
 * The number of the kind's last delta (the pointer's when every delta is folded; 0 before any):
 * what a write's delta follows. One strongly consistent Query of the partition's last two items,
 * the pointer and the last delta.
 */
export async function readHead(kind: string): Promise<number> {
  const out = await send((c) =>
    new c.QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': indexPk(kind) },
      ScanIndexForward: false,
      Limit: 2,
      ConsistentRead: true,
    }),
  );
  let head = 0;
  for (const item of out.Items ?? []) head = Math.max(head, item.sk === POINTER_SK ? Number(item.seq) : deltaOf(item).seq);
  return head;
}

/** A write's delta (`vector` null: the record is deleted), at the number after `head` (readHead), if no other write took it. */
export function deltaPlan(kind: string, head: number, id: string, vector: Vector | null): WritePlan {
  return {
    items: [put({ pk: indexPk(kind), sk: deltaSk(head + 1), id, v: vector }, { expression: 'attribute_not_exists(pk)' })],
    meanings: [{ what: 'error', error: () => new DeltaMoved(kind) }],
  };
}

/**
 * The deltas after number `after` (in order) and the pointer, read together (strongly
 * consistent: a write that returned is among them). Pages past 1 MB are read too; the compactor
 * keeps the partition far below that.
 */
export async function readDeltas(kind: string, after: number): Promise<{ deltas: IndexDelta[]; pointer: IndexPointer | null }> {
  const deltas: IndexDelta[] = [];
  let pointer: IndexPointer | null = null;
  let start: Record<string, unknown> | undefined;
  do {
    const out = await send((c) =>
      new c.QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND sk > :after',
        ExpressionAttributeValues: { ':pk': indexPk(kind), ':after': deltaSk(after) },
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    for (const item of out.Items ?? []) {
      if (item.sk === POINTER_SK) pointer = pointerOf(item);
      else if (String(item.sk).startsWith('D#')) deltas.push(deltaOf(item));
    }
    start = out.LastEvaluatedKey;
  } while (start);
  return { deltas, pointer };
}

/** The kind's pointer (strongly consistent); null before its first snapshot. */
export async function readPointer(kind: string): Promise<IndexPointer | null> {
  const out = await send((c) => new c.GetCommand({ TableName: tableName(), Key: pointerKey(kind), ConsistentRead: true }));
  return pointerOf(out.Item);
}

/** Another compactor moved the pointer first. */
export class PointerMoved extends Error {
  constructor(kind: string) {
    super(`${kind}: the index pointer moved since it was read`);
    this.name = 'PointerMoved';
  }
}

/** Sets the pointer to `to` on the condition that it is still `from` (null: there is none); PointerMoved otherwise. */
export async function movePointer(kind: string, from: IndexPointer | null, to: IndexPointer): Promise<void> {
  try {
    await send((c) =>
      new c.PutCommand({
        TableName: tableName(),
        Item: { ...pointerKey(kind), ...to },
        ConditionExpression: from ? '#v = :v' : 'attribute_not_exists(pk)',
        ...(from ? { ExpressionAttributeNames: { '#v': 'version' }, ExpressionAttributeValues: { ':v': from.version } } : {}),
      }),
    );
  } catch (err) {
    if ((err as Error).name === 'ConditionalCheckFailedException') throw new PointerMoved(kind);
    throw err;
  }
}

/** Deletes the deltas numbered up to `upTo` (folded into a snapshot that is no longer the newest). */
export async function deleteDeltas(kind: string, upTo: number): Promise<void> {
  let start: Record<string, unknown> | undefined;
  do {
    const out = await send((c) =>
      new c.QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :first AND :last',
        ExpressionAttributeValues: { ':pk': indexPk(kind), ':first': deltaSk(0), ':last': deltaSk(upTo) },
        ProjectionExpression: 'pk, sk',
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    await writeItems([], (out.Items ?? []).map((i) => ({ pk: String(i.pk), sk: String(i.sk) })));
    start = out.LastEvaluatedKey;
  } while (start);
}

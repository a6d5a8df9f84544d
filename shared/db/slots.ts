/**
 * Dense slots for uniform random picks (API.md §4.13; docs/data-model.md "Random picks"). The n
 * records of a kind K whose TitleDef says `random` occupy the slots 1..n, n being the kind's
 * counter (records.ts `K#N`):
 *
 *   slot     pk = K#SLOT   sk = <number, 10 digits>   { id }
 *   record   pk = K#<id>   sk = R                     { …, slot }   the record's own slot
 *
 * A creation takes slot n+1; a deletion moves the record of the last slot into the hole. Both
 * are in the write's main transaction, which sets the counter instead of adding to it, on the
 * condition that it still holds the n read before: creations and deletions of a kind take turns
 * (a conflict fails as SlotsMoved and the write commits again with the slots read anew), and
 * slots 1..n name exactly the kind's records after every write. A deletion also checks that the
 * slot it frees still names its record: another deletion may have moved the record since it was
 * read, and a creation then brought the counter back to the n read (decision Z7). A pick draws a number in 1..n and reads its slot:
 * three calls whatever the catalogue's size, every record equally likely.
 */
import { randomInt } from 'node:crypto';
import { queryAll, type Item, type ItemKey } from './batch.js';
import { send, tableName } from './client.js';
import { counterKeyOfKind, del, put, recordKeyOfKind, type Meaning, type WritePlan } from './records.js';

/** What a creation or deletion of a slotted kind read: the counter, the last slot's record and the deleted record's slot. */
export interface SlotState {
  n: number;
  /** The id in slot n (deletions). */
  lastId?: string;
  /** The deleted record's slot as read now (deletions; absent: a record stored before the slots). */
  slot?: number;
}

const slotPk = (kind: string) => `${kind}#SLOT`;
export const slotKey = (kind: string, n: number): ItemKey => ({ pk: slotPk(kind), sk: String(n).padStart(10, '0') });
/** The slot items of a kind (grants). */
export const slotKeys = (kind: string) => `${kind}#SLOT`;

/**
 * The ids of every record of a kind, from its slots read whole (one Query per MB, ~50 B a slot:
 * 75,000 mangas are 4 Queries): how a job enumerates a kind without a Scan.
 */
export async function slottedIds(kind: string): Promise<string[]> {
  return (await queryAll(slotPk(kind))).map((i) => String(i.id));
}

async function get(key: ItemKey, consistent: boolean, only?: string): Promise<Item | undefined> {
  const projection = only === undefined ? {} : { ProjectionExpression: '#a', ExpressionAttributeNames: { '#a': only } };
  return (await send((c) => new c.GetCommand({ TableName: tableName(), Key: key, ConsistentRead: consistent, ...projection }))).Item;
}

/**
 * The state a creation (`deleting` absent) or the deletion of record `deleting` is planned from:
 * the counter, and for a deletion the last slot's record and the record's own slot, read anew at
 * every turn (a turn taken by another deletion may have moved it). Reads that disagree (the last
 * slot emptied meanwhile): SlotsMoved, planned again.
 */
export async function readSlots(kind: string, deleting?: string): Promise<SlotState> {
  const counted = get(counterKeyOfKind(kind), true).then((i) => Number(i?.n ?? 0));
  if (deleting === undefined) return { n: await counted };
  const [[n, lastId], own] = await Promise.all([
    counted.then(async (n) => [n, n === 0 ? undefined : (await get(slotKey(kind, n), true))?.id] as const),
    get(recordKeyOfKind(kind, deleting), true, 'slot'),
  ]);
  const slot = own?.slot === undefined ? undefined : Number(own.slot);
  if (slot === undefined) return { n };
  if (typeof lastId !== 'string' || slot > n || (lastId === deleting) !== (slot === n)) throw new SlotsMoved(kind);
  return { n, lastId, slot };
}

/** Another creation or deletion of the kind moved the slots since they were read: plan again. */
export class SlotsMoved extends Error {
  constructor(kind: string) {
    super(`${kind}: the slots moved since they were read`);
    this.name = 'SlotsMoved';
  }
}

const stale = (kind: string): Meaning => ({ what: 'error', error: () => new SlotsMoved(kind) });

/** The counter set from `from` to `to`, on the condition that it still holds `from` (no item: 0). */
function counterMove(kind: string, from: number, to: number): object {
  return {
    Update: {
      TableName: tableName(),
      Key: counterKeyOfKind(kind),
      UpdateExpression: 'SET #n = :to',
      ConditionExpression: from === 0 ? 'attribute_not_exists(#n) OR #n = :from' : '#n = :from',
      ExpressionAttributeNames: { '#n': 'n' },
      ExpressionAttributeValues: { ':from': from, ':to': to },
    },
  };
}

/** A creation's part: slot n+1 and the counter (the record item carries `slot: n + 1`). */
export function slotCreatePlan(kind: string, id: string, state: SlotState): WritePlan {
  return {
    items: [put({ ...slotKey(kind, state.n + 1), id }), counterMove(kind, state.n, state.n + 1)],
    meanings: [null, stale(kind)],
  };
}

/** The condition that a slot still names `id`. */
const naming = (id: string) => ({ expression: '#id = :id', names: { '#id': 'id' }, values: { ':id': id } });

/**
 * The deletion of record `id`'s part: its slot (`state.slot`, on the condition that it still
 * names the record) takes the last slot's record (whose record item's `slot` follows, on the
 * condition that it is still the last) and the counter goes down.
 */
export function slotDeletePlan(kind: string, id: string, state: SlotState): WritePlan {
  const { slot, n: last } = state;
  if (slot === undefined) throw new Error(`${kind}: the slot of ${id} was not read`);
  if (slot === last) return { items: [del(slotKey(kind, last), naming(id)), counterMove(kind, last, last - 1)], meanings: [stale(kind), stale(kind)] };
  if (!state.lastId) throw new Error(`${kind}: no record in the last slot ${last}`);
  const moved = {
    Update: {
      TableName: tableName(),
      Key: recordKeyOfKind(kind, state.lastId),
      UpdateExpression: 'SET #slot = :slot',
      ConditionExpression: '#slot = :last',
      ExpressionAttributeNames: { '#slot': 'slot' },
      ExpressionAttributeValues: { ':slot': slot, ':last': last },
    },
  };
  return {
    items: [put({ ...slotKey(kind, slot), id: state.lastId }, naming(id)), del(slotKey(kind, last)), moved, counterMove(kind, last, last - 1)],
    meanings: [stale(kind), null, stale(kind), stale(kind)],
  };
}

/**
 * A record of the kind drawn uniformly (null: there is none): the counter, then a slot. A slot
 * emptied by a deletion between the two reads is drawn again.
 */
export async function pickSlot(kind: string): Promise<string | null> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const n = Number((await get(counterKeyOfKind(kind), false))?.n ?? 0);
    if (n === 0) return null;
    const id = (await get(slotKey(kind, randomInt(1, n + 1)), false))?.id;
    if (typeof id === 'string') return id;
  }
  return null;
}

/**
 * Catalogue records: the storage pattern shared by every entity module of this folder.
 *
 * Items of an entity of kind K (e.g. GENRE), record id I:
 *   record      pk = K#I                 sk = R      { rec: <read shape>, rev, sw }
 *   uniqueness  pk = K#U#<field>#<key>   sk = U      { id }            (one per unique field)
 *   ordering    pk = K#O#<key>#A|D       sk = <sort key, see sort-keys.ts>  { rec, sw, ...filter attrs }
 *   counter     pk = K#N                 sk = N      { n }             (number of records)
 *
 * `rec` is the record's read shape, so a detail GET is one GetItem and a list page one Query.
 * `rev` increases with every change of the representation; writes are conditioned on it
 * (optimistic concurrency, and the atomic half of If-Match). `sw` is the search text of the
 * record (text.ts). Every write is one transaction covering all of a record's items, so the
 * record, its uniqueness claims, its index entries and the counter never disagree.
 */
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { Cursor } from '../http/cursor.js';
import { conflict } from '../http/problem.js';
import { searchText, termNeedle } from '../text.js';
import type { Item, ItemKey } from './batch.js';
import { db, tableName } from './client.js';
import { cancellationReasons, retryOnConflict } from './errors.js';
import { queryIndexPage, type IndexFilter, type IndexPage } from './index-query.js';
import { sortKey, type OrderType, type OrderValue } from './sort-keys.js';

export interface BaseRecord {
  id: string;
  created_at: string;
  updated_at: string;
}

export interface Ordering<R> {
  value: (r: R) => OrderValue;
  type: OrderType;
}

export interface UniqueField<R> {
  /** The field reported in `errors` on a clash. */
  field: string;
  /** The value compared (already normalised for comparison). */
  key: (r: R) => string;
  message: string;
}

export interface EntityDef<R extends BaseRecord> {
  /** Key prefix, e.g. `GENRE`. */
  kind: string;
  orderings: Record<string, Ordering<R>>;
  unique?: readonly UniqueField<R>[];
  /** Texts searched by `q`. */
  searchFields?: (r: R) => string[];
  /** Attributes copied onto ordering items for filter expressions (e.g. a producer's `type`). */
  filterAttributes?: (r: R) => Record<string, string | number | boolean | null>;
}

export interface Stored<R> {
  record: R;
  rev: number;
  /** Attributes kept on the record item only, never in responses or index items. */
  priv?: Record<string, unknown>;
}


const recordKey = (def: EntityDef<BaseRecord>, id: string) => ({ pk: `${def.kind}#${id}`, sk: 'R' });
const counterKey = (def: EntityDef<BaseRecord>) => ({ pk: `${def.kind}#N`, sk: 'N' });

/** Where a record lives (for batched reads, see batch.ts). */
export const recordKeyOf = <R extends BaseRecord>(def: EntityDef<R>, id: string): ItemKey =>
  recordKey(def as unknown as EntityDef<BaseRecord>, id);
/** Where the number of records of an entity lives (for batched reads). */
export const counterKeyOf = <R extends BaseRecord>(def: EntityDef<R>): ItemKey => counterKey(def as unknown as EntityDef<BaseRecord>);

/** The stored record of a record item (`null`: no item). */
export function storedFromItem<R extends BaseRecord>(item: Item | null | undefined): Stored<R> | null {
  if (!item) return null;
  const stored: Stored<R> = { record: item.rec as R, rev: Number(item.rev) };
  if (item.priv) stored.priv = item.priv as Record<string, unknown>;
  return stored;
}

/** The count of a counter item (no item: 0). */
export const countFromItem = (item: Item | null | undefined): number => Number(item?.n ?? 0);
const uniqueKey = (def: EntityDef<BaseRecord>, field: string, key: string) => ({
  pk: `${def.kind}#U#${field}#${key}`,
  sk: 'U',
});
const orderingPk = (def: EntityDef<BaseRecord>, ordering: string, dir: 'asc' | 'desc') =>
  `${def.kind}#O#${ordering}#${dir === 'asc' ? 'A' : 'D'}`;

function orderingItems<R extends BaseRecord>(def: EntityDef<R>, r: R): Item[] {
  const extra = def.filterAttributes?.(r) ?? {};
  const sw = searchText(def.searchFields?.(r) ?? []);
  return Object.entries(def.orderings).flatMap(([name, o]) =>
    (['asc', 'desc'] as const).map((dir) => ({
      pk: orderingPk(def as EntityDef<BaseRecord>, name, dir),
      sk: sortKey(o.value(r), o.type, r.id, dir),
      rec: r,
      sw,
      ...extra,
    })),
  );
}

const put = (item: Item, condition?: string, extra: Partial<{ names: Record<string, string>; values: Item }> = {}) => ({
  Put: {
    TableName: tableName(),
    Item: item,
    ...(condition ? { ConditionExpression: condition, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const } : {}),
    ...(extra.names ? { ExpressionAttributeNames: extra.names } : {}),
    ...(extra.values ? { ExpressionAttributeValues: extra.values } : {}),
  },
});
const del = (key: Item, condition?: string, values?: Item) => ({
  Delete: {
    TableName: tableName(),
    Key: key,
    ...(condition ? { ConditionExpression: condition } : {}),
    ...(values ? { ExpressionAttributeValues: values } : {}),
  },
});
const count = (def: EntityDef<BaseRecord>, delta: 1 | -1) => ({
  Update: {
    TableName: tableName(),
    Key: counterKey(def),
    UpdateExpression: 'ADD n :d',
    ExpressionAttributeValues: { ':d': delta },
  },
});

/** Thrown when the record changed (or vanished) since it was read. */
export class StaleRecord extends Error {
  constructor() {
    super('record changed since it was read');
    this.name = 'StaleRecord';
  }
}

/**
 * Turns a cancelled transaction into the error it means: a uniqueness clash (409 with the
 * existing id) or a stale record. `layout` names what each transaction item was.
 */
function explain<R extends BaseRecord>(def: EntityDef<R>, err: unknown, layout: (string | null)[]): never {
  const reasons = cancellationReasons(err);
  if (!reasons) throw err;
  for (const [i, reason] of reasons.entries()) {
    if (reason.Code !== 'ConditionalCheckFailed') continue;
    const what = layout[i];
    if (what === 'record') throw new StaleRecord();
    const u = def.unique?.find((f) => f.field === what);
    if (u) throw conflict(u.field, u.message, reason.Item?.id as string | undefined);
  }
  throw err;
}

export async function createRecord<R extends BaseRecord>(
  def: EntityDef<R>,
  r: R,
  priv?: Record<string, unknown>,
): Promise<Stored<R>> {
  const d = def as unknown as EntityDef<BaseRecord>;
  const sw = searchText(def.searchFields?.(r) ?? []);
  const items = [
    put({ ...recordKey(d, r.id), kind: def.kind, rev: 1, rec: r, sw, ...(priv ? { priv } : {}) }, 'attribute_not_exists(pk)'),
    ...(def.unique ?? []).map((u) => put({ ...uniqueKey(d, u.field, u.key(r)), id: r.id }, 'attribute_not_exists(pk)')),
    ...orderingItems(def, r).map((item) => put(item)),
    count(d, 1),
  ];
  const layout = ['record', ...(def.unique ?? []).map((u) => u.field)];
  await retryOnConflict(() =>
    db()
      .send(new TransactWriteCommand({ TransactItems: items }))
      .catch((err: unknown) => explain(def, err, layout)),
  );
  return { record: r, rev: 1, ...(priv ? { priv } : {}) };
}

export async function getRecord<R extends BaseRecord>(def: EntityDef<R>, id: string): Promise<Stored<R> | null> {
  const out = await db().send(
    new GetCommand({ TableName: tableName(), Key: recordKey(def as unknown as EntityDef<BaseRecord>, id), ConsistentRead: true }),
  );
  return storedFromItem<R>(out.Item);
}

/**
 * Replaces `before` (as read, at its revision) by `after`, moving index and uniqueness items.
 * Private attributes are kept unless `priv` is given.
 */
export async function replaceRecord<R extends BaseRecord>(
  def: EntityDef<R>,
  before: Stored<R>,
  after: R,
  priv: Record<string, unknown> | undefined = before.priv,
): Promise<Stored<R>> {
  const d = def as unknown as EntityDef<BaseRecord>;
  const rev = before.rev + 1;
  const sw = searchText(def.searchFields?.(after) ?? []);
  const layout: (string | null)[] = ['record'];
  const items: object[] = [
    put({ ...recordKey(d, after.id), kind: def.kind, rev, rec: after, sw, ...(priv ? { priv } : {}) }, '#rev = :rev', {
      names: { '#rev': 'rev' },
      values: { ':rev': before.rev },
    }),
  ];
  for (const u of def.unique ?? []) {
    const oldKey = u.key(before.record);
    const newKey = u.key(after);
    if (oldKey === newKey) continue;
    items.push(del(uniqueKey(d, u.field, oldKey)));
    layout.push(null);
    items.push(put({ ...uniqueKey(d, u.field, newKey), id: after.id }, 'attribute_not_exists(pk)'));
    layout.push(u.field);
  }
  const newItems = orderingItems(def, after);
  const oldItems = orderingItems(def, before.record);
  for (const [i, item] of newItems.entries()) {
    const old = oldItems[i]!;
    if (old.sk !== item.sk) items.push(del({ pk: old.pk, sk: old.sk }));
    items.push(put(item));
  }
  await retryOnConflict(() =>
    db()
      .send(new TransactWriteCommand({ TransactItems: items }))
      .catch((err: unknown) => explain(def, err, layout)),
  );
  return { record: after, rev, ...(priv ? { priv } : {}) };
}

export async function deleteRecord<R extends BaseRecord>(def: EntityDef<R>, stored: Stored<R>): Promise<void> {
  const d = def as unknown as EntityDef<BaseRecord>;
  const r = stored.record;
  const items = [
    del(recordKey(d, r.id), 'rev = :rev', { ':rev': stored.rev }),
    ...(def.unique ?? []).map((u) => del(uniqueKey(d, u.field, u.key(r)))),
    ...orderingItems(def, r).map((item) => del({ pk: item.pk, sk: item.sk })),
    count(d, -1),
  ];
  await retryOnConflict(() =>
    db()
      .send(new TransactWriteCommand({ TransactItems: items }))
      .catch((err: unknown) => explain(def, err, ['record'])),
  );
}

export interface ListRequest {
  ordering: string;
  descending: boolean;
  limit: number;
  cursor: Cursor | null;
  /** Search terms of `q` (already normalised); all must match. */
  terms?: readonly string[];
  /** Equality filters on filter attributes. */
  equals?: Record<string, string | number | boolean>;
}

export async function listRecords<R extends BaseRecord>(def: EntityDef<R>, req: ListRequest): Promise<IndexPage<R>> {
  if (!(req.ordering in def.orderings)) throw new Error(`unknown ordering ${req.ordering} for ${def.kind}`);
  return queryIndexPage(
    {
      pk: orderingPk(def as unknown as EntityDef<BaseRecord>, req.ordering, req.descending ? 'desc' : 'asc'),
      forward: !req.descending,
      limit: req.limit,
      cursor: req.cursor,
      filter: listFilter(req),
    },
    (item) => item.rec as R,
  );
}

function listFilter(req: ListRequest): IndexFilter | undefined {
  const clauses: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  (req.terms ?? []).forEach((term, i) => {
    names['#sw'] = 'sw';
    values[`:t${i}`] = termNeedle(term);
    clauses.push(`contains(#sw, :t${i})`);
  });
  Object.entries(req.equals ?? {}).forEach(([attr, value], i) => {
    names[`#f${i}`] = attr;
    values[`:f${i}`] = value;
    clauses.push(`#f${i} = :f${i}`);
  });
  return clauses.length === 0 ? undefined : { expression: clauses.join(' AND '), names, values };
}

/** The exact number of records of the entity (kept by every create and delete). */
export async function countRecords<R extends BaseRecord>(def: EntityDef<R>): Promise<number> {
  const key = counterKey(def as unknown as EntityDef<BaseRecord>);
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
  return countFromItem(out.Item);
}

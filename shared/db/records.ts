/**
 * Catalogue records: the storage pattern shared by every entity module of this folder.
 *
 * Items of an entity of kind K (e.g. GENRE), record id I:
 *   record      pk = K#I                 sk = R      { rec: <read shape>, rev, sw }
 *   uniqueness  pk = K#U#<field>#<key>   sk = U      { id [, rec, rev [, priv]] } (one per unique field;
 *                                                    a "carrying" claim holds a copy of the record,
 *                                                    with its private attributes only where declared)
 *   ordering    pk = K#O#<key>#A|D       sk = <sort key, see sort-keys.ts>  { rec, sw, ...filter attrs }
 *   counter     pk = K#N                 sk = N      { n }             (number of records)
 *
 * `rec` is the record's read shape, so a detail GET is one GetItem and a list page one Query.
 * `rev` increases with every change of the representation; writes are conditioned on it
 * (optimistic concurrency, and the atomic half of If-Match). `sw` is the search text of the
 * record (text.ts). Every write is one transaction covering all of a record's items, so the
 * record, its uniqueness claims, its index entries and the counter never disagree. Writes are
 * built as plans (createPlan, replacePlan, deletePlan, itemPlan) and committed together, so a
 * change that spans entities (a user and its profile, a state change and its e-mail) is atomic.
 */
import type { Cursor } from './sort-keys.js';
import { conflict } from '../problem.js';
import { matchesTerms, searchText, termNeedle } from '../text.js';
import { getItems, storableKey, type Item, type ItemKey } from './batch.js';
import { pageOf } from './catalogue-index.js';
import { send, tableName } from './client.js';
import { grant, grants, type CrudGrants, type KeyGrants, type KeyPattern } from './key-patterns.js';
import { cancellationReasons, retryOnConflict } from './errors.js';
import { changePlan, feedKindOf, FEED_WRITES, type FeedChange } from './feed.js';
import { queryIndexPage, type IndexFilter, type IndexPage } from './index-query.js';
import { compareCodePoints, sortKey, type OrderType, type OrderValue } from './sort-keys.js';
import { shardsPlan, TOMBSTONE_KEYS, tombstonePlan } from './tombstones.js';

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
  /** The value compared (already normalised for comparison); null: the record claims none (an optional field unset). */
  key: (r: R) => string | null;
  message: string;
  /**
   * The claim also carries the record, rewritten with every change, so the record can be read by
   * this field in one GetItem (getByUnique): `record` copies `rec` and `rev`; `record+private`
   * also the private attributes (`priv`), for a read that needs them (e.g. a password check by
   * e-mail). A claim without `priv` is safe to grant to functions that must not see them
   * (key-patterns.ts).
   */
  carry?: 'record' | 'record+private';
  /**
   * A value given up may be released after the record's transaction (a staged write's `rest`,
   * replacePlan `released`): the external ids, whose five moves would not fit a write at the
   * maxima's transaction beside its gained links. Until then the old claim still names the
   * record (a clash with it is a 409 naming it; lookups check the record's value).
   */
  releaseLater?: boolean;
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
  /**
   * Other records embed references to these (a genre in an anime's `genres`): a deletion leaves a
   * tombstone that reads filter by until the references are removed (tombstones.ts).
   */
  referenced?: boolean;
  /**
   * Whether a record is explicit (genres and themes, API.md §8.3): the tombstone shards name the
   * explicit ones, kept by the record's own writes (tombstones.ts shardsPlan).
   */
  explicit?: (r: R) => boolean;
}

export interface Stored<R> {
  record: R;
  rev: number;
  /** Attributes kept on the record item (and claims carrying `record+private`), never in responses or index items. */
  priv?: Record<string, unknown>;
}

type AnyDef = EntityDef<BaseRecord>;
const anyDef = <R extends BaseRecord>(def: EntityDef<R>) => def as unknown as AnyDef;

const recordKey = (def: AnyDef, id: string) => recordKeyOfKind(def.kind, id);
const counterKey = (def: AnyDef) => counterKeyOfKind(def.kind);
const uniqueKey = (def: AnyDef, field: string, key: string) => ({ pk: `${def.kind}#U#${field}#${key}`, sk: 'U' });
const orderingPk = (def: AnyDef, ordering: string, dir: 'asc' | 'desc') => `${def.kind}#O#${ordering}#${dir === 'asc' ? 'A' : 'D'}`;

/** Where a record of kind `kind` lives (a reference checked by kind, e.g. `GENRE`). */
export const recordKeyOfKind = (kind: string, id: string): ItemKey => ({ pk: `${kind}#${id}`, sk: 'R' });

/** The id of the record an ordering entry of `def` shows (`<KIND>#O#…`), or null for any other item. */
export function orderingEntryIdOf<R extends BaseRecord>(def: EntityDef<R>, item: { pk?: unknown; rec?: unknown }): string | null {
  return String(item.pk).startsWith(`${def.kind}#O#`) ? ((item.rec as BaseRecord | undefined)?.id ?? null) : null;
}

/** The id of a record item of `kind` (`<kind>#<id>` / `R`), or null for any other item. */
export function recordIdOf(kind: string, item: { pk?: unknown; sk?: unknown }): string | null {
  const pk = String(item.pk);
  return item.sk === 'R' && pk.startsWith(`${kind}#`) && !pk.includes('#', kind.length + 1) ? pk.slice(kind.length + 1) : null;
}
/** Where a record lives (for batched reads, see batch.ts). */
export const recordKeyOf = <R extends BaseRecord>(def: EntityDef<R>, id: string): ItemKey => recordKey(anyDef(def), id);
/** Where the number of records of kind `kind` lives. */
export const counterKeyOfKind = (kind: string): ItemKey => ({ pk: `${kind}#N`, sk: 'N' });
/** Where the number of records of an entity lives (for batched reads). */
export const counterKeyOf = <R extends BaseRecord>(def: EntityDef<R>): ItemKey => counterKey(anyDef(def));
/** Where the claim of a unique value lives (a carried record can be read there, see getByUnique). */
export const uniqueKeyOf = <R extends BaseRecord>(def: EntityDef<R>, field: string, key: string): ItemKey =>
  uniqueKey(anyDef(def), field, key);

/** Every item of an entity: records, claims, ordering entries and the counter. */
export const entityKeys = <R extends BaseRecord>(def: EntityDef<R>): KeyPattern => recordKey(anyDef(def), '*').pk;
/** The claims of one unique field (e.g. usernames), without the records. */
export const claimKeys = <R extends BaseRecord>(def: EntityDef<R>, field: string): KeyPattern => uniqueKey(anyDef(def), field, '*').pk;
/** What a list reads: the ordering entries (Query) and the counter (GetItem). */
export const listReads = <R extends BaseRecord>(def: EntityDef<R>): KeyGrants =>
  grants(grant([orderingPk(anyDef(def), '*', 'asc'), orderingPk(anyDef(def), '*', 'desc')], 'Query'), grant(counterKey(anyDef(def)).pk, 'GetItem'));

/**
 * What the CRUD operations of an entity (shared/http/crud.ts) do to its items: a list reads the
 * ordering entries (Query), the exact count (GetItem; with a token BatchGetItem, with the auth
 * state) and, where the list says so, the page's live records (BatchGetItem); a detail reads the
 * record (GetItem; with a token BatchGetItem); a creation puts the record, its claims and
 * ordering entries and counts it (UpdateItem); a replacement reads the record and puts or moves
 * its items; a deletion reads it, deletes its items, counts it down and, for a record others
 * reference, writes its tombstone (UpdateItem, tombstones.ts). Writes of a kind the change feed
 * follows also put their change (feed.ts).
 */
export function crudGrants<R extends BaseRecord>(def: EntityDef<R>): CrudGrants {
  const own = entityKeys(def);
  // An explicit record is named by the tombstone shards (§8.3).
  const shards = def.explicit ? grant(TOMBSTONE_KEYS, 'UpdateItem') : {};
  // The writes of a kind the change feed follows make its entries (feed.ts).
  const fed = feedKindOf(def.kind) ? FEED_WRITES : {};
  return {
    list: grant(own, 'GetItem', 'BatchGetItem', 'Query'),
    get: grant(own, 'GetItem', 'BatchGetItem'),
    create: grants(grant(own, 'PutItem', 'UpdateItem'), shards, fed),
    update: grants(grant(own, 'GetItem', 'PutItem', 'DeleteItem'), shards, fed),
    delete: grants(grant(own, 'GetItem', 'DeleteItem', 'UpdateItem'), def.referenced ? grant(TOMBSTONE_KEYS, 'UpdateItem') : {}, fed),
  };
}

/** The stored record of a record item, or of a claim that carries it (`null`: no item). */
export function storedFromItem<R extends BaseRecord>(item: Item | null | undefined): Stored<R> | null {
  if (!item) return null;
  if (typeof item.rec !== 'object' || item.rec === null) throw new Error(`item ${String(item.pk)} holds no record`);
  const stored: Stored<R> = { record: item.rec as R, rev: Number(item.rev) };
  if (item.priv) stored.priv = item.priv as Record<string, unknown>;
  return stored;
}

/** The count of a counter item (no item: 0). */
export const countFromItem = (item: Item | null | undefined): number => Number(item?.n ?? 0);

/** The ordering entries of a record (each ordering ascending and descending), as its writes put them. */
export function orderingItems<R extends BaseRecord>(def: EntityDef<R>, r: R): Item[] {
  const extra = def.filterAttributes?.(r) ?? {};
  const sw = searchText(def.searchFields?.(r) ?? []);
  return Object.entries(def.orderings).flatMap(([name, o]) =>
    (['asc', 'desc'] as const).map((dir) => ({
      pk: orderingPk(anyDef(def), name, dir),
      sk: sortKey(o.value(r), o.type, r.id, dir),
      rec: r,
      sw,
      ...extra,
    })),
  );
}

type Condition = { expression: string; names?: Record<string, string>; values?: Item };

export const put = (item: Item, condition?: Condition) => ({
  Put: {
    TableName: tableName(),
    Item: item,
    ...(condition
      ? {
          ConditionExpression: condition.expression,
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
          ...(condition.names ? { ExpressionAttributeNames: condition.names } : {}),
          ...(condition.values ? { ExpressionAttributeValues: condition.values } : {}),
        }
      : {}),
  },
});
/** An update that sets every attribute of `item` but its key (the item's other attributes stay). */
export const update = (item: Item, condition: Condition) => {
  const names: Record<string, string> = { ...condition.names };
  const values: Item = { ...condition.values };
  const sets = Object.entries(item)
    .filter(([k]) => k !== 'pk' && k !== 'sk')
    .map(([k, v], i) => {
      names[`#u${i}`] = k;
      values[`:u${i}`] = v;
      return `#u${i} = :u${i}`;
    });
  return {
    Update: {
      TableName: tableName(),
      Key: { pk: item.pk, sk: item.sk },
      UpdateExpression: `SET ${sets.join(', ')}`,
      ConditionExpression: condition.expression,
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
};
export const del = (key: ItemKey, condition?: Condition) => ({
  Delete: {
    TableName: tableName(),
    Key: key,
    ...(condition
      ? {
          ConditionExpression: condition.expression,
          ...(condition.names ? { ExpressionAttributeNames: condition.names } : {}),
          ...(condition.values ? { ExpressionAttributeValues: condition.values } : {}),
        }
      : {}),
  },
});
const count = (def: AnyDef, delta: 1 | -1) => ({
  Update: {
    TableName: tableName(),
    Key: counterKey(def),
    UpdateExpression: 'ADD n :d',
    ExpressionAttributeValues: { ':d': delta },
  },
});
const NEW = { expression: 'attribute_not_exists(pk)' };
const AT_REV = (rev: number): Condition => ({ expression: '#rev = :rev', names: { '#rev': 'rev' }, values: { ':rev': rev } });
const OWNED_BY = (id: string): Condition => ({ expression: '#id = :id', names: { '#id': 'id' }, values: { ':id': id } });

/** What a failed condition of a transaction item means. */
export type Meaning =
  | { what: 'record'; kind: string }
  | { what: 'unique'; field: string; message: string }
  /** Any other condition: the error it should become. */
  | { what: 'error'; error: () => Error }
  | null;

/** Items of one transaction, each with the meaning of its condition. */
export interface WritePlan {
  items: object[];
  meanings: Meaning[];
}

const plan = (entries: [object, Meaning][]): WritePlan => ({ items: entries.map((e) => e[0]), meanings: entries.map((e) => e[1]) });

/** A plan of one item (e.g. an outbox message written with a state change). */
export const itemPlan = (item: object, meaning: Meaning = null): WritePlan => plan([[item, meaning]]);

/** Several plans as one (their items in order). */
export const joinPlans = (...plans: WritePlan[]): WritePlan => ({ items: plans.flatMap((p) => p.items), meanings: plans.flatMap((p) => p.meanings) });

function claimItem<R extends BaseRecord>(def: EntityDef<R>, u: UniqueField<R>, r: R, rev: number, priv?: Record<string, unknown>): Item {
  const carried = u.carry ? { rec: r, rev, ...(u.carry === 'record+private' && priv ? { priv } : {}) } : {};
  return { ...uniqueKey(anyDef(def), u.field, u.key(r)!), id: r.id, ...carried };
}

/** The unique fields a record claims a value of (an unset optional one claims none). */
const claimed = <R extends BaseRecord>(def: EntityDef<R>, r: R) => (def.unique ?? []).filter((u) => u.key(r) !== null);

/**
 * `extra`: attributes of the record item itself that are not the record (e.g. a title's write id,
 * staged.ts). `counted: false`: the caller's plan moves the counter (slots.ts).
 */
export function createPlan<R extends BaseRecord>(def: EntityDef<R>, r: R, priv?: Record<string, unknown>, extra: Item = {}, counted = true): WritePlan {
  const d = anyDef(def);
  const sw = searchText(def.searchFields?.(r) ?? []);
  const own = plan([
    [put({ ...extra, ...recordKey(d, r.id), kind: def.kind, rev: 1, rec: r, sw, ...(priv ? { priv } : {}) }, NEW), { what: 'record', kind: def.kind }],
    ...claimed(def, r).map((u): [object, Meaning] => [put(claimItem(def, u, r, 1, priv), NEW), { what: 'unique', field: u.field, message: u.message }]),
    ...orderingItems(def, r).map((item): [object, Meaning] => [put(item), null]),
    ...(counted ? [[count(d, 1), null] as [object, Meaning]] : []),
  ]);
  return def.explicit?.(r) ? joinPlans(own, shardsPlan(def.kind, r.id, { explicit: true })) : own;
}

/**
 * Replaces `before` (as read, at its revision) by `after`, moving index and uniqueness items.
 * Private attributes are kept unless `priv` is given.
 *
 * `after` may have another id than `before` (a record re-created under a new id, e.g. an
 * unactivated registration replaced by its address's owner, domain/accounts.ts): the old
 * record item goes and the new one is created; a unique value both share stays claimed, the
 * claim passing to the new id. The count does not change.
 */
export function replacePlan<R extends BaseRecord>(
  def: EntityDef<R>,
  before: Stored<R>,
  after: R,
  priv: Record<string, unknown> | undefined = before.priv,
  extra: Item = {},
  options: {
    /** Update the record item's attributes instead of putting it whole (attributes others keep, e.g. a title's `stats`, stay). */
    update?: boolean;
    /** Where the deletions of claims given up that may follow the transaction go (UniqueField.releaseLater); absent: in the plan. */
    released?: object[];
  } = {},
): WritePlan {
  const d = anyDef(def);
  const rekeyed = after.id !== before.record.id;
  const rev = rekeyed ? 1 : before.rev + 1;
  const sw = searchText(def.searchFields?.(after) ?? []);
  const record = { ...extra, ...recordKey(d, after.id), kind: def.kind, rev, rec: after, sw, ...(priv ? { priv } : {}) };
  if (options.update && rekeyed) throw new Error('a re-keyed record is put, not updated');
  const entries: [object, Meaning][] = rekeyed
    ? [
        [del(recordKey(d, before.record.id), AT_REV(before.rev)), { what: 'record', kind: def.kind }],
        [put(record, NEW), { what: 'record', kind: def.kind }],
      ]
    : [[options.update ? update(record, AT_REV(before.rev)) : put(record, AT_REV(before.rev)), { what: 'record', kind: def.kind }]];
  for (const u of def.unique ?? []) {
    const oldKey = u.key(before.record);
    const newKey = u.key(after);
    if (oldKey === newKey) {
      if (newKey !== null && (u.carry || rekeyed)) entries.push([put(claimItem(def, u, after, rev, priv), OWNED_BY(before.record.id)), { what: 'record', kind: def.kind }]);
      continue;
    }
    if (oldKey !== null) {
      const release = del(uniqueKey(d, u.field, oldKey));
      if (u.releaseLater && options.released && !rekeyed) options.released.push(release);
      else entries.push([release, null]);
    }
    if (newKey !== null) entries.push([put(claimItem(def, u, after, rev, priv), NEW), { what: 'unique', field: u.field, message: u.message }]);
  }
  const newItems = orderingItems(def, after);
  const oldItems = orderingItems(def, before.record);
  for (const [i, item] of newItems.entries()) {
    const old = oldItems[i]!;
    if (old.sk !== item.sk) entries.push([del({ pk: String(old.pk), sk: String(old.sk) }), null]);
    entries.push([put(item), null]);
  }
  const explicit = def.explicit?.(after);
  if (def.explicit && def.explicit(before.record) !== explicit) return joinPlans(plan(entries), shardsPlan(def.kind, after.id, { explicit }));
  return plan(entries);
}

/** `counted: false`: the caller's plan moves the counter (slots.ts). */
export function deletePlan<R extends BaseRecord>(def: EntityDef<R>, stored: Stored<R>, counted = true): WritePlan {
  const d = anyDef(def);
  const r = stored.record;
  const own = plan([
    [del(recordKey(d, r.id), AT_REV(stored.rev)), { what: 'record', kind: def.kind }],
    ...claimed(def, r).map((u): [object, Meaning] => [del(uniqueKey(d, u.field, u.key(r)!)), null]),
    ...orderingItems(def, r).map((item): [object, Meaning] => [del({ pk: String(item.pk), sk: String(item.sk) }), null]),
    ...(counted ? [[count(d, -1), null] as [object, Meaning]] : []),
  ]);
  if (def.explicit?.(r)) return joinPlans(own, shardsPlan(def.kind, r.id, { deleted: def.referenced === true, explicit: false }));
  return def.referenced ? joinPlans(own, tombstonePlan(def.kind, r.id)) : own;
}

/**
 * A condition, without a change, that the item at `key` is still at revision `rev`: for a write
 * that depends on a record it does not change (e.g. a profile created for a user, which copies
 * the user's username; checked on the user's auth state, which carries its revision). Fails as
 * StaleRecord of `kind` when the item changed or vanished.
 */
export function unchangedPlan(key: ItemKey, rev: number, kind: string): WritePlan {
  const condition = AT_REV(rev);
  return plan([
    [
      {
        ConditionCheck: {
          TableName: tableName(),
          Key: key,
          ConditionExpression: condition.expression,
          ExpressionAttributeNames: condition.names,
          ExpressionAttributeValues: condition.values,
        },
      },
      { what: 'record', kind },
    ],
  ]);
}

/** Thrown when a record changed (or vanished) since it was read. */
export class StaleRecord extends Error {
  readonly kind: string;
  constructor(kind: string) {
    super(`${kind} record changed since it was read`);
    this.name = 'StaleRecord';
    this.kind = kind;
  }
}

/**
 * Runs plans as one transaction (retried on conflicts with other transactions). A failed
 * condition becomes the error it means: a uniqueness clash (409 with the existing id), a stale
 * record (StaleRecord), or the plan's own error.
 */
export async function commit(...plans: WritePlan[]): Promise<void> {
  return commitTrying(4, plans);
}

/**
 * As commit, for transactions on items many requests write at once (a popular title's counters,
 * list edits): conflicting transactions are retried more often (with growing, jittered waits)
 * before the request gives up with 503.
 */
export async function commitContended(...plans: WritePlan[]): Promise<void> {
  return commitTrying(10, plans);
}

async function commitTrying(tries: number, plans: WritePlan[]): Promise<void> {
  const items = plans.flatMap((p) => p.items);
  const meanings = plans.flatMap((p) => p.meanings);
  if (items.length > 100) throw new Error(`a transaction of ${items.length} items is over DynamoDB's limit of 100`);
  await retryOnConflict(() =>
    send((c) => new c.TransactWriteCommand({ TransactItems: items as never }))
      .catch((err: unknown) => {
        const reasons = cancellationReasons(err);
        if (!reasons) throw err;
        // Uniqueness clashes first: they are the client's to fix (409).
        for (const [i, reason] of reasons.entries()) {
          const m = meanings[i];
          if (reason.Code === 'ConditionalCheckFailed' && m?.what === 'unique') {
            throw conflict(m.field, m.message, reason.Item?.id as string | undefined);
          }
        }
        for (const [i, reason] of reasons.entries()) {
          const m = meanings[i];
          if (reason.Code !== 'ConditionalCheckFailed' || !m) continue;
          if (m.what === 'record') throw new StaleRecord(m.kind);
          if (m.what === 'error') throw m.error();
        }
        throw err;
      }),
    tries,
  );
}

/** Commits a write of a record of `def`: for a kind the change feed follows, with its change (feed.ts); `also`: plans committed with it. */
async function commitRecordWrite<R extends BaseRecord>(def: EntityDef<R>, id: string, change: FeedChange, plan: WritePlan, ...also: WritePlan[]): Promise<void> {
  const kind = feedKindOf(def.kind);
  await commit(plan, ...(kind ? [changePlan({ kind, id, change })] : []), ...also);
}

/** `also`: plans committed with the record (e.g. a creation's stored answer, shared/db/idempotency.ts). */
export async function createRecord<R extends BaseRecord>(def: EntityDef<R>, r: R, priv?: Record<string, unknown>, ...also: WritePlan[]): Promise<Stored<R>> {
  await commitRecordWrite(def, r.id, 'created', createPlan(def, r, priv), ...also);
  return { record: r, rev: 1, ...(priv ? { priv } : {}) };
}

export async function getRecord<R extends BaseRecord>(def: EntityDef<R>, id: string): Promise<Stored<R> | null> {
  const out = await send((c) => new c.GetCommand({ TableName: tableName(), Key: recordKey(anyDef(def), id), ConsistentRead: true }));
  return storedFromItem<R>(out.Item);
}

/** The record that holds a unique value, read from its claim (the field must carry the record). */
export async function getByUnique<R extends BaseRecord>(def: EntityDef<R>, field: string, key: string): Promise<Stored<R> | null> {
  const claim = uniqueKey(anyDef(def), field, key);
  // A value too long for a key was never claimed (e.g. a 200,000-character e-mail at sign-in).
  if (!storableKey(claim)) return null;
  const out = await send((c) => new c.GetCommand({ TableName: tableName(), Key: claim, ConsistentRead: true }));
  return storedFromItem<R>(out.Item);
}

export async function replaceRecord<R extends BaseRecord>(
  def: EntityDef<R>,
  before: Stored<R>,
  after: R,
  priv: Record<string, unknown> | undefined = before.priv,
): Promise<Stored<R>> {
  await commitRecordWrite(def, after.id, 'updated', replacePlan(def, before, after, priv));
  return { record: after, rev: before.rev + 1, ...(priv ? { priv } : {}) };
}

export async function deleteRecord<R extends BaseRecord>(def: EntityDef<R>, stored: Stored<R>): Promise<void> {
  await commitRecordWrite(def, stored.record.id, 'deleted', deletePlan(def, stored));
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
  /**
   * A second way for a record to match the `terms` (the users' `q`, API.md §4.21.1): it also
   * matches when this filter attribute starts with `prefix`. Ignored without terms.
   */
  orPrefix?: { attribute: string; prefix: string };
}

/**
 * Brings a record's ordering entries in line with its stored state after a change that did not
 * rewrite them (a count changed by a linked title's write, titles.ts): the entries of `before`
 * that `after` no longer has are deleted and those of `after` written. Idempotent; applied by
 * the catalogue stream consumer in the order of the record's changes.
 */
export function reorderPlan<R extends BaseRecord>(def: EntityDef<R>, before: R, after: R): object[] {
  const now = orderingItems(def, after);
  const keep = new Set(now.map((i) => `${String(i.pk)}\u0000${String(i.sk)}`));
  const gone = orderingItems(def, before).filter((i) => !keep.has(`${String(i.pk)}\u0000${String(i.sk)}`));
  return [...gone.map((i) => del({ pk: String(i.pk), sk: String(i.sk) })), ...now.map((i) => put(i))];
}

/** Deletes every ordering entry of a record's image (a deleted record's, whatever wrote them last). */
export function unorderPlan<R extends BaseRecord>(def: EntityDef<R>, before: R): object[] {
  return orderingItems(def, before).map((i) => del({ pk: String(i.pk), sk: String(i.sk) }));
}

export async function listRecords<R extends BaseRecord>(def: EntityDef<R>, req: ListRequest): Promise<IndexPage<R>> {
  if (!Object.hasOwn(def.orderings, req.ordering)) throw new Error(`unknown ordering ${req.ordering} for ${def.kind}`);
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

/**
 * The page of `req` among the records `ids` names (`ids`, API.md §8.1): the records read by id
 * (one BatchGetItem round: at most 100 keys), matched and put in order in memory as their
 * ordering entries would be (orderingItems, listFilter), with the same cursors. Ids of no record
 * are left out.
 */
export async function listRecordsAmong<R extends BaseRecord>(def: EntityDef<R>, ids: readonly string[], req: ListRequest): Promise<IndexPage<R>> {
  const o = def.orderings[req.ordering];
  if (!o) throw new Error(`unknown ordering ${req.ordering} for ${def.kind}`);
  const dir = req.descending ? 'desc' : 'asc';
  const found = (await getItems(ids.map((id) => recordKey(anyDef(def), id)))).flatMap((item) => {
    const r = storedFromItem<R>(item)?.record;
    if (!r) return [];
    const attrs: Record<string, unknown> = def.filterAttributes?.(r) ?? {};
    const byTerms = matchesTerms(searchText(def.searchFields?.(r) ?? []), req.terms ?? []);
    const byPrefix = req.orPrefix !== undefined && (req.terms ?? []).length > 0 && String(attrs[req.orPrefix.attribute] ?? '').startsWith(req.orPrefix.prefix);
    if (!(byTerms || byPrefix) || Object.entries(req.equals ?? {}).some(([k, v]) => attrs[k] !== v)) return [];
    return [{ sk: sortKey(o.value(r), o.type, r.id, dir), value: r }];
  });
  found.sort((a, b) => (req.descending ? -1 : 1) * compareCodePoints(a.sk, b.sk));
  const { kept, next, previous } = pageOf(found, req.descending, req.limit, req.cursor);
  return { items: kept, next, previous, reads: 0 };
}

function listFilter(req: ListRequest): IndexFilter | undefined {
  const clauses: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const termClauses = (req.terms ?? []).map((term, i) => {
    names['#sw'] = 'sw';
    values[`:t${i}`] = termNeedle(term);
    return `contains(#sw, :t${i})`;
  });
  if (termClauses.length > 0 && req.orPrefix) {
    names['#op'] = req.orPrefix.attribute;
    values[':op'] = req.orPrefix.prefix;
    clauses.push(`((${termClauses.join(' AND ')}) OR begins_with(#op, :op))`);
  } else {
    clauses.push(...termClauses);
  }
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
  const out = await send((c) => new c.GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
  return countFromItem(out.Item);
}

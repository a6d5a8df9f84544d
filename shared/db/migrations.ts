/**
 * The store's schema version and what migrating a store from one version to the next needs of
 * the table (docs/data-model.md "Schema version"; docs/decisions.md Y1–Y6):
 *
 *   version     pk = SCHEMA   sk = V         { version, at }                          the format the store's items have
 *   checkpoint  pk = SCHEMA   sk = M#<to>    { holder, lease_until, phase, kind, after, done, at }   how far the migration to `to` got
 *
 * A store holds its version in one item. A table created by this code (infra/local/engines.ts
 * ensureTable, the benchmark's loaders) gets the current version with its creation, so a new
 * store never migrates; a store without the item that holds data was written before versions
 * were recorded: version 1 (before issue 18). shared/domain/migrations.ts holds the steps and
 * runs them; the version is raised only after a step has finished, in one transaction with the
 * removal of its checkpoint.
 *
 * The checkpoint is also a lease: one migration of a store at a time. A runner takes it (absent,
 * expired or its own) and renews it with every checkpoint it saves; another runner is refused
 * while the lease lasts.
 *
 * Migrations are one-off admin work, run with the operator's credentials (never by a function):
 * they may Scan (scanTable), which no request path does (DESIGN.md §4).
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { queryAll, writeItems, type Item, type ItemKey } from './batch.js';
import { send, tableName } from './client.js';
import { isConditionalCheckFailed } from './errors.js';
import { db } from './sdk.js';

/** The format this code reads and writes. Raised by every step added to shared/domain/migrations.ts. */
export const SCHEMA_VERSION = 7;

/** The version of a store that holds data but no version item: written before versions were recorded (before issue 18). */
export const UNRECORDED_VERSION = 1;

const SCHEMA_PK = 'SCHEMA';
const VERSION_KEY: ItemKey = { pk: SCHEMA_PK, sk: 'V' };
const checkpointKey = (to: number): ItemKey => ({ pk: SCHEMA_PK, sk: `M#${to}` });

/** The version item of a store created by this code (put with the table's creation). */
export const schemaVersionItem = (at = new Date()): Item => ({ ...VERSION_KEY, version: SCHEMA_VERSION, at: at.toISOString() });

/** Whether an item is one of this module's (the version, a checkpoint): not the store's data. */
export const isSchemaItem = (item: { pk?: unknown }): boolean => item.pk === SCHEMA_PK;

/**
 * The store's version: its version item's, else UNRECORDED_VERSION when the table holds any
 * other item, else null (an empty table: a new store).
 */
export async function storeVersion(): Promise<number | null> {
  const out = await send((c) => new c.GetCommand({ TableName: tableName(), Key: VERSION_KEY, ConsistentRead: true }));
  if (out.Item) return Number(out.Item.version);
  return (await holdsData()) ? UNRECORDED_VERSION : null;
}

/** Whether the table holds an item that is not the schema's (a Scan that stops at the first one). */
async function holdsData(): Promise<boolean> {
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db().send(
      new ScanCommand({
        TableName: tableName(),
        FilterExpression: '#pk <> :schema',
        ExpressionAttributeNames: { '#pk': 'pk' },
        ExpressionAttributeValues: { ':schema': SCHEMA_PK },
        ProjectionExpression: '#pk',
        Limit: 25,
        ExclusiveStartKey: start,
      }),
    );
    if ((out.Items ?? []).length > 0) return true;
    start = out.LastEvaluatedKey;
  } while (start);
  return false;
}

/**
 * Records that the store is at version `to` (it was at `from`; null: no version item), and drops
 * the checkpoint of the migration to `to`, in one transaction. Refused (an error) when the
 * version item says something else: another runner moved it.
 */
export async function setStoreVersion(from: number | null, to: number): Promise<void> {
  const condition =
    from === null || from === UNRECORDED_VERSION
      ? { ConditionExpression: 'attribute_not_exists(pk) OR version = :from', ExpressionAttributeValues: { ':from': from ?? UNRECORDED_VERSION } }
      : { ConditionExpression: 'version = :from', ExpressionAttributeValues: { ':from': from } };
  try {
    await send((c) =>
      new c.TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: tableName(), Item: { ...VERSION_KEY, version: to, at: new Date().toISOString() }, ...condition } },
          { Delete: { TableName: tableName(), Key: checkpointKey(to) } },
        ],
      }),
    );
  } catch (err) {
    if ((err as Error).name === 'TransactionCanceledException') throw new Error(`the store's version is no longer ${from ?? 'unrecorded'}: another migration ran meanwhile`);
    throw err;
  }
}

/** A migration's progress, as its step saves it (phase and position are the step's). */
export interface Checkpoint {
  phase: string;
  /** The kind a walk is in and the key it stopped after (null: from the start). */
  kind?: string;
  after?: string | null;
  /** Units done so far (progress only). */
  done?: number;
}

/** How long a runner's lease lasts without a checkpoint saved. */
const LEASE_MS = 10 * 60_000;

/** Someone else's migration holds the lease. */
export class MigrationRunning extends Error {
  constructor(until: string) {
    super(`another migration of this store is running (its lease lasts until ${until}); wait for it, or run again after that time if it was stopped`);
    this.name = 'MigrationRunning';
  }
}

/**
 * Takes the lease of the migration to `to` for `holder` (absent, expired or already its own) and
 * returns the checkpoint saved so far (null: the migration starts from the beginning).
 */
export async function takeMigration(to: number, holder: string): Promise<Checkpoint | null> {
  const now = new Date();
  try {
    const out = await send((c) =>
      new c.UpdateCommand({
        TableName: tableName(),
        Key: checkpointKey(to),
        UpdateExpression: 'SET #holder = :holder, #until = :until',
        ConditionExpression: 'attribute_not_exists(#holder) OR #holder = :holder OR #until < :now',
        ExpressionAttributeNames: { '#holder': 'holder', '#until': 'lease_until' },
        ExpressionAttributeValues: { ':holder': holder, ':until': new Date(now.getTime() + LEASE_MS).toISOString(), ':now': now.toISOString() },
        ReturnValues: 'ALL_NEW',
      }),
    );
    const item = out.Attributes ?? {};
    return typeof item.phase === 'string' ? { phase: item.phase, kind: item.kind as string | undefined, after: (item.after as string | null | undefined) ?? null, done: Number(item.done ?? 0) } : null;
  } catch (err) {
    if (!isConditionalCheckFailed(err)) throw err;
    const held = await send((c) => new c.GetCommand({ TableName: tableName(), Key: checkpointKey(to), ConsistentRead: true }));
    throw new MigrationRunning(String(held.Item?.lease_until ?? 'unknown'));
  }
}

/** Saves the checkpoint of the migration to `to` and renews `holder`'s lease (refused when the lease was lost). */
export async function saveCheckpoint(to: number, holder: string, c: Checkpoint): Promise<void> {
  const now = new Date();
  try {
    await send((s) =>
      new s.PutCommand({
        TableName: tableName(),
        Item: { ...checkpointKey(to), holder, lease_until: new Date(now.getTime() + LEASE_MS).toISOString(), phase: c.phase, kind: c.kind ?? null, after: c.after ?? null, done: c.done ?? 0, at: now.toISOString() },
        ConditionExpression: '#holder = :holder',
        ExpressionAttributeNames: { '#holder': 'holder' },
        ExpressionAttributeValues: { ':holder': holder },
      }),
    );
  } catch (err) {
    if (isConditionalCheckFailed(err)) throw new MigrationRunning('unknown (this run lost its lease)');
    throw err;
  }
}

/** Gives the lease back (a run that stops early keeps its checkpoint; the next run takes it at once). */
export async function releaseMigration(to: number, holder: string): Promise<void> {
  try {
    await send((c) =>
      new c.UpdateCommand({
        TableName: tableName(),
        Key: checkpointKey(to),
        UpdateExpression: 'REMOVE #holder, #until',
        ConditionExpression: '#holder = :holder',
        ExpressionAttributeNames: { '#holder': 'holder', '#until': 'lease_until' },
        ExpressionAttributeValues: { ':holder': holder },
      }),
    );
  } catch (err) {
    if (!isConditionalCheckFailed(err)) throw err;
  }
}

/** The checkpoint of the migration to `to`, if one was saved (tests, and the version's report). */
export async function readCheckpoint(to: number): Promise<Item | null> {
  const out = await send((c) => new c.GetCommand({ TableName: tableName(), Key: checkpointKey(to), ConsistentRead: true }));
  return out.Item ?? null;
}

// ---- Reading the whole table

export interface ScanOptions {
  /** Parallel segments (DynamoDB's parallel scan). */
  segments: number;
  /** A filter expression evaluated by DynamoDB (what is read is billed either way; less is sent). */
  filter?: { expression: string; names?: Record<string, string>; values?: Record<string, unknown> };
  /** Called with every page of every segment (pages of one segment in order, segments at once). */
  onPage: (items: Item[], scanned: number) => Promise<void>;
}

/**
 * Every item of the table, strongly consistent, read by `segments` parallel segments (a one-off
 * migration only: never on a request path). Items written during the scan may or may not be
 * seen; every item that exists throughout it is seen once.
 */
export async function scanTable(opts: ScanOptions): Promise<void> {
  const segment = async (n: number) => {
    let start: Record<string, unknown> | undefined;
    do {
      const out = await db().send(
        new ScanCommand({
          TableName: tableName(),
          Segment: n,
          TotalSegments: opts.segments,
          ConsistentRead: true,
          ExclusiveStartKey: start,
          ...(opts.filter
            ? {
                FilterExpression: opts.filter.expression,
                ...(opts.filter.names ? { ExpressionAttributeNames: opts.filter.names } : {}),
                ...(opts.filter.values ? { ExpressionAttributeValues: opts.filter.values } : {}),
              }
            : {}),
        }),
      );
      await opts.onPage((out.Items ?? []) as Item[], out.ScannedCount ?? 0);
      start = out.LastEvaluatedKey;
    } while (start);
  };
  await Promise.all(Array.from({ length: opts.segments }, (_, n) => segment(n)));
}

// ---- Exact counts put as totals

/**
 * Puts the count item at `key` with the numbers `want` (attribute → number), provided it still
 * holds what was read of it (`read`: its count attributes; null: absent) — a count a write
 * changed since is left for the next pass. Attributes read but not wanted are set to 0. Returns
 * false when the item was changed meanwhile. Nothing is written when the item already holds
 * `want` (a count at 0 and an absent one are the same).
 */
export async function putCountIfUnchanged(key: ItemKey, read: Item | null, want: Readonly<Record<string, number>>): Promise<'unchanged' | 'put' | 'changed'> {
  const attrs = [...new Set([...Object.keys(want), ...Object.keys(read ?? {}).filter((a) => a !== 'pk' && a !== 'sk')])].sort();
  const value = (a: string) => want[a] ?? 0;
  if (attrs.every((a) => Number(read?.[a] ?? 0) === value(a))) return 'unchanged';
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const conditions = attrs.map((a, i) => {
    names[`#a${i}`] = a;
    if (read?.[a] === undefined) return `attribute_not_exists(#a${i})`;
    values[`:r${i}`] = read[a];
    return `#a${i} = :r${i}`;
  });
  if (read === null) {
    names['#pk'] = 'pk';
    conditions.splice(0, conditions.length, 'attribute_not_exists(#pk)');
    for (const k of Object.keys(names)) if (k !== '#pk') delete names[k];
  }
  try {
    await send((c) =>
      new c.PutCommand({
        TableName: tableName(),
        Item: { ...key, ...Object.fromEntries(attrs.map((a) => [a, value(a)])) },
        ConditionExpression: conditions.join(' AND '),
        ExpressionAttributeNames: names,
        ...(Object.keys(values).length > 0 ? { ExpressionAttributeValues: values } : {}),
      }),
    );
    return 'put';
  } catch (err) {
    if (isConditionalCheckFailed(err)) return 'changed';
    throw err;
  }
}

/**
 * The partition of the schedule's digest, which schema versions 1–3 kept beside the titles'
 * index (one item per airing anime, `ANIME#D#schedule` / `<id>`, written by every anime write):
 * version 4 serves the schedule from the anime index's vectors and deletes it (docs/decisions.md O15).
 */
export const SCHEDULE_DIGEST_PK = 'ANIME#D#schedule';

/** Deletes every item of a partition (a few thousand at most: one Query per MB); how many there were. */
export async function deletePartition(pk: string): Promise<number> {
  const keys = (await queryAll(pk)).map((i) => ({ pk: String(i.pk), sk: String(i.sk) }));
  await writeItems([], keys);
  return keys.length;
}

/**
 * The items schema versions 2–4 kept for `GET /api/persons/{id}/voices/` beside the voice groups
 * (decisions N1, N3): each voice entry in six ordering partitions (`PERSON#<p>#V#<ordering>#A|D`)
 * and a person's counts (`PERSON#<p>#X` / `VN`, `VC#<c>`). Version 5 orders the groups in memory
 * by the indexes and counts them (decision O17) and deletes these: the Scan's filter, and the test
 * of an item it returns.
 */
export const VOICE_ITEMS_V4 = {
  filter: {
    expression: 'begins_with(pk, :person) AND (contains(pk, :entries) OR sk = :counts OR begins_with(sk, :character))',
    values: { ':person': 'PERSON#', ':entries': '#V#', ':counts': 'VN', ':character': 'VC#' },
  },
  test: (i: Item): boolean => /^PERSON#[^#]+#V#/.test(String(i.pk)) || (/^PERSON#[^#]+#X$/.test(String(i.pk)) && /^(VN$|VC#)/.test(String(i.sk))),
};

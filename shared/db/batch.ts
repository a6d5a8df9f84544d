/**
 * Reading several items that a request needs anyway in one BatchGetItem (strongly consistent),
 * e.g. the caller's auth state together with a record or a counter. Keys are opaque to callers:
 * they come from the entity modules of this folder.
 */
import { send, tableName } from './client.js';

export interface ItemKey {
  pk: string;
  sk: string;
}

export type Item = Record<string, unknown>;

const id = (k: ItemKey) => `${k.pk}\u0000${k.sk}`;

/**
 * Whether an item can have this key: DynamoDB refuses partition key values over 2,048 bytes and
 * sort key values over 1,024 (a ValidationException, not "no item"). A key built from a value a
 * client sent unchecked (e.g. the e-mail of a sign-in) may be longer; nothing is stored there.
 */
export const storableKey = (k: ItemKey): boolean => Buffer.byteLength(k.pk, 'utf8') <= 2048 && Buffer.byteLength(k.sk, 'utf8') <= 1024;

/**
 * The items at `keys`, in the same order (`null` where there is none): one call per 100 keys, in
 * parallel; strongly consistent unless `consistent` is false (half the read units).
 */
export async function getItems(keys: readonly ItemKey[], consistent = true): Promise<(Item | null)[]> {
  if (keys.length <= MAX_KEYS) return getBatch(keys, consistent);
  const parts: ItemKey[][] = [];
  for (let i = 0; i < keys.length; i += MAX_KEYS) parts.push(keys.slice(i, i + MAX_KEYS));
  return (await Promise.all(parts.map((p) => getBatch(p, consistent)))).flat();
}

/** Keys per BatchGetItem (DynamoDB's limit). */
const MAX_KEYS = 100;

async function getBatch(keys: readonly ItemKey[], consistent: boolean): Promise<(Item | null)[]> {
  const unique = [...new Map(keys.filter(storableKey).map((k) => [id(k), { pk: k.pk, sk: k.sk }])).values()];
  const found = new Map<string, Item>();
  let pending: ItemKey[] = unique;
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt > 0) await new Promise((r) => setTimeout(r, 20 * 2 ** attempt));
    if (attempt > 5) throw Object.assign(new Error('BatchGetItem left keys unprocessed'), { name: 'ProvisionedThroughputExceededException' });
    const table = tableName();
    const out = await send((c) => new c.BatchGetCommand({ RequestItems: { [table]: { Keys: pending, ConsistentRead: consistent } } }));
    for (const item of out.Responses?.[table] ?? []) found.set(id(item as ItemKey), item);
    pending = (out.UnprocessedKeys?.[table]?.Keys ?? []) as ItemKey[];
  }
  return keys.map((k) => found.get(id(k)) ?? null);
}

/**
 * Every item of one partition (optionally only the sort keys beginning with `prefix`), strongly
 * consistent unless `consistent` is false: one Query, more only when the partition holds over 1 MB.
 */
export async function queryAll(pk: string, prefix?: string, consistent = true): Promise<Item[]> {
  const items: Item[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await send((c) =>
      new c.QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: prefix === undefined ? 'pk = :pk' : 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': pk, ...(prefix === undefined ? {} : { ':prefix': prefix }) },
        ConsistentRead: consistent,
        ExclusiveStartKey: start,
      }),
    );
    items.push(...((out.Items ?? []) as Item[]));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}

/** Items per BatchWriteItem (DynamoDB's limit). */
const MAX_WRITES = 25;

/**
 * Puts and deletes, unconditional and each idempotent (for items kept in step by a consumer or
 * loaded in bulk): 25 per call, 4 calls in flight, unprocessed ones retried with backoff.
 */
export async function writeItems(puts: readonly Item[], deletes: readonly ItemKey[] = []): Promise<void> {
  const requests = [...puts.map((Item) => ({ PutRequest: { Item } })), ...deletes.map((k) => ({ DeleteRequest: { Key: { pk: k.pk, sk: k.sk } } }))];
  const batches: (typeof requests)[] = [];
  for (let i = 0; i < requests.length; i += MAX_WRITES) batches.push(requests.slice(i, i + MAX_WRITES));
  const write = async (batch: typeof requests) => {
    let pending = batch;
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, 20 * 2 ** attempt));
      if (attempt > 6) throw Object.assign(new Error('BatchWriteItem left items unprocessed'), { name: 'ProvisionedThroughputExceededException' });
      const table = tableName();
      const out = await send((c) => new c.BatchWriteCommand({ RequestItems: { [table]: pending } }));
      pending = (out.UnprocessedItems?.[table] ?? []) as typeof requests;
    }
  };
  for (let i = 0; i < batches.length; i += 4) await Promise.all(batches.slice(i, i + 4).map(write));
}

/** Items per TransactWriteItems (DynamoDB's limit), and a margin under its 4 MB per call. */
const MAX_TRANSACT = 100;
const MAX_TRANSACT_BYTES = 3_500_000;

/**
 * Puts a stream of items with BatchWriteItem (a bulk load: unconditional puts of final values),
 * 25 per call with up to `inFlight` calls at once, so that building the next items overlaps the
 * writes; unprocessed items are retried with backoff. `put` waits only when `inFlight` calls are
 * under way; `drain` waits for the rest and throws the first failure.
 *
 * `transact: true` puts up to 100 items per TransactWriteItems instead (never the same key twice
 * in a load): DynamoDB Local keeping its data on disk writes one call in one SQLite transaction,
 * so four times the items per call load about twice as fast (measured on the first start's
 * import, docs/decisions.md I7). On AWS a transaction costs twice the write capacity: keep the
 * default there.
 */
export class BulkWriter {
  /** Items written so far. */
  written = 0;
  private pending: Item[] = [];
  private pendingBytes = 0;
  private readonly running = new Set<Promise<void>>();
  private failure: unknown = null;
  private readonly perCall: number;

  constructor(
    private readonly inFlight = 8,
    private readonly opts: { transact?: boolean } = {},
  ) {
    this.perCall = opts.transact ? MAX_TRANSACT : MAX_WRITES;
  }

  async put(item: Item): Promise<void> {
    if (this.opts.transact) {
      const bytes = JSON.stringify(item).length;
      if (this.pending.length > 0 && this.pendingBytes + bytes > MAX_TRANSACT_BYTES) await this.flush();
      this.pendingBytes += bytes;
    }
    this.pending.push(item);
    if (this.pending.length >= this.perCall) await this.flush();
  }

  async drain(): Promise<void> {
    while (this.pending.length > 0) await this.flush();
    await Promise.all(this.running);
    if (this.failure !== null) throw this.failure;
  }

  private async flush(): Promise<void> {
    while (this.running.size >= this.inFlight) await Promise.race(this.running);
    if (this.failure !== null) throw this.failure;
    const items = this.pending.splice(0, this.perCall);
    this.pendingBytes = 0;
    const call: Promise<void> = (this.opts.transact ? this.transact(items) : this.batchWrite(items))
      .catch((err: unknown) => {
        this.failure ??= err;
      })
      .finally(() => this.running.delete(call));
    this.running.add(call);
  }

  private async transact(items: Item[]): Promise<void> {
    const TableName = tableName();
    for (let attempt = 0; ; attempt++) {
      try {
        await send((c) => new c.TransactWriteCommand({ TransactItems: items.map((Item) => ({ Put: { TableName, Item } })) }));
        this.written += items.length;
        return;
      } catch (err) {
        const name = (err as { name?: string }).name ?? '';
        if (attempt >= 8 || !/TransactionCanceled|Throttl|ProvisionedThroughputExceeded|InternalServerError|TransactionInProgress/.test(name)) throw err;
        await new Promise((r) => setTimeout(r, Math.min(2000, 25 * 2 ** attempt)));
      }
    }
  }

  private async batchWrite(items: Item[]): Promise<void> {
    const table = tableName();
    let requests = items.map((Item) => ({ PutRequest: { Item } }));
    for (let attempt = 0; requests.length > 0; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(2000, 25 * 2 ** attempt)));
      if (attempt > 12) throw Object.assign(new Error(`BatchWriteItem left ${requests.length} items unprocessed`), { name: 'ProvisionedThroughputExceededException' });
      const out = await send((c) => new c.BatchWriteCommand({ RequestItems: { [table]: requests } }));
      const left = (out.UnprocessedItems?.[table] ?? []) as typeof requests;
      this.written += requests.length - left.length;
      requests = left;
    }
  }
}

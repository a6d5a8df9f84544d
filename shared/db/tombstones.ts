/**
 * Tombstones: the ids of deleted catalogue records whose references elsewhere have not been
 * removed yet (API.md §1.8: a deleted record disappears at once from every view; filtering at
 * read time is allowed). docs/data-model.md "Deletions and renames". The shards also name the
 * explicit genres and themes (§8.3), which the reads that leave them out need with the same read.
 *
 *   pk = DELETED   sk = <shard>   { <KIND>: string set of ids, EXPLICIT#<KIND>: string set of ids }
 *                                                                     (shards 0 … SHARDS-1)
 *
 * A deletion adds the id to every shard in its own transaction (deletePlan, for the entities
 * that others reference); every read that shows embedded references reads one shard, chosen at
 * random, in the batch it already makes, and leaves out what it names. The catalogue stream
 * consumer removes the references for good (catalogue-stream.ts) and then the id. The item stays
 * small — a deletion is pending only for the seconds its cleanup takes — so reading it costs one
 * read unit; the shards spread the reads of every catalogue page over several items (DynamoDB
 * serves about 3,000 strongly consistent reads per second of one item).
 */
import { serviceUnavailable } from '../problem.js';
import type { Item, ItemKey } from './batch.js';
import { send, tableName } from './client.js';
import { grant, type KeyGrants } from './key-patterns.js';
import type { WritePlan } from './records.js';

export const TOMBSTONE_SHARDS = 4;
/** Pending deletions of one kind beyond which deletions wait (503) for the cleanup to catch up. */
export const MAX_PENDING = 2_000;
/** The partition-key pattern of the tombstone items (key-patterns.ts). */
export const TOMBSTONE_KEYS = 'DELETED';
/** Reading the tombstones, always together with what a request reads anyway (BatchGetItem). */
export const TOMBSTONE_READS: KeyGrants = grant(TOMBSTONE_KEYS, 'BatchGetItem');

const shardKey = (n: number): ItemKey => ({ pk: 'DELETED', sk: String(n) });
/** The prefix of the shards' attributes that name explicit records rather than deleted ones. */
const EXPLICIT = 'EXPLICIT#';

/** The tombstone shard a read uses: chosen by `seed` (e.g. the request's id) or at random. */
export function tombstoneKey(seed?: string): ItemKey {
  if (seed === undefined) return shardKey(Math.floor(Math.random() * TOMBSTONE_SHARDS));
  let h = 0;
  for (let i = 0; i < seed.length; i++) h = (h * 31 + seed.charCodeAt(i)) >>> 0;
  return shardKey(h % TOMBSTONE_SHARDS);
}

/** The deleted ids a tombstone item names, by kind; and the explicit genres and themes. */
export class Deleted {
  private readonly sets: Map<string, ReadonlySet<string>>;
  private readonly flagged: Map<string, ReadonlySet<string>>;
  constructor(item: Item | null | undefined) {
    this.sets = new Map();
    this.flagged = new Map();
    for (const [k, v] of Object.entries(item ?? {})) {
      if (!(v instanceof Set)) continue;
      if (k.startsWith(EXPLICIT)) this.flagged.set(k.slice(EXPLICIT.length), v as Set<string>);
      else this.sets.set(k, v as Set<string>);
    }
  }
  /** The explicit records of a kind (API.md §8.3), as of the shard's read. */
  explicit(kind: string): string[] {
    return [...(this.flagged.get(kind) ?? [])];
  }
  has(kind: string, id: string): boolean {
    return this.sets.get(kind)?.has(id) ?? false;
  }
  /** The pending ids of a kind (at most MAX_PENDING). */
  ids(kind: string): string[] {
    return [...(this.sets.get(kind) ?? [])];
  }
  /** Whether any id of these kinds is pending (nothing to filter otherwise). */
  any(kinds: readonly string[]): boolean {
    return kinds.some((k) => (this.sets.get(k)?.size ?? 0) > 0);
  }
}

/** Marks a record deleted in every shard, within the deleting transaction. */
export function tombstonePlan(kind: string, id: string): WritePlan {
  return shardsPlan(kind, id, { deleted: true });
}

/** The shards' attribute naming the explicit records of a kind (genres, themes: API.md §8.3). */
const explicitAttribute = (kind: string) => `${EXPLICIT}${kind}`;

/**
 * The shards' change a record's write makes, within its transaction (one update per shard: a
 * transaction names an item once): `deleted` marks it deleted; `explicit` adds it to (true) or
 * removes it from (false) its kind's explicit records, which every list read that can leave
 * them out (`sfw=true`) gets with the shard it reads anyway.
 */
export function shardsPlan(kind: string, id: string, change: { deleted?: boolean; explicit?: boolean }): WritePlan {
  const adds: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':id': new Set([id]) };
  if (change.deleted) {
    adds.push('#k :id');
    names['#k'] = kind;
    values[':max'] = MAX_PENDING;
  }
  if (change.explicit !== undefined) names['#e'] = explicitAttribute(kind);
  if (change.explicit === true) adds.push('#e :id');
  const expression = [adds.length > 0 ? `ADD ${adds.join(', ')}` : '', change.explicit === false ? 'DELETE #e :id' : ''].filter(Boolean).join(' ');
  if (!expression) return { items: [], meanings: [] };
  const items = Array.from({ length: TOMBSTONE_SHARDS }, (_, n) => ({
    Update: {
      TableName: tableName(),
      Key: shardKey(n),
      UpdateExpression: expression,
      ...(change.deleted ? { ConditionExpression: 'attribute_not_exists(#k) OR size(#k) < :max' } : {}),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  }));
  return { items, meanings: items.map(() => ({ what: 'error' as const, error: () => serviceUnavailable(5) })) };
}

/** Forgets a deletion whose references are all gone (the consumer, after its cleanup). */
export async function clearTombstone(kind: string, id: string): Promise<void> {
  await Promise.all(
    Array.from({ length: TOMBSTONE_SHARDS }, (_, n) =>
      send((c) =>
        new c.UpdateCommand({
          TableName: tableName(),
          Key: shardKey(n),
          UpdateExpression: 'DELETE #k :id',
          ExpressionAttributeNames: { '#k': kind },
          ExpressionAttributeValues: { ':id': new Set([id]) },
        }),
      ),
    ),
  );
}

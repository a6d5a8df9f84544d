/**
 * The change feed's items (API.md §8.5; docs/data-model.md "The change feed", decision EX9): one
 * entry per committed write of a catalogue or taxonomy record, numbered in commit order, in one
 * partition:
 *
 *   head   FEED   H                       { seq, at }              the last entry's number and time
 *   entry  FEED   E#<sequence, 12 digits> { k, id, c, at, expires_at }
 *
 * **An entry is written in the record's own transaction**, so it exists exactly when the write
 * committed: once per write however often the request or a consumer retries (a retried
 * transaction either committed, entry included, or did not), and never before the record shows
 * the change. The write reads the head (`readFeedHead`) and its transaction puts the head at the
 * next number on the condition that it still holds the number read, with the entry at that
 * number; two writes that read the same head both aim at one number and one fails (FeedMoved:
 * the write is planned again). So entry n + 1 commits only after entry n did, the numbers have
 * no gaps, and `at` never decreases along them (a write takes the later of its clock and the
 * head's `at`): a reader that has read up to n misses nothing when it next reads after n.
 *
 * Entries expire 30 days after `at` (the table's TTL attribute; readers treat an entry past it as
 * gone whether or not DynamoDB has deleted it yet). The head never expires, so the numbering
 * never restarts.
 */
import { send, tableName } from './client.js';
import type { Item } from './batch.js';
import type { WritePlan } from './records.js';
import { TABLE } from './table.js';
import { grant, type KeyGrants } from './key-patterns.js';

/** The kinds whose records the feed follows (API.md §8.5), by entity kind (`ANIME`). */
export const FEED_KINDS = ['anime', 'manga', 'character', 'person', 'news', 'genre', 'theme', 'demographic', 'producer', 'magazine'] as const;
export type FeedKind = (typeof FEED_KINDS)[number];
export type FeedChange = 'created' | 'updated' | 'deleted';

/** The feed's kind of an entity kind (`PRODUCER` → `producer`), or null for a kind it does not follow. */
export function feedKindOf(entityKind: string): FeedKind | null {
  const k = entityKind.toLowerCase();
  return (FEED_KINDS as readonly string[]).includes(k) ? (k as FeedKind) : null;
}

/** How long entries are kept (§8.5). */
export const FEED_RETENTION_MS = 30 * 24 * 3600_000;

export const FEED_PK = 'FEED';
const HEAD_SK = 'H';
const SEQ_DIGITS = 12;
const entrySk = (seq: number) => `E#${String(seq).padStart(SEQ_DIGITS, '0')}`;

/** What a write that makes entries does to the feed: reads the head, puts it and the entry (in its transaction). */
export const FEED_WRITES: KeyGrants = grant(FEED_PK, 'GetItem', 'PutItem');
/** What a reader of the feed does: Query of the entries, GetItem of one entry or the head. */
export const FEED_READS: KeyGrants = grant(FEED_PK, 'GetItem', 'Query');

export interface FeedHead {
  /** The last entry's number (0 before the first). */
  seq: number;
  /** Its time (ISO; the epoch before the first). */
  at: string;
}

export interface FeedEntry {
  seq: number;
  kind: FeedKind;
  id: string;
  change: FeedChange;
  at: string;
}

/** What a write tells the feed: the record's kind, id and change. */
export interface FeedWrite {
  kind: FeedKind;
  id: string;
  change: FeedChange;
}

/** Another write took the feed's next number: the write is planned again. */
export class FeedMoved extends Error {
  constructor() {
    super('another write took the next change-feed number');
    this.name = 'FeedMoved';
  }
}

const EPOCH = new Date(0).toISOString();

/** The head (strongly consistent: what the next write's entry follows). */
export async function readFeedHead(): Promise<FeedHead> {
  const out = await send((c) => new c.GetCommand({ TableName: tableName(), Key: { pk: FEED_PK, sk: HEAD_SK }, ConsistentRead: true }));
  return out.Item ? { seq: Number(out.Item.seq), at: String(out.Item.at) } : { seq: 0, at: EPOCH };
}

/**
 * The items that record `write` in the feed, for the write's own transaction: the head moved from
 * `head` (as read) to the next number, and the entry at that number. Its time is `now`, or the
 * head's when that is later (clocks of two functions may differ by milliseconds).
 */
export function feedPlan(head: FeedHead, write: FeedWrite, now: Date = new Date()): WritePlan {
  const seq = head.seq + 1;
  const at = now.toISOString() > head.at ? now.toISOString() : head.at;
  const expires = Math.ceil((Date.parse(at) + FEED_RETENTION_MS) / 1000);
  const moved = { what: 'error' as const, error: () => new FeedMoved() };
  return {
    items: [
      {
        Put: {
          TableName: tableName(),
          Item: { pk: FEED_PK, sk: HEAD_SK, seq, at },
          ConditionExpression: head.seq === 0 ? 'attribute_not_exists(pk)' : '#seq = :seq',
          ...(head.seq === 0 ? {} : { ExpressionAttributeNames: { '#seq': 'seq' }, ExpressionAttributeValues: { ':seq': head.seq } }),
        },
      },
      {
        Put: {
          TableName: tableName(),
          Item: { pk: FEED_PK, sk: entrySk(seq), k: write.kind, id: write.id, c: write.change, at, [TABLE.ttlAttribute]: expires },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ],
    meanings: [moved, moved],
  };
}

const entryOf = (item: Item): FeedEntry => ({
  seq: Number(String(item.sk).slice(2)),
  kind: item.k as FeedKind,
  id: String(item.id),
  change: item.c as FeedChange,
  at: String(item.at),
});

/**
 * Up to `count` entries after number `after`, in order, and the head's number when the read
 * reached it (`H` sorts after every `E#…`; one strongly consistent Query: an entry whose write
 * returned is among them).
 */
export async function readFeed(after: number, count: number): Promise<{ entries: FeedEntry[]; head: number | null }> {
  const out = await send((c) =>
    new c.QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :first AND :head',
      ExpressionAttributeValues: { ':pk': FEED_PK, ':first': entrySk(after + 1), ':head': HEAD_SK },
      ProjectionExpression: 'sk, k, id, c, #at, seq',
      ExpressionAttributeNames: { '#at': 'at' },
      Limit: count + 1,
      ConsistentRead: true,
    }),
  );
  const items = out.Items ?? [];
  const head = items.find((i) => i.sk === HEAD_SK);
  return { entries: items.filter((i) => i !== head).slice(0, count).map(entryOf), head: head ? Number(head.seq) : null };
}

/** The entry numbered `seq` (strongly consistent), or null when there is none (not yet written, or deleted by the TTL). */
export async function readFeedEntry(seq: number): Promise<FeedEntry | null> {
  const out = await send((c) => new c.GetCommand({ TableName: tableName(), Key: { pk: FEED_PK, sk: entrySk(seq) }, ConsistentRead: true }));
  return out.Item ? entryOf(out.Item) : null;
}

/**
 * The change feed's items (API.md §8.5; docs/data-model.md "The change feed", decision EX10): one
 * entry per committed write of a catalogue or taxonomy record, numbered in commit order.
 *
 *   change  FEED#P   <at>#<write id>          { k, id, c, at, expires_at }   written by the record's write
 *   head    FEED     H                        { seq, at }                    the last entry's number and time
 *   entry   FEED     E#<sequence, 12 digits>  { k, id, c, at, expires_at }
 *
 * **A write puts its change in its own transaction** (`changePlan`): it exists exactly when the
 * write committed, once however often the request retries, and never before the record shows the
 * change. Writes take no turn for it (a key of their own): they never wait on one another.
 *
 * **The sequencer numbers the changes** (functions/streams/feed.ts, `sequence`): the changes are
 * items of one partition, so its stream records come in commit order, and the sequencer turns each
 * batch of them into entries in one transaction: the changes deleted (each on the condition that
 * it still exists), the entries put at the next numbers, and the head moved on (on the condition
 * that it still holds the number read). A batch delivered again (a retried invocation) finds the
 * changes it already numbered gone, and numbers only the others: one entry per write, in order.
 * The numbers have no gaps and `at` never decreases along them, so a reader that has read up to n
 * misses nothing when it next reads after n.
 *
 * Entries and changes expire 30 days after `at` (the table's TTL attribute; readers treat an
 * entry past it as gone whether or not DynamoDB has deleted it yet). The head never expires, so
 * the numbering never restarts.
 */
import { randomUUID } from 'node:crypto';
import { send, tableName } from './client.js';
import type { Item, ItemKey } from './batch.js';
import { cancellationReasons, retryOnConflict } from './errors.js';
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
const CHANGES_PK = 'FEED#P';
const HEAD_SK = 'H';
const SEQ_DIGITS = 12;
const entrySk = (seq: number) => `E#${String(seq).padStart(SEQ_DIGITS, '0')}`;

/** What a write that makes entries does: puts its change (in its transaction). */
export const FEED_WRITES: KeyGrants = grant(CHANGES_PK, 'PutItem');
/** What the sequencer does: deletes the changes, reads and puts the head, puts the entries. */
export const SEQUENCER_KEYS: KeyGrants = { ...grant(CHANGES_PK, 'DeleteItem'), ...grant(FEED_PK, 'GetItem', 'PutItem') };
/** The stream records the sequencer is given: new changes. */
export const CHANGES_STREAM = { pk: CHANGES_PK };
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

const EPOCH = new Date(0).toISOString();
const expiry = (at: string) => Math.ceil((Date.parse(at) + FEED_RETENTION_MS) / 1000);

/** A write's change, for the write's own transaction (numbered later by `sequence`). */
export function changePlan(write: FeedWrite, now: Date = new Date()): WritePlan {
  const at = now.toISOString();
  const item = { pk: CHANGES_PK, sk: `${at}#${randomUUID()}`, k: write.kind, id: write.id, c: write.change, at, [TABLE.ttlAttribute]: expiry(at) };
  return { items: [{ Put: { TableName: tableName(), Item: item } }], meanings: [null] };
}

/** The head (strongly consistent: what the next entry follows). */
export async function readFeedHead(): Promise<FeedHead> {
  const out = await send((c) => new c.GetCommand({ TableName: tableName(), Key: { pk: FEED_PK, sk: HEAD_SK }, ConsistentRead: true }));
  return out.Item ? { seq: Number(out.Item.seq), at: String(out.Item.at) } : { seq: 0, at: EPOCH };
}

/** A change as its stream record's new image holds it. */
export interface PendingChange {
  key: ItemKey;
  write: FeedWrite;
  at: string;
}

/** A change of the stream (its new image), or null for any other item. */
export function pendingOf(image: Item | undefined): PendingChange | null {
  if (!image || image.pk !== CHANGES_PK) return null;
  return { key: { pk: CHANGES_PK, sk: String(image.sk) }, write: { kind: image.k as FeedKind, id: String(image.id), change: image.c as FeedChange }, at: String(image.at) };
}

/** Changes per sequencing transaction: each is deleted and its entry put, with the head (DynamoDB's limit is 100 items). */
export const SEQUENCE_BATCH = 49;

/**
 * Numbers `changes` (at most SEQUENCE_BATCH, in commit order) after the head: one transaction
 * that deletes each change on the condition that it is still there, puts its entry and moves the
 * head. Changes found gone were numbered by an earlier delivery: they are left out and the rest
 * is tried again. Returns how many entries it wrote.
 */
export async function sequence(changes: readonly PendingChange[]): Promise<number> {
  let rest = [...changes];
  for (let tries = 0; rest.length > 0; tries++) {
    if (tries > 2 * SEQUENCE_BATCH) throw new Error('the change feed could not be sequenced');
    const head = await readFeedHead();
    let at = head.at;
    const items: object[] = [];
    rest.forEach((p, i) => {
      at = p.at > at ? p.at : at;
      items.push({ Delete: { TableName: tableName(), Key: p.key, ConditionExpression: 'attribute_exists(pk)' } });
      items.push({ Put: { TableName: tableName(), Item: { pk: FEED_PK, sk: entrySk(head.seq + i + 1), k: p.write.kind, id: p.write.id, c: p.write.change, at, [TABLE.ttlAttribute]: expiry(at) } } });
    });
    items.push({
      Put: {
        TableName: tableName(),
        Item: { pk: FEED_PK, sk: HEAD_SK, seq: head.seq + rest.length, at },
        ConditionExpression: head.seq === 0 ? 'attribute_not_exists(pk)' : '#seq = :seq',
        ...(head.seq === 0 ? {} : { ExpressionAttributeNames: { '#seq': 'seq' }, ExpressionAttributeValues: { ':seq': head.seq } }),
      },
    });
    try {
      await retryOnConflict(() => send((c) => new c.TransactWriteCommand({ TransactItems: items as never })));
      return rest.length;
    } catch (err) {
      const reasons = cancellationReasons(err);
      if (!reasons) throw err;
      const gone = new Set(rest.filter((_, i) => reasons[2 * i]?.Code === 'ConditionalCheckFailed'));
      if (gone.size === 0 && reasons[items.length - 1]?.Code !== 'ConditionalCheckFailed') throw err;
      rest = rest.filter((p) => !gone.has(p));
    }
  }
  return 0;
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

/**
 * DynamoDB Streams consumers (DESIGN.md §5): one declaration per consumer. The CDK app creates
 * one function and one event source mapping on the table's stream for each entry, with the
 * filter below; the local stream poller (infra/local/streams.ts) applies the same filter and
 * invokes the same modules.
 */
import type { DynamoDBRecord } from 'aws-lambda';
import type { KeyGrants } from '../../shared/db/key-patterns.js';
import { CATALOGUE_STREAM } from '../../shared/db/catalogue-stream.js';
import { DELIVERY_KEYS } from '../../shared/db/outbox.js';
import { CHANGES_STREAM, SEQUENCER_KEYS } from '../../shared/db/feed.js';
import { EFFECT_KINDS, RELATION_KEYS } from '../../shared/db/reverse.js';
import { COMPACTION_KEYS } from '../../shared/domain/index-compaction.js';
import { INDEXED_KINDS } from '../../shared/domain/index-kinds.js';

export type StreamEventName = 'INSERT' | 'MODIFY' | 'REMOVE';

/** A key attribute (string) is equal to a value or starts with a prefix. */
export type KeyPattern = { equals: string } | { prefix: string };

export interface StreamFilter {
  /** The record kinds delivered. */
  events: readonly StreamEventName[];
  /** Patterns on the item's key attributes (`pk`, `sk`); all must match (a list: any of its patterns). */
  keys: Readonly<Record<string, KeyPattern | readonly KeyPattern[]>>;
}

export interface StreamConsumerDecl {
  /** Unique, `[a-z0-9-]+`: names the function and the mapping. */
  name: string;
  /** The consumer's module, relative to the repository root; it exports `handler`. */
  entry: string;
  description: string;
  /** Only matching records reach the consumer (on AWS: the mapping's filter criteria). */
  filter: StreamFilter;
  /** Records per invocation. */
  batchSize: number;
  /** Retries of a record the consumer reports as failed (it answers with batchItemFailures). */
  retryAttempts: number;
  /** The consumer sends e-mail (needs the sender settings and SES permission). */
  sendsMail?: boolean;
  /** The consumer uses the in-memory index's objects: as JobDecl.index (`read`: loads snapshots; `compact`: also writes and deletes them). */
  index?: 'read' | 'compact';
  /** The function's timeout (default DEFAULT_CONSUMER_TIMEOUT_SECONDS). */
  timeoutSeconds?: number;
  /**
   * What the consumer does to the table (as RouteDecl.keys: per partition-key pattern, the
   * actions; BatchWriteItem for derived items a later run would write the same); its role may
   * do nothing else. Not what its filter passes: the records come from the stream.
   */
  keys: KeyGrants;
}

/** A consumer's timeout unless it declares one. */
export const DEFAULT_CONSUMER_TIMEOUT_SECONDS = 60;

export const STREAM_CONSUMERS: readonly StreamConsumerDecl[] = [
  {
    name: 'mailer',
    entry: 'functions/streams/mailer.ts',
    description: 'Delivers queued e-mails (outbox messages) as they are written',
    // New outbox messages only: `OUTBOX#<id>` / `M` (due entries are `OUTBOX#DUE` / `<time>#<id>`).
    filter: { events: ['INSERT'], keys: { pk: { prefix: 'OUTBOX#' }, sk: { equals: 'M' } } },
    batchSize: 10,
    // A message the mailer could not handle is still picked up by the outbox job (its due entry).
    retryAttempts: 3,
    sendsMail: true,
    keys: DELIVERY_KEYS,
  },
  {
    name: 'catalogue',
    entry: 'functions/streams/catalogue.ts',
    description: 'Keeps derived catalogue items in step: taxonomy orderings after count changes',
    filter: {
      events: ['INSERT', 'MODIFY', 'REMOVE'],
      keys: { pk: CATALOGUE_STREAM.prefixes.map((prefix) => ({ prefix })) },
    },
    batchSize: 100,
    retryAttempts: 5,
    keys: CATALOGUE_STREAM.keys,
  },
  {
    name: 'relations',
    entry: 'functions/streams/relations.ts',
    description: 'Keeps relations in step with catalogue records: reverse views, names after renames, references to deleted records',
    // Record items only (`<KIND>#<id>` / `R`): what changed is read again from the table.
    filter: { events: ['INSERT', 'MODIFY', 'REMOVE'], keys: { pk: EFFECT_KINDS.map((k) => ({ prefix: `${k}#` })), sk: { equals: 'R' } } },
    batchSize: 10,
    retryAttempts: 5,
    // A deleted genre's cleanup rewrites every anime that has it.
    timeoutSeconds: 900,
    // A deleted record's referrers are found in the titles' indexes.
    index: 'read',
    keys: RELATION_KEYS,
  },
  {
    name: 'index-compactor',
    entry: 'functions/streams/index-compactor.ts',
    description: "Folds a kind's index deltas into its next snapshot at every 256th delta",
    // Index deltas only (`<KIND>#IX` / `D#<n>`); the pointer (`P`) is the compactor's own write.
    filter: { events: ['INSERT'], keys: { pk: INDEXED_KINDS.map((k) => ({ equals: `${k}#IX` })), sk: { prefix: 'D#' } } },
    batchSize: 100,
    retryAttempts: 3,
    timeoutSeconds: 300,
    index: 'compact',
    keys: COMPACTION_KEYS,
  },
  {
    name: 'feed',
    entry: 'functions/streams/feed.ts',
    description: 'Numbers the catalogue writes’ changes into the change feed, in commit order (API.md §8.5)',
    // New changes only (`FEED#P` / `<at>#<write>`); their deletions are the sequencer's own writes.
    filter: { events: ['INSERT'], keys: { pk: { equals: CHANGES_STREAM.pk } } },
    batchSize: 100,
    // Failures are outages (waited out in the invocation first, in-order.ts): retried long before a change is
    // given up. One given up stays in `FEED#P` (its dead letter raises the alarm) until it is delivered again.
    retryAttempts: 10,
    keys: SEQUENCER_KEYS,
  },
];

/** True when `record` passes `filter` (what the event source mapping's filter criteria do). */
export function matchesFilter(filter: StreamFilter, record: DynamoDBRecord): boolean {
  if (!record.eventName || !filter.events.includes(record.eventName)) return false;
  const keys = record.dynamodb?.Keys ?? {};
  return Object.entries(filter.keys).every(([name, patterns]) => {
    const value = keys[name]?.S;
    if (value === undefined) return false;
    return ([] as KeyPattern[]).concat(patterns).some((p) => ('equals' in p ? value === p.equals : value.startsWith(p.prefix)));
  });
}

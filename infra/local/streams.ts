/**
 * The local stream poller: what Lambda's event source mappings do on AWS, for DynamoDB Local.
 * It reads the table's stream (DescribeTable → LatestStreamArn, DescribeStream → shards,
 * GetShardIterator, GetRecords in a loop, about every 200 ms when idle), keeps the records that
 * pass each consumer's filter (functions/streams/registry.ts), and invokes the consumer's module
 * with a Lambda-shaped DynamoDBStreamEvent in this process. Records a consumer reports in
 * `batchItemFailures` (or a whole batch, when it throws) are retried from the first failed one,
 * `retryAttempts` times with backoff, then passed over, as the mapping does.
 *
 * Where it starts reading:
 *  - with a checkpoint file (`npm start`, data kept on disk): after the last record processed in
 *    the previous run, so e-mails queued just before a stop still go out after the next start;
 *    shards the checkpoint does not know (and a stream it does not know: a new table, `--fresh`)
 *    are read from their oldest record (TRIM_HORIZON);
 *  - without one (tests, a fresh in-memory table): from the oldest record, so nothing written
 *    between creating the table and starting the poller is missed.
 * Re-reading a record is harmless: consumers are idempotent (the mailer claims each message).
 * The outbox job is the second line: a message the poller never delivers is still due there.
 *
 * Its timers never keep the process alive, and `stop()` ends the loop and closes the clients.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as SdkRecord,
  type AttributeValue as SdkAttributeValue,
  type Shard,
} from '@aws-sdk/client-dynamodb-streams';
import type { AttributeValue, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { DEFAULT_CONSUMER_TIMEOUT_SECONDS, matchesFilter, STREAM_CONSUMERS, type StreamConsumerDecl } from '../../functions/streams/registry.js';
import { lambdaContext, loadHandler } from './functions.js';

export interface StreamPollerOptions {
  /** DynamoDB Local's address (its stream API answers there too). */
  endpoint: string;
  table: string;
  /** Default: every consumer of functions/streams/registry.ts. */
  consumers?: readonly StreamConsumerDecl[];
  /** Keep the read position here between runs (see above); none: start from the oldest record. */
  checkpointFile?: string;
  /** Pause between polls when no shard had records (ms). */
  idleMs?: number;
  /** First retry delay of a failed batch (ms); doubles with each retry. */
  retryDelayMs?: number;
}

export interface StreamPoller {
  streamArn: string;
  /**
   * Resolves after a pass over every shard that began after the call and found no new record:
   * the consumers have handled everything written before the call, and what they wrote meanwhile.
   */
  caughtUp(): Promise<void>;
  stop(): Promise<void>;
}

interface Checkpoint {
  streamArn: string;
  /** Shard id → sequence number of the last record processed. */
  shards: Record<string, string>;
}

interface ShardState {
  id: string;
  iterator: string | null | undefined;
  /** Last record processed. */
  last?: string;
  /** Read to its end (a closed shard). */
  done: boolean;
}

const REGION = 'us-east-1';
/** A consumer's timeout, as its function has on AWS (infra/aws/streams.ts). */
const consumerTimeoutMs = (consumer: StreamConsumerDecl) => (consumer.timeoutSeconds ?? DEFAULT_CONSUMER_TIMEOUT_SECONDS) * 1000;
const CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };
const REDISCOVER_MS = 5_000;

function readCheckpoint(file: string | undefined): Checkpoint | null {
  if (!file || !existsSync(file)) return null;
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as Checkpoint;
    return typeof value.streamArn === 'string' && typeof value.shards === 'object' ? value : null;
  } catch {
    return null;
  }
}

/** An attribute value as Lambda passes it (binary values in base64). */
function lambdaValue(v: SdkAttributeValue): AttributeValue {
  if (v.B !== undefined) return { B: Buffer.from(v.B).toString('base64') };
  if (v.BS !== undefined) return { BS: v.BS.map((b) => Buffer.from(b).toString('base64')) };
  if (v.L !== undefined) return { L: v.L.map(lambdaValue) };
  if (v.M !== undefined) return { M: lambdaImage(v.M) };
  // The streams client reads an empty map (`{"M": {}}`) as a value with no member at all.
  if (Object.keys(v).length === 0) return { M: {} };
  return v as AttributeValue;
}

function lambdaImage(image: Record<string, SdkAttributeValue> | undefined): Record<string, AttributeValue> {
  return Object.fromEntries(Object.entries(image ?? {}).map(([k, v]) => [k, lambdaValue(v)]));
}

/** A stream record as Lambda's event source mapping delivers it. */
export function lambdaRecord(r: SdkRecord, streamArn: string): DynamoDBRecord {
  const d = r.dynamodb ?? {};
  return {
    eventID: r.eventID,
    eventName: r.eventName,
    eventVersion: r.eventVersion ?? '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: r.awsRegion ?? REGION,
    dynamodb: {
      ...(d.ApproximateCreationDateTime ? { ApproximateCreationDateTime: Math.floor(new Date(d.ApproximateCreationDateTime).getTime() / 1000) } : {}),
      Keys: lambdaImage(d.Keys),
      ...(d.NewImage ? { NewImage: lambdaImage(d.NewImage) } : {}),
      ...(d.OldImage ? { OldImage: lambdaImage(d.OldImage) } : {}),
      SequenceNumber: d.SequenceNumber,
      SizeBytes: d.SizeBytes,
      StreamViewType: d.StreamViewType,
    },
    eventSourceARN: streamArn,
  };
}

const isNamed = (err: unknown, ...names: string[]) => names.includes((err as { name?: string })?.name ?? '');

export async function startStreamPoller(opts: StreamPollerOptions): Promise<StreamPoller> {
  const consumers = opts.consumers ?? STREAM_CONSUMERS;
  const idleMs = opts.idleMs ?? 200;
  const retryDelayMs = opts.retryDelayMs ?? 500;
  const config = { endpoint: opts.endpoint, region: REGION, credentials: CREDENTIALS, maxAttempts: 2 };
  const dynamo = new DynamoDBClient(config);
  const streams = new DynamoDBStreamsClient(config);

  let streamArn: string;
  try {
    const table = await dynamo.send(new DescribeTableCommand({ TableName: opts.table }));
    const arn = table.Table?.LatestStreamArn;
    if (!arn) throw new Error(`table ${opts.table} has no stream`);
    streamArn = arn;
  } catch (err) {
    dynamo.destroy();
    streams.destroy();
    throw err;
  }

  const saved = readCheckpoint(opts.checkpointFile);
  const resumeFrom = saved?.streamArn === streamArn ? saved.shards : {};
  const shards = new Map<string, ShardState>();
  let dirty = false;
  let lastSaved = 0;
  let lastDiscovery = 0;
  let stopping = false;
  let wake: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;

  /** A pause that ends early when the poller stops; never keeps the process alive. */
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (stopping) return resolve();
      wake = resolve;
      timer = setTimeout(resolve, ms);
      timer.unref();
    }).finally(() => {
      wake = undefined;
      timer = undefined;
    });

  function saveCheckpoint(force = false): void {
    if (!opts.checkpointFile || !dirty || (!force && Date.now() - lastSaved < 1_000)) return;
    const positions: Record<string, string> = {};
    for (const s of shards.values()) if (s.last) positions[s.id] = s.last;
    const tmp = `${opts.checkpointFile}.tmp`;
    writeFileSync(tmp, JSON.stringify({ streamArn, shards: positions } satisfies Checkpoint));
    renameSync(tmp, opts.checkpointFile);
    dirty = false;
    lastSaved = Date.now();
  }

  async function discover(): Promise<void> {
    const found: Shard[] = [];
    let start: string | undefined;
    do {
      const out = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn, ...(start ? { ExclusiveStartShardId: start } : {}) }));
      found.push(...(out.StreamDescription?.Shards ?? []));
      start = out.StreamDescription?.LastEvaluatedShardId;
    } while (start);
    const ids = new Set(found.map((s) => s.ShardId!));
    for (const id of shards.keys()) if (!ids.has(id)) shards.delete(id); // trimmed away
    for (const shard of found) {
      const id = shard.ShardId!;
      if (!shards.has(id)) shards.set(id, { id, iterator: undefined, last: resumeFrom[id], done: false });
    }
    lastDiscovery = Date.now();
  }

  async function iteratorFor(s: ShardState): Promise<string | undefined> {
    if (s.last) {
      try {
        const out = await streams.send(
          new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: s.id, ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: s.last }),
        );
        return out.ShardIterator;
      } catch (err) {
        if (!isNamed(err, 'TrimmedDataAccessException', 'ValidationException')) throw err;
      }
    }
    const out = await streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: s.id, ShardIteratorType: 'TRIM_HORIZON' }));
    return out.ShardIterator;
  }

  /** Invokes one consumer with `records` (already filtered), retrying reported failures. */
  async function invoke(consumer: StreamConsumerDecl, records: DynamoDBRecord[]): Promise<void> {
    const handler = await loadHandler<DynamoDBStreamEvent, DynamoDBBatchResponse | void>(consumer.entry);
    let pending = records;
    for (let attempt = 0; pending.length > 0; attempt++) {
      let failedFrom: number;
      try {
        const out = await handler({ Records: pending }, lambdaContext(`stream.${consumer.name}`, consumerTimeoutMs(consumer)));
        const failed = new Set((out?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
        if (failed.size === 0) return;
        failedFrom = pending.findIndex((r) => failed.has(r.dynamodb?.SequenceNumber ?? ''));
        // An identifier that names no record of the batch: the whole batch failed.
        if (failedFrom < 0) failedFrom = 0;
      } catch (err) {
        console.error(`stream consumer ${consumer.name} failed:`, err);
        failedFrom = 0;
      }
      if (attempt >= consumer.retryAttempts || stopping) {
        console.error(`stream consumer ${consumer.name}: ${pending.length - failedFrom} record(s) passed over after ${attempt + 1} attempts`);
        return;
      }
      pending = pending.slice(failedFrom);
      await sleep(retryDelayMs * 2 ** attempt);
    }
  }

  async function deliver(records: DynamoDBRecord[]): Promise<void> {
    for (const consumer of consumers) {
      const matching = records.filter((r) => matchesFilter(consumer.filter, r));
      for (let i = 0; i < matching.length; i += consumer.batchSize) await invoke(consumer, matching.slice(i, i + consumer.batchSize));
    }
  }

  /** Reads one batch of a shard and hands it on; the number of records read. */
  async function poll(s: ShardState): Promise<number> {
    if (s.iterator === undefined) s.iterator = await iteratorFor(s);
    if (!s.iterator) {
      s.done = true;
      return 0;
    }
    let out;
    try {
      out = await streams.send(new GetRecordsCommand({ ShardIterator: s.iterator, Limit: 1000 }));
    } catch (err) {
      if (isNamed(err, 'ExpiredIteratorException', 'TrimmedDataAccessException')) {
        s.iterator = undefined;
        return 0;
      }
      throw err;
    }
    const records = out.Records ?? [];
    if (records.length > 0) {
      await deliver(records.map((r) => lambdaRecord(r, streamArn)));
      s.last = records.at(-1)!.dynamodb?.SequenceNumber ?? s.last;
      dirty = true;
    }
    s.iterator = out.NextShardIterator ?? null;
    if (s.iterator === null) s.done = true;
    return records.length;
  }

  /** Passes begun so far, and who waits for a quiet pass begun after a given one. */
  let passes = 0;
  let waiting: { after: number; resolve: () => void }[] = [];

  async function loop(): Promise<void> {
    while (!stopping) {
      try {
        const pass = ++passes;
        if (Date.now() - lastDiscovery > REDISCOVER_MS) await discover();
        let read = 0;
        for (const s of shards.values()) {
          if (stopping) break;
          if (!s.done) read += await poll(s);
        }
        saveCheckpoint();
        if (read === 0) {
          const done = waiting.filter((w) => w.after < pass);
          waiting = waiting.filter((w) => w.after >= pass);
          for (const w of done) w.resolve();
        }
        if (read === 0) await sleep(idleMs);
      } catch (err) {
        if (stopping) break;
        console.error('stream poller:', err);
        await sleep(1_000);
      }
    }
  }

  await discover();
  const running = loop();
  return {
    streamArn,
    caughtUp: () => new Promise<void>((resolve) => waiting.push({ after: passes, resolve })),
    stop: async () => {
      stopping = true;
      if (timer) clearTimeout(timer);
      wake?.();
      await running;
      for (const w of waiting) w.resolve();
      waiting = [];
      saveCheckpoint(true);
      dynamo.destroy();
      streams.destroy();
    },
  };
}

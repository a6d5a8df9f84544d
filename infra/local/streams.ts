/**
 * The local stream poller: what Lambda's event source mappings do on AWS, for DynamoDB Local.
 * Every consumer of functions/streams/registry.ts gets a reader of its own, as every consumer has
 * its own event source mapping on AWS: it reads the table's stream (DescribeStream → shards,
 * GetShardIterator, GetRecords in a loop, about every 200 ms when idle), keeps the records that
 * pass its consumer's filter, and invokes the consumer's module with a Lambda-shaped
 * DynamoDBStreamEvent in this process. So one slow or failing consumer never delays another: the
 * mailer delivers while the relations consumer works through a long cascade or retries a record
 * (docs/decisions.md Z3).
 *
 * Failures, as a mapping with ReportBatchItemFailures and BisectBatchOnFunctionError handles them:
 * the records a consumer reports in `batchItemFailures` (or a whole batch, when it throws) are
 * retried from the first failed one, `retryAttempts` times with backoff; a record still failing
 * then is given up — the first failed record alone, as bisecting narrows a batch to it on AWS, and
 * the records after it are delivered again as a new batch — and becomes a **dead letter**: logged,
 * kept in `deadLetters()` and, with `deadLetterFile`, appended to that file (one JSON line each;
 * `npm start` keeps it in the data dir), where on AWS it would go to the consumer's failure queue
 * and raise its alarm (infra/aws/streams.ts). `stats()` says how often records were delivered.
 *
 * Where a reader starts:
 *  - with a checkpoint file (`npm start`, data kept on disk): after the last record its consumer
 *    processed in the previous run, so e-mails queued just before a stop still go out after the
 *    next start; shards the checkpoint does not know (and a stream it does not know: a new table,
 *    `--fresh`) are read from their oldest record (TRIM_HORIZON);
 *  - without one (tests, a fresh in-memory table): from the oldest record, so nothing written
 *    between creating the table and starting the poller is missed.
 * Re-reading a record is harmless: consumers are idempotent (the mailer claims each message).
 * The outbox job is the second line: a message the poller never delivers is still due there.
 *
 * Its timers never keep the process alive, and `stop()` ends the loops and closes the clients.
 */
import { appendFileSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
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
  /** Keep each consumer's read position here between runs (see above); none: start from the oldest record. */
  checkpointFile?: string;
  /** Append every given-up record here (one JSON line each); none: only logged and kept in memory. */
  deadLetterFile?: string;
  /** Pause between polls when no shard had records (ms). */
  idleMs?: number;
  /** First retry delay of a failed batch (ms); doubles with each retry. */
  retryDelayMs?: number;
}

/** A record a consumer failed on after every retry: what a mapping sends to its failure destination. */
export interface DeadLetter {
  consumer: string;
  sequenceNumber: string;
  eventName: string;
  keys: Record<string, unknown>;
  /** Deliveries of the record, the first one included. */
  deliveries: number;
  at: string;
}

/** How often a consumer's records were delivered (since the poller started). */
export interface DeliveryStats {
  /** Records delivered at least once. */
  records: number;
  /** Records delivered more than once (retried). */
  retried: number;
  /** The most deliveries of one record. */
  maxDeliveries: number;
  /** Records given up (dead letters). */
  givenUp: number;
}

export interface StreamPoller {
  streamArn: string;
  /**
   * Resolves after every consumer's reader made a pass over every shard that began after the call
   * and found no new record: the consumers have handled everything written before the call, and
   * what they wrote meanwhile.
   */
  caughtUp(): Promise<void>;
  /** Delivery figures per consumer name. */
  stats(): Record<string, DeliveryStats>;
  deadLetters(): readonly DeadLetter[];
  stop(): Promise<void>;
}

interface Checkpoint {
  streamArn: string;
  /** Consumer name → shard id → sequence number of the last record it processed. */
  consumers?: Record<string, Record<string, string>>;
  /** The format before readers per consumer: one position for all of them. */
  shards?: Record<string, string>;
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
    return typeof value.streamArn === 'string' && (typeof value.consumers === 'object' || typeof value.shards === 'object') ? value : null;
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
  const known = saved?.streamArn === streamArn ? saved : null;
  let stopping = false;
  let lastSaved = 0;
  const wakers = new Set<() => void>();
  const letters: DeadLetter[] = [];
  /** Records read by all readers so far (a consumer writes only after reading). */
  let readTotal = 0;

  /** A pause that ends early when the poller stops; never keeps the process alive. */
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (stopping) return resolve();
      const timer = setTimeout(done, ms);
      timer.unref();
      function done() {
        clearTimeout(timer);
        wakers.delete(done);
        resolve();
      }
      wakers.add(done);
    });

  const readers = consumers.map((consumer) => reader(consumer, known?.consumers?.[consumer.name] ?? known?.shards ?? {}));

  function saveCheckpoint(force = false): void {
    if (!opts.checkpointFile || !readers.some((r) => r.dirty) || (!force && Date.now() - lastSaved < 1_000)) return;
    const positions = Object.fromEntries(readers.map((r) => [r.consumer.name, r.positions()]));
    const tmp = `${opts.checkpointFile}.tmp`;
    writeFileSync(tmp, JSON.stringify({ streamArn, consumers: positions } satisfies Checkpoint));
    renameSync(tmp, opts.checkpointFile);
    for (const r of readers) r.dirty = false;
    lastSaved = Date.now();
  }

  function giveUp(consumer: StreamConsumerDecl, record: DynamoDBRecord, deliveries: number): void {
    const letter: DeadLetter = {
      consumer: consumer.name,
      sequenceNumber: record.dynamodb?.SequenceNumber ?? '',
      eventName: record.eventName ?? '',
      keys: Object.fromEntries(Object.entries(record.dynamodb?.Keys ?? {}).map(([k, v]) => [k, v.S ?? v.N ?? v])),
      deliveries,
      at: new Date().toISOString(),
    };
    letters.push(letter);
    console.error(`stream consumer ${consumer.name}: record ${letter.sequenceNumber} (${JSON.stringify(letter.keys)}) given up after ${deliveries} deliveries`);
    if (opts.deadLetterFile) appendFileSync(opts.deadLetterFile, `${JSON.stringify(letter)}\n`);
  }

  /** One consumer's reader: its own shard positions, loop and figures (an event source mapping). */
  function reader(consumer: StreamConsumerDecl, resumeFrom: Record<string, string>) {
    const shards = new Map<string, ShardState>();
    const stats: DeliveryStats = { records: 0, retried: 0, maxDeliveries: 0, givenUp: 0 };
    let lastDiscovery = 0;
    /** Passes begun so far, and who waits for a quiet pass begun after a given one. */
    let passes = 0;
    let waiting: { after: number; resolve: () => void }[] = [];

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

    /** Invokes the consumer with `records` (already filtered), retrying reported failures. */
    async function invoke(records: DynamoDBRecord[]): Promise<void> {
      const handler = await loadHandler<DynamoDBStreamEvent, DynamoDBBatchResponse | void>(consumer.entry);
      const deliveries = new Map<DynamoDBRecord, number>();
      let pending = records;
      let attempt = 0;
      while (pending.length > 0) {
        for (const r of pending) deliveries.set(r, (deliveries.get(r) ?? 0) + 1);
        let failedFrom: number;
        try {
          const out = await handler({ Records: pending }, lambdaContext(`stream.${consumer.name}`, consumerTimeoutMs(consumer)));
          const failed = new Set((out?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
          if (failed.size === 0) break;
          failedFrom = pending.findIndex((r) => failed.has(r.dynamodb?.SequenceNumber ?? ''));
          // An identifier that names no record of the batch: the whole batch failed.
          if (failedFrom < 0) failedFrom = 0;
        } catch (err) {
          console.error(`stream consumer ${consumer.name} failed:`, err);
          failedFrom = 0;
        }
        pending = pending.slice(failedFrom);
        // Records before the failed one went through: the failed one's retries count from here (as the header says).
        if (failedFrom > 0) attempt = 0;
        if (stopping) break;
        if (attempt >= consumer.retryAttempts) {
          // Out of retries: the first failed record is given up, the ones after it start afresh.
          giveUp(consumer, pending[0]!, deliveries.get(pending[0]!)!);
          stats.givenUp++;
          pending = pending.slice(1);
          attempt = 0;
          continue;
        }
        await sleep(retryDelayMs * 2 ** attempt++);
      }
      for (const n of deliveries.values()) {
        stats.records++;
        if (n > 1) stats.retried++;
        stats.maxDeliveries = Math.max(stats.maxDeliveries, n);
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
      readTotal += records.length;
      if (records.length > 0) {
        const matching = records.map((r) => lambdaRecord(r, streamArn)).filter((r) => matchesFilter(consumer.filter, r));
        for (let i = 0; i < matching.length && !stopping; i += consumer.batchSize) await invoke(matching.slice(i, i + consumer.batchSize));
        if (stopping) return records.length;
        s.last = records.at(-1)!.dynamodb?.SequenceNumber ?? s.last;
        self.dirty = true;
      }
      s.iterator = out.NextShardIterator ?? null;
      if (s.iterator === null) s.done = true;
      return records.length;
    }

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
            await sleep(idleMs);
          }
        } catch (err) {
          if (stopping) break;
          console.error(`stream poller (${consumer.name}):`, err);
          await sleep(1_000);
        }
      }
    }

    const self = {
      consumer,
      dirty: false,
      stats,
      discover,
      running: undefined as Promise<void> | undefined,
      start() {
        self.running = loop();
      },
      positions: () => Object.fromEntries([...shards.values()].flatMap((s) => (s.last ? [[s.id, s.last]] : []))),
      caughtUp: () => new Promise<void>((resolve) => waiting.push({ after: passes, resolve })),
      release() {
        for (const w of waiting) w.resolve();
        waiting = [];
      },
    };
    return self;
  }

  await Promise.all(readers.map((r) => r.discover()));
  for (const r of readers) r.start();
  return {
    streamArn,
    // Until a round in which no reader read anything: what one consumer wrote (the relations
    // consumer's title writes) has then been seen by the others too.
    caughtUp: async () => {
      for (let before = -1; before !== readTotal && !stopping; ) {
        before = readTotal;
        await Promise.all(readers.map((r) => r.caughtUp()));
      }
    },
    stats: () => Object.fromEntries(readers.map((r) => [r.consumer.name, { ...r.stats }])),
    deadLetters: () => letters,
    stop: async () => {
      stopping = true;
      for (const wake of [...wakers]) wake();
      await Promise.all(readers.map((r) => r.running));
      for (const r of readers) r.release();
      saveCheckpoint(true);
      dynamo.destroy();
      streams.destroy();
    },
  };
}

/**
 * Counts the AWS calls the functions make: DynamoDB's by adding a middleware to the shared
 * document client (shared/db/sdk.ts), at the start of the `initialize` step, so it sees each
 * logical call once (retries are counted apart, from the response metadata) with its input as
 * the caller wrote it; Secrets Manager's through the listener of shared/secrets.ts; S3's (the
 * pictures and the in-memory index's objects) through the listener of shared/aws-request.ts,
 * with the bytes of their bodies.
 */
import { runningFunction } from '../../infra/local/functions.js';
import { awsCalls } from '../../shared/aws-request.js';
import { db } from '../../shared/db/sdk.js';
import { secretReads } from '../../shared/secrets.js';

export interface SdkCall {
  service: 'dynamodb' | 'secrets' | 's3';
  /** Operation name, e.g. `GetItem`, `TransactWriteItems`; S3's `GetObject`, `PutObject`, `DeleteObject`. */
  operation: string;
  input: Record<string, unknown>;
  /** Extra attempts made by the SDK's retry strategy. */
  retries: number;
  /** Items the call read (a Query's scanned items, filtered out or not; a batch's responses). */
  itemsRead?: number;
  /** Read capacity units the call consumed (only while `measureCapacity` is on). */
  capacity?: number;
  /** Write capacity units the call consumed (writes, only while `measureCapacity` is on). */
  writeCapacity?: number;
  /** S3: the object's key (its path, the bucket first locally), the status, and the bytes sent and received. */
  s3?: { path: string; status: number; bytesSent: number; bytesReceived: number };
  /** The function that made it (its name, e.g. `persons.voices`, `stream.relations`), when the local runtime ran one. */
  fn?: string;
  /** When the call started and ended (performance.now(), ms): calls that overlap ran in parallel. */
  startedAt: number;
  endedAt?: number;
}

/** Reads whose consumed capacity the recorder asks for while `measureCapacity` is on. */
const READS = new Set(['GetItem', 'BatchGetItem', 'TransactGetItems', 'Query', 'Scan']);
/** Writes likewise (TransactWriteItems counts its reads of conditions as write units, as DynamoDB does). */
export const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);

function capacityOf(out: Record<string, unknown>): number | undefined {
  const c = out.ConsumedCapacity as { CapacityUnits?: number } | { CapacityUnits?: number }[] | undefined;
  if (c === undefined) return undefined;
  return ([] as { CapacityUnits?: number }[]).concat(c).reduce((n, x) => n + (x.CapacityUnits ?? 0), 0);
}

function itemsReadOf(operation: string, out: Record<string, unknown>): number | undefined {
  if (operation === 'Query' || operation === 'Scan') return Number(out.ScannedCount ?? 0);
  if (operation === 'GetItem') return out.Item ? 1 : 0;
  if (operation === 'BatchGetItem') return Object.values((out.Responses ?? {}) as Record<string, unknown[]>).reduce((n, r) => n + r.length, 0);
  if (operation === 'TransactGetItems') return ((out.Responses ?? []) as { Item?: unknown }[]).filter((r) => r.Item !== undefined).length;
  return undefined;
}

export class SdkCallRecorder {
  private calls: SdkCall[] = [];
  /** Every Secrets Manager call since the clients were instrumented (secret ids, in order). */
  readonly secretFetches: string[] = [];

  private paused = 0;
  /** Ask DynamoDB for the consumed capacity of reads (ReturnConsumedCapacity: TOTAL). */
  measureCapacity = false;

  record(call: SdkCall): void {
    if (this.paused === 0) this.calls.push(call);
    if (call.service === 'secrets') this.secretFetches.push(String(call.input.SecretId));
  }

  /** Stops keeping calls (long load runs) until the returned function is called. */
  pause(): () => void {
    this.paused++;
    let resumed = false;
    return () => {
      if (!resumed) this.paused--;
      resumed = true;
    };
  }

  /** The calls since the last take(). */
  take(): SdkCall[] {
    const out = this.calls;
    this.calls = [];
    return out;
  }
}

/** The part of an SDK client's middleware stack used here. */
interface Stack {
  add(
    middleware: (
      next: (args: { input: object }) => Promise<{ output: { $metadata?: { attempts?: number } } }>,
      context: { commandName?: string },
    ) => (args: { input: object }) => Promise<unknown>,
    options: { step: 'initialize'; name: string; priority: 'high' },
  ): void;
}

function install(client: { middlewareStack: unknown }, service: SdkCall['service'], recorder: SdkCallRecorder): void {
  const stack = client.middlewareStack as Stack;
  stack.add(
    (next, context) => async (args) => {
      const operation = (context.commandName ?? 'unknown').replace(/Command$/, '');
      const fn = runningFunction.getStore();
      const call: SdkCall = { service, operation, input: args.input as Record<string, unknown>, retries: 0, ...(fn === undefined ? {} : { fn }), startedAt: performance.now() };
      recorder.record(call);
      const measured = service === 'dynamodb' && recorder.measureCapacity && (READS.has(operation) || WRITES.has(operation));
      const result = await next(measured ? { ...args, input: { ...args.input, ReturnConsumedCapacity: 'TOTAL' } } : args);
      call.endedAt = performance.now();
      call.retries = Math.max(0, (result.output.$metadata?.attempts ?? 1) - 1);
      if (service === 'dynamodb') {
        const out = result.output as Record<string, unknown>;
        const read = itemsReadOf(operation, out);
        if (read !== undefined) call.itemsRead = read;
        const capacity = capacityOf(out);
        if (capacity !== undefined && WRITES.has(operation)) call.writeCapacity = capacity;
        else if (capacity !== undefined) call.capacity = capacity;
      }
      return result;
    },
    { step: 'initialize', name: 'benchSdkCallCounter', priority: 'high' },
  );
}

let recorder: SdkCallRecorder | undefined;

/** Instruments the shared clients once per process and returns the recorder. */
export function instrumentSdk(): SdkCallRecorder {
  if (!recorder) {
    recorder = new SdkCallRecorder();
    install(db(), 'dynamodb', recorder);
    const r = recorder;
    secretReads.listener = (id) => {
      const at = performance.now();
      r.record({ service: 'secrets', operation: 'GetSecretValue', input: { SecretId: id }, retries: 0, startedAt: at, endedAt: at });
    };
    awsCalls.listener = (c) => {
      if (c.service !== 's3') return;
      const fn = runningFunction.getStore();
      const operation = `${c.method === 'GET' ? 'Get' : c.method === 'PUT' ? 'Put' : c.method === 'DELETE' ? 'Delete' : c.method}Object`;
      r.record({ service: 's3', operation, input: {}, retries: c.attempts - 1, s3: { path: c.path, status: c.status, bytesSent: c.bytesSent, bytesReceived: c.bytesReceived }, ...(fn === undefined ? {} : { fn }), startedAt: c.startedAt, endedAt: performance.now() });
    };
  }
  return recorder;
}

/**
 * Items a write call writes: a batch's requests, a transaction's puts, updates and deletes (not
 * its condition checks), one for the others; 0 for reads.
 */
export function itemsWritten(call: SdkCall): number {
  if (call.service !== 'dynamodb' || !WRITES.has(call.operation)) return 0;
  if (call.operation === 'BatchWriteItem') return Object.values((call.input.RequestItems ?? {}) as Record<string, unknown[]>).reduce((n, r) => n + r.length, 0);
  if (call.operation === 'TransactWriteItems') return ((call.input.TransactItems ?? []) as Record<string, unknown>[]).filter((t) => !t.ConditionCheck).length;
  return 1;
}

/** `GetItem`, `TransactWriteItems[11]` (number of items of a transaction). */
export function describeCall(call: SdkCall): string {
  const items = (call.input.TransactItems as unknown[] | undefined)?.length;
  return items === undefined ? call.operation : `${call.operation}[${items}]`;
}

/**
 * The calls as rounds: a call that starts after every call of the current round has ended opens
 * the next round (calls made together, e.g. by Promise.all, share one). The number of rounds is
 * what a request waits on DynamoDB for, one round trip each.
 */
export function rounds(calls: readonly SdkCall[]): SdkCall[][] {
  const out: SdkCall[][] = [];
  let end = -Infinity;
  for (const c of [...calls].sort((a, b) => a.startedAt - b.startedAt)) {
    const finished = c.endedAt ?? c.startedAt;
    if (out.length === 0 || c.startedAt >= end) {
      out.push([c]);
      end = finished;
    } else {
      out[out.length - 1]!.push(c);
      end = Math.max(end, finished);
    }
  }
  return out;
}

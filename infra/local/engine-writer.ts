/**
 * A bulk writer of unconditional puts for a DynamoDB Local this process started and alone writes
 * to (the first start's staging engine, catalogue-file.ts): the items are marshalled as the
 * shared document client marshals them (shared/db/client.ts: the same options, so the stored
 * items are the same) and posted as plain HTTP requests of the DynamoDB JSON protocol, without the
 * SDK's middleware, signing and response parsing. Measured on the first start's import: the SDK
 * spent about 10.5 CPU-seconds of Node.js per 98,000 items, this writer 3.1 (docs/decisions.md P3);
 * on 2 cores, that CPU is taken from the engine. DynamoDB Local checks no signature; the
 * Authorization header only has to name a credential and region.
 *
 * `BatchWriteItem` (25 items per call, unprocessed ones retried) or `TransactWriteItems` (100 per
 * call: one SQLite transaction each, about twice as fast when the engine's files are on a disk,
 * decision I7). `put` waits only while `inFlight` calls are under way; `drain` waits for the rest
 * and throws the first failure.
 */
import { Agent, request } from 'node:http';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { Item } from '../../shared/db/batch.js';

export type WriteCall = 'BatchWriteItem' | 'TransactWriteItems';

const PER_CALL: Record<WriteCall, number> = { BatchWriteItem: 25, TransactWriteItems: 100 };
/** Bytes of items per TransactWriteItems, under its 4 MB. */
const MAX_TRANSACT_BYTES = 3_500_000;
const AUTHORIZATION = 'AWS4-HMAC-SHA256 Credential=local/20200101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0';
/** Errors worth another try (the engine is busy), as BulkWriter retries them. */
const RETRIED = /TransactionCanceled|Throttl|ProvisionedThroughputExceeded|InternalServerError|TransactionInProgress|ECONNRESET/;

export class EngineWriter {
  /** Items written so far. */
  written = 0;
  private pending: string[] = [];
  private pendingBytes = 0;
  private readonly running = new Set<Promise<void>>();
  private failure: unknown = null;
  private readonly agent: Agent;
  private readonly perCall: number;

  constructor(
    private readonly endpoint: string,
    private readonly table: string,
    private readonly call: WriteCall,
    private readonly inFlight = 8,
  ) {
    this.agent = new Agent({ keepAlive: true, maxSockets: inFlight });
    this.perCall = PER_CALL[call];
  }

  async put(item: Item): Promise<void> {
    const json = JSON.stringify(marshall(item, { removeUndefinedValues: true, convertEmptyValues: false }));
    if (this.call === 'TransactWriteItems' && this.pending.length > 0 && this.pendingBytes + json.length > MAX_TRANSACT_BYTES) await this.flush();
    this.pending.push(json);
    this.pendingBytes += json.length;
    if (this.pending.length >= this.perCall) await this.flush();
  }

  async drain(): Promise<void> {
    while (this.pending.length > 0) await this.flush();
    await Promise.all(this.running);
    this.agent.destroy();
    if (this.failure !== null) throw this.failure;
  }

  private async flush(): Promise<void> {
    while (this.running.size >= this.inFlight) await Promise.race(this.running);
    if (this.failure !== null) throw this.failure;
    const items = this.pending.splice(0, this.perCall);
    this.pendingBytes = 0;
    const call: Promise<void> = this.write(items)
      .catch((err: unknown) => {
        this.failure ??= err;
      })
      .finally(() => this.running.delete(call));
    this.running.add(call);
  }

  private async write(items: string[]): Promise<void> {
    const table = JSON.stringify(this.table);
    let left = items;
    for (let attempt = 0; left.length > 0; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(2000, 25 * 2 ** attempt)));
      const body =
        this.call === 'BatchWriteItem'
          ? `{"RequestItems":{${table}:[${left.map((i) => `{"PutRequest":{"Item":${i}}}`).join(',')}]}}`
          : `{"TransactItems":[${left.map((i) => `{"Put":{"TableName":${table},"Item":${i}}}`).join(',')}]}`;
      let out: { status: number; body: string };
      try {
        out = await this.post(body);
      } catch (err) {
        if (attempt >= 8 || !RETRIED.test(String((err as NodeJS.ErrnoException).code ?? err))) throw err;
        continue;
      }
      if (out.status !== 200) {
        if (attempt >= 8 || !RETRIED.test(out.body)) throw new Error(`${this.call}: ${out.status} ${out.body.slice(0, 500)}`);
        continue;
      }
      const unprocessed = this.call === 'BatchWriteItem' ? ((JSON.parse(out.body) as { UnprocessedItems?: Record<string, { PutRequest: { Item: unknown } }[]> }).UnprocessedItems?.[this.table] ?? []) : [];
      if (unprocessed.length > 0 && attempt >= 12) throw new Error(`BatchWriteItem left ${unprocessed.length} items unprocessed`);
      this.written += left.length - unprocessed.length;
      left = unprocessed.map((u) => JSON.stringify(u.PutRequest.Item));
    }
  }

  private post(body: string): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const req = request(
        this.endpoint,
        {
          method: 'POST',
          agent: this.agent,
          headers: {
            'content-type': 'application/x-amz-json-1.0',
            'x-amz-target': `DynamoDB_20120810.${this.call}`,
            authorization: AUTHORIZATION,
            'content-length': Buffer.byteLength(body),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }
}

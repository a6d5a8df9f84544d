/**
 * Where the in-memory index's snapshot is kept (issue 19, DESIGN.md §4: "in S3, or in chunked
 * items of the table: measure and choose"). Run: `npx tsx test/bench/snapshot-store.ts`.
 *
 * A snapshot is a gzip blob (incompressible: random bytes stand for it) of 1, 4 and 16 MB, kept
 * (a) as one S3 object, read with one signed GET (shared/aws-request.ts, the functions' S3 path);
 * (b) as chunk items of 350 KB in the table (under the 400 KB item limit), read with BatchGetItem
 *     (100 keys and 16 MB per call: the chunks in parallel calls), eventually consistent — a
 *     snapshot is immutable once its pointer names it.
 * Reported per size: the load time p50/p90 over 20 loads in this process (the local engines: S3rver
 * and DynamoDB Local in memory — their times compare the two paths here, not AWS's), and the read
 * units DynamoDB bills per load of (b), which AWS prices; (a) is one GET request whatever the size.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { BatchGetCommand, DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ensureTable, LOCAL_PICTURES_BUCKET, startDynamoLocal, startStorageEmulator } from '../../infra/local/engines.js';
import { awsRequest } from '../../shared/aws-request.js';
import { percentile } from './stats.js';

const CHUNK = 350 * 1024;
const SIZES_MB = [1, 4, 16];
const LOADS = 20;

const dir = mkdtempSync(join(tmpdir(), 'snapshot-store-'));
const dynamo = await startDynamoLocal(null);
const s3 = await startStorageEmulator(dir);
Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_REGION: 'us-east-1', AWS_ENDPOINT_URL_S3: s3.url });
const table = 'snapshot-store';
await ensureTable(dynamo.url, table);
const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint: dynamo.url, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }));

const timed = async (f: () => Promise<unknown>) => {
  const t0 = performance.now();
  await f();
  return performance.now() - t0;
};
const object = (method: 'GET' | 'PUT', key: string, body?: Buffer) =>
  awsRequest('s3', { method, url: new URL(s3.url), path: `/${LOCAL_PICTURES_BUCKET}/${key}`, headers: {}, ...(body ? { body } : {}) }, () => undefined);

const rows: string[] = [];
try {
  for (const mb of SIZES_MB) {
    const blob = randomBytes(mb * 1024 * 1024);
    const key = `index/bench-${mb}`;
    await object('PUT', key, blob);
    const chunks = Math.ceil(blob.length / CHUNK);
    for (let i = 0; i < chunks; i++) await doc.send(new PutCommand({ TableName: table, Item: { pk: `IDXBENCH#${mb}`, sk: String(i).padStart(4, '0'), b: blob.subarray(i * CHUNK, (i + 1) * CHUNK) } }));
    const keys = Array.from({ length: chunks }, (_, i) => ({ pk: `IDXBENCH#${mb}`, sk: String(i).padStart(4, '0') }));
    let units = 0;
    const fromTable = async () => {
      // Up to 16 MB per call: about 45 chunks of 350 KB; DynamoDB may leave keys unprocessed.
      const parts: (typeof keys)[] = [];
      for (let i = 0; i < keys.length; i += 40) parts.push(keys.slice(i, i + 40));
      let got = 0;
      units = 0;
      await Promise.all(
        parts.map(async (part) => {
          let pending = part;
          while (pending.length) {
            const out = await doc.send(new BatchGetCommand({ RequestItems: { [table]: { Keys: pending } }, ReturnConsumedCapacity: 'TOTAL' }));
            for (const item of out.Responses?.[table] ?? []) got += (item.b as Uint8Array).length;
            units += out.ConsumedCapacity?.[0]?.CapacityUnits ?? 0;
            pending = (out.UnprocessedKeys?.[table]?.Keys ?? []) as typeof keys;
          }
        }),
      );
      if (got !== blob.length) throw new Error(`read ${got} of ${blob.length} bytes`);
    };
    const fromS3 = async () => {
      const r = await object('GET', key);
      if (r.body.length !== blob.length) throw new Error(`read ${r.body.length} of ${blob.length} bytes`);
    };
    await fromS3();
    await fromTable();
    const s3Times: number[] = [];
    const tableTimes: number[] = [];
    for (let i = 0; i < LOADS; i++) {
      s3Times.push(await timed(fromS3));
      tableTimes.push(await timed(fromTable));
    }
    const f = (v: number[]) => `${percentile(v, 50).toFixed(1)} / ${percentile(v, 90).toFixed(1)} ms`;
    rows.push(`| ${mb} MB | ${f(s3Times)} | ${f(tableTimes)} (${chunks} items) | ${units} |`);
  }
  console.log('| Snapshot (gzip) | S3 GET p50 / p90 | Table chunks, BatchGetItem p50 / p90 | Read units per load (eventually consistent) |');
  console.log('| --- | --- | --- | --- |');
  for (const r of rows) console.log(r);
} finally {
  doc.destroy();
  await s3.stop();
  await dynamo.stop();
  rmSync(dir, { recursive: true, force: true });
}

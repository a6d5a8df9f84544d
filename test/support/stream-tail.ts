/**
 * The end of a table's stream, read on demand: every change to the table since the last `take()`
 * (DynamoDB Streams writes a record for each item a write actually changed, and none for a write
 * that changes nothing or fails its condition). The fuzz test reads it after each request to
 * prove that a rejected request left the store as it was. It starts at the stream's end (LATEST);
 * shards that appear later are read from their start. Nothing here imports the test runner.
 */
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DescribeStreamCommand, DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';

/** One change: INSERT, MODIFY or REMOVE of the item `pk`/`sk`. */
export interface Change {
  event: string;
  pk: string;
  sk: string;
}

export interface StreamTail {
  /** The changes written since the previous call (or since the tail started). */
  take(): Promise<Change[]>;
  close(): void;
}

const CONFIG = { region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };
/** How often shards are listed again (new shards may open while the table is written). */
const REDISCOVER_MS = 2_000;

export async function tailStream(endpoint: string, table: string): Promise<StreamTail> {
  const dynamo = new DynamoDBClient({ ...CONFIG, endpoint });
  const streams = new DynamoDBStreamsClient({ ...CONFIG, endpoint });
  const arn = (await dynamo.send(new DescribeTableCommand({ TableName: table }))).Table?.LatestStreamArn;
  dynamo.destroy();
  if (!arn) throw new Error(`table ${table} has no stream`);
  /** Shard id → its iterator (null: read to its end, closed). */
  const shards = new Map<string, string | null>();
  let listed = 0;

  async function discover(type: 'LATEST' | 'TRIM_HORIZON'): Promise<void> {
    let start: string | undefined;
    do {
      const out = await streams.send(new DescribeStreamCommand({ StreamArn: arn, ...(start ? { ExclusiveStartShardId: start } : {}) }));
      for (const shard of out.StreamDescription?.Shards ?? []) {
        const id = shard.ShardId!;
        if (shards.has(id)) continue;
        // At the start, closed shards hold only what came before; open ones are read from now on.
        if (type === 'LATEST' && shard.SequenceNumberRange?.EndingSequenceNumber) {
          shards.set(id, null);
          continue;
        }
        const it = await streams.send(new GetShardIteratorCommand({ StreamArn: arn, ShardId: id, ShardIteratorType: type }));
        shards.set(id, it.ShardIterator ?? null);
      }
      start = out.StreamDescription?.LastEvaluatedShardId;
    } while (start);
    listed = Date.now();
  }

  await discover('LATEST');
  return {
    async take() {
      if (Date.now() - listed > REDISCOVER_MS) await discover('TRIM_HORIZON');
      const changes: Change[] = [];
      for (const [id, iterator] of shards) {
        let it = iterator;
        while (it) {
          const out = await streams.send(new GetRecordsCommand({ ShardIterator: it }));
          for (const r of out.Records ?? []) {
            changes.push({ event: r.eventName ?? '?', pk: r.dynamodb?.Keys?.pk?.S ?? '?', sk: r.dynamodb?.Keys?.sk?.S ?? '?' });
          }
          it = out.NextShardIterator ?? null;
          shards.set(id, it);
          if ((out.Records ?? []).length === 0) break;
        }
      }
      return changes;
    },
    close: () => streams.destroy(),
  };
}

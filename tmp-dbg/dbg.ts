import { startBenchEnv } from '../test/bench/local.js';
import { queryAll } from '../shared/db/batch.js';
const env = await startBenchEnv({ dataDir: '/dev/shm/small-cat' });
process.env.TABLE_NAME = 'bench-catalogue-small-s1';
const { ScanCommand } = await import('@aws-sdk/lib-dynamodb');
const { db } = await import('../shared/db/sdk.js');
const out = await db().send(new ScanCommand({ TableName: 'bench-catalogue-small-s1', FilterExpression: 'begins_with(sk, :va)', ExpressionAttributeValues: { ':va': 'VA#' }, Limit: 5000 }));
const pk = String(out.Items![0]!.pk); const id = pk.split('#')[1];
for (let i = 0; i < 4; i++) {
  env.sdk.take();
  await env.http.request('GET', `/api/persons/${id}/voices/?limit=25&ordering=aired_from`);
  const calls = env.sdk.take().filter((c) => c.service === 'dynamodb');
  const t0 = Math.min(...calls.map((c) => c.startedAt));
  console.log(calls.map((c) => `${c.operation} ${(c.startedAt - t0).toFixed(1)}-${((c.endedAt ?? 0) - t0).toFixed(1)} fn=${c.fn}`).join(' | '));
}
await env.stop();
process.exit(0);

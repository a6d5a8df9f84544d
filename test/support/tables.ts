/** Whole tables as items, for tests that compare what two ways of writing leave. */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { isSchemaItem } from '../../shared/db/migrations.js';
import { db } from '../../shared/db/sdk.js';

export type Item = Record<string, unknown>;

/**
 * Every item of a table by `pk sk` (a test table: Scan is fine here, never on a request path).
 * The store's schema items (its version, a migration's checkpoint: shared/db/migrations.ts) are
 * not its data, and differ between two tables made at different times: left out unless `schema`.
 */
export async function scanAll(table: string, opts: { schema?: boolean } = {}): Promise<Map<string, Item>> {
  const items = new Map<string, Item>();
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db().send(new ScanCommand({ TableName: table, ExclusiveStartKey: start, ConsistentRead: true }));
    for (const i of out.Items ?? []) if (opts.schema || !isSchemaItem(i)) items.set(`${String(i.pk)} ${String(i.sk)}`, i);
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}

/** Waits until the table stops changing (the stream consumers have applied every record), up to `seconds`. */
export async function settled(table: string, seconds = 180): Promise<Map<string, Item>> {
  let last = '';
  let still = 0;
  for (let i = 0; i < seconds * 2; i++) {
    const items = await scanAll(table);
    const now = JSON.stringify([...items].sort(([a], [b]) => (a < b ? -1 : 1)));
    still = now === last ? still + 1 : 0;
    if (still >= 3) return items;
    last = now;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error('the table did not settle');
}

/** Object keys sorted at every depth (DynamoDB keeps no order of a map's keys). */
export function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys((v as Item)[k])]));
}

/**
 * Counters of the specific rate limits (API.md §7.2, policies in shared/http/rate-limits.ts):
 * one item per policy, dimension, key and fixed window.
 *
 *   counter   pk = RATE#<policy>#<dimension>#<hash of the key>   sk = <window start, epoch seconds>
 *             { n: requests counted in the window, expires_at: window end + TTL_MARGIN (TTL) }
 *
 * The key (a client address, an e-mail address, a user id) is stored only as its SHA-256 hash
 * (base64url), so no personal data appears in keys. A request is counted with one conditional
 * UpdateItem that refuses to count, instead of counting, once the window holds `limit` requests.
 */
import { createHash } from 'node:crypto';
import type { ItemKey } from './batch.js';
import { send, tableName } from './client.js';
import { isConditionalCheckFailed } from './errors.js';
import type { KeyPattern } from './key-patterns.js';

/** Seconds a counter outlives its window before DynamoDB TTL may remove it (clock skew between containers). */
export const TTL_MARGIN = 60;

const hash = (value: string) => createHash('sha256').update(value, 'utf8').digest('base64url');

const PREFIX = 'RATE#';

/** Every rate-limit counter. */
export const RATE_KEYS: KeyPattern = `${PREFIX}*`;

/** Where the count of `key` for one limit (policy + dimension) in the window starting at `windowStart` lives. */
export function rateCounterKey(policy: string, dimension: string, key: string, windowStart: number): ItemKey {
  return { pk: `${PREFIX}${policy}#${dimension}#${hash(key)}`, sk: String(windowStart) };
}

/**
 * Counts one request in the window of `key` (`windowEnd`: epoch seconds). Returns the new count,
 * or `null` when the window already holds `limit` requests (then nothing is counted).
 */
export async function countRequest(key: ItemKey, limit: number, windowEnd: number): Promise<number | null> {
  try {
    const out = await send((c) =>
      new c.UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'ADD n :one SET expires_at = :expires',
        ConditionExpression: 'attribute_not_exists(n) OR n < :limit',
        ExpressionAttributeValues: { ':one': 1, ':limit': limit, ':expires': windowEnd + TTL_MARGIN },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return Number(out.Attributes?.n);
  } catch (err) {
    if (isConditionalCheckFailed(err)) return null;
    throw err;
  }
}

/** Takes back one request counted by countRequest (a request refused by another limit is not counted). */
export async function uncountRequest(key: ItemKey): Promise<void> {
  try {
    await send((c) =>
      new c.UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'ADD n :minus',
        // Never recreate a counter that has gone (it would have no expires_at).
        ConditionExpression: 'attribute_exists(n)',
        ExpressionAttributeValues: { ':minus': -1 },
      }),
    );
  } catch (err) {
    if (!isConditionalCheckFailed(err)) throw err;
  }
}

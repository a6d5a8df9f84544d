/**
 * Refresh tokens (API.md §2.2): one item per issued refresh token, `pk = REFRESH#<jti>`,
 * `sk = R`, `{uid, fam, spent, expires_at}` (TTL: the token's expiry). Rotation spends a token
 * with a conditional update, so of two concurrent refreshes with one token exactly one wins;
 * presenting a spent token is reuse (its family is then revoked on the user, see users.ts).
 *
 * DynamoDB's TTL deletes an expired record within days (DynamoDB Local never does), so a record
 * whose `expires_at` has passed is treated as absent here. (Its token's `exp` is the same time,
 * and tokens are verified before their record is read, so this never decides alone.)
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { send, tableName } from './client.js';
import { isConditionalCheckFailed } from './errors.js';
import type { KeyPattern } from './key-patterns.js';
import { itemPlan, put, type WritePlan } from './records.js';

const key = (jti: string) => ({ pk: `REFRESH#${jti}`, sk: 'R' });

/** Every refresh-token record. */
export const REFRESH_KEYS: KeyPattern = key('*').pk;

const nowSeconds = () => Math.floor(Date.now() / 1000);
/** True when a TTL time (epoch seconds) has passed. */
const expired = (expiresAt: unknown) => Number(expiresAt) <= nowSeconds();

export interface RefreshState {
  uid: string;
  fam: string;
  spent: boolean;
}

/** Records a newly issued refresh token (commit it with the sign-in or the rotation). */
export function refreshTokenPlan(token: { jti: string; uid: string; fam: string; exp: number }): WritePlan {
  return itemPlan(put({ ...key(token.jti), uid: token.uid, fam: token.fam, spent: false, expires_at: token.exp }, { expression: 'attribute_not_exists(pk)' }));
}

export async function refreshTokenState(jti: string): Promise<RefreshState | null> {
  const out = await send((c) => new c.GetCommand({ TableName: tableName(), Key: key(jti), ConsistentRead: true }));
  if (!out.Item || expired(out.Item.expires_at)) return null;
  return { uid: String(out.Item.uid), fam: String(out.Item.fam), spent: out.Item.spent === true };
}

/** Spends a refresh token: `spent` now, or why not (`reused`: it was spent before; `unknown`, or expired). */
export async function spendRefreshToken(jti: string): Promise<'spent' | 'reused' | 'unknown'> {
  try {
    await send((c) =>
      new c.UpdateCommand({
        TableName: tableName(),
        Key: key(jti),
        UpdateExpression: 'SET spent = :t, spent_at = :now',
        ConditionExpression: 'attribute_exists(pk) AND spent = :f AND expires_at > :epoch',
        ExpressionAttributeValues: { ':t': true, ':f': false, ':now': new Date().toISOString(), ':epoch': nowSeconds() },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return 'spent';
  } catch (err) {
    if (!isConditionalCheckFailed(err)) throw err;
    const old = (err as { Item?: Record<string, AttributeValue> }).Item;
    return old && !expired(unmarshall(old).expires_at) ? 'reused' : 'unknown';
  }
}

/**
 * Stored outcomes of creations sent with an `Idempotency-Key` (API.md §8.7; docs/decisions.md
 * EX9): one item per caller and key, kept 24 hours.
 *
 *   pending   pk = IDEM#<scope>   sk = I   { fp, state: pending, lease, lease_until (epoch ms), expires_at (TTL) }
 *   done      pk = IDEM#<scope>   sk = I   { fp, state: done, status, sealed, expires_at (TTL) }
 *
 * `<scope>` is the base64url SHA-256 of the caller (`user:<id>` or `ip:<client>`), a line feed
 * and the key. Neither the key nor anything readable of the request or its answer is stored:
 * the fingerprint `fp` is an HMAC of the request under a key derived from the Idempotency-Key,
 * and `sealed` the outcome (gzip, then AES-256-GCM) under another key derived from it — so the
 * table holds no password-equivalent hash of a registration's body and no readable token of a
 * social sign-in; only a request that sends the key again can open what it stored.
 *
 * A request claims its key with one conditional PutItem (claimKey): the key is free, its item
 * expired (DynamoDB TTL deletes late, DynamoDB Local never: an expired item counts as absent), or
 * held by a request whose lease ran out (it died). The creation then commits its outcome in its
 * own transaction (completionPlan: conditioned on still holding the lease), so the record and
 * its stored answer are written together or not at all. An answer worth keeping that is no
 * creation (a 4xx but 409 and 429) is stored after the handler (storeOutcome); any other gives
 * the key back (release) for a retry to try again.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { Item, ItemKey } from './batch.js';
import { send, tableName } from './client.js';
import { isConditionalCheckFailed } from './errors.js';
import { grant, type KeyGrants, type KeyPattern } from './key-patterns.js';
import { itemPlan, put, type WritePlan } from './records.js';

const PREFIX = 'IDEM#';

/** Every stored outcome. */
export const IDEMPOTENCY_KEYS: KeyPattern = `${PREFIX}*`;

/**
 * What finishing the journal of an anime's or a manga's write takes besides the title's own
 * items: a creation at the maxima of links may have left its stored answer there
 * (deferredFormOf), and whoever applies the journal puts it (the writer itself, the title's next
 * writer, the relations consumer).
 */
export const JOURNALED_ANSWERS: KeyGrants = grant(IDEMPOTENCY_KEYS, 'PutItem');

/** How long an outcome is kept (API.md §8.7: 24 hours). */
export const RETENTION_SECONDS = 24 * 60 * 60;

/** What one caller's key names and opens: the item, and the keys derived from the Idempotency-Key (never stored). */
export interface IdempotencyScope {
  key: ItemKey;
  /** Key of the request's fingerprint (HMAC-SHA256). */
  mac: Buffer;
  /** Key of the stored outcome (AES-256-GCM). */
  seal: Buffer;
}

const derive = (idempotencyKey: string, caller: string, use: string) =>
  Buffer.from(hkdfSync('sha256', Buffer.from(idempotencyKey, 'utf8'), Buffer.from(caller, 'utf8'), `catalogue idempotency ${use}`, 32));

/** The item and keys of `idempotencyKey` sent by `caller` (`user:<id>`, `ip:<client>`). */
export function idempotencyScope(caller: string, idempotencyKey: string): IdempotencyScope {
  const hash = createHash('sha256').update(`${caller}\n${idempotencyKey}`, 'utf8').digest('base64url');
  return { key: { pk: `${PREFIX}${hash}`, sk: 'I' }, mac: derive(idempotencyKey, caller, 'fingerprint'), seal: derive(idempotencyKey, caller, 'outcome') };
}

/** The fingerprint of a request: its method, target (path and query string) and body bytes. */
export function fingerprint(scope: IdempotencyScope, method: string, target: string, body: Uint8Array): string {
  return createHmac('sha256', scope.mac).update(`${method}\n${target}\n`, 'utf8').update(body).digest('base64url');
}

/** A key held by this request: its scope, fingerprint and lease. */
export interface Claim {
  scope: IdempotencyScope;
  fp: string;
  lease: string;
}

/** A stored outcome: its status and what the request stored beside it (opened). */
export interface Outcome {
  status: number;
  payload: unknown;
}

/** A claim's result: held, an outcome to answer again, sent before with another request (`reused`), or held by a request still running (`busy`). */
export type ClaimResult = { claimed: Claim } | { done: Outcome } | 'reused' | 'busy';

const nowSeconds = (nowMs: number) => Math.floor(nowMs / 1000);

/**
 * Claims `scope`'s key for a request with fingerprint `fp`, until `nowMs + leaseMs`: one
 * conditional PutItem, whose failure returns the item that failed it (ALL_OLD: what a consistent
 * read would give, without the read).
 */
export async function claimKey(scope: IdempotencyScope, fp: string, nowMs: number, leaseMs: number): Promise<ClaimResult> {
  const lease = randomBytes(12).toString('base64url');
  try {
    await send((c) =>
      new c.PutCommand({
        TableName: tableName(),
        Item: { ...scope.key, fp, state: 'pending', lease, lease_until: nowMs + leaseMs, expires_at: nowSeconds(nowMs) + RETENTION_SECONDS },
        ConditionExpression: 'attribute_not_exists(pk) OR expires_at < :now OR (#state = :pending AND lease_until < :nowMs)',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':now': nowSeconds(nowMs), ':nowMs': nowMs, ':pending': 'pending' },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { claimed: { scope, fp, lease } };
  } catch (err) {
    if (!isConditionalCheckFailed(err)) throw err;
    // Refused, so there is an item, unexpired, done or held by a live lease.
    const old = (err as { Item?: Record<string, AttributeValue> }).Item;
    if (!old) throw new Error('a refused claim returned no item', { cause: err });
    const item = unmarshall(old) as Item;
    if (item.fp !== fp) return 'reused';
    if (item.state === 'done') return { done: { status: Number(item.status), payload: open(scope, Number(item.status), item.sealed as Uint8Array) } };
    return 'busy';
  }
}

/** Thrown when a request no longer holds its key (its lease ran out and another request took it): nothing was written. */
export class IdempotencyLost extends Error {
  constructor() {
    super('the idempotency key was claimed by another request');
    this.name = 'IdempotencyLost';
  }
}

const HOLDS = (claim: Claim) => ({ expression: '#lease = :lease', names: { '#lease': 'lease' }, values: { ':lease': claim.lease } });

const doneItem = (claim: Claim, outcome: Outcome, nowMs: number): Item => ({
  ...claim.scope.key,
  fp: claim.fp,
  state: 'done',
  status: outcome.status,
  sealed: seal(claim.scope, outcome),
  expires_at: nowSeconds(nowMs) + RETENTION_SECONDS,
});

/** Completions (their Put in a plan) and the form each takes when it follows its creation's main transaction. */
const deferredForms = new WeakMap<object, object>();

/**
 * The outcome of a creation, for its own transaction: the item as `done`, on the condition that
 * the request still holds the key (else the transaction fails with IdempotencyLost).
 */
export function completionPlan(claim: Claim, outcome: Outcome, nowMs = Date.now()): WritePlan {
  const item = doneItem(claim, outcome, nowMs);
  const completion = put(item, HOLDS(claim));
  deferredForms.set(completion, put(item, { expression: 'attribute_not_exists(pk) OR #state = :pending', names: { '#state': 'state' }, values: { ':pending': 'pending' } }));
  return itemPlan(completion, { what: 'error', error: () => new IdempotencyLost() });
}

/**
 * A creation whose main transaction has no room for its completion (a title at the maxima of
 * links: staged.ts commitStaged) lets it follow in the write's rest, which the commit makes sure
 * to be applied (a journal): put unless an answer is stored already. No second record can be
 * committed meanwhile by a request that took the key over: the main transaction holds the
 * record's uniqueness claims (the name of an anime or manga), so the same request's creation
 * clashes with it (409, not kept) — only plans with such a claim are deferred. The deferred
 * form of a completion, or undefined for any other item.
 */
export const deferredFormOf = (item: object): object | undefined => deferredForms.get(item);

/** Stores an outcome that is no creation (a refusal kept for retries); IdempotencyLost when the key was taken. */
export async function storeOutcome(claim: Claim, outcome: Outcome, nowMs = Date.now()): Promise<void> {
  const { Put } = put(doneItem(claim, outcome, nowMs), HOLDS(claim));
  try {
    await send((c) => new c.PutCommand(Put as never));
  } catch (err) {
    throw isConditionalCheckFailed(err) ? new IdempotencyLost() : err;
  }
}

/** Gives the key back (a retry tries again), unless it was completed or taken meanwhile. */
export async function release(claim: Claim): Promise<void> {
  try {
    await send((c) =>
      new c.DeleteCommand({
        TableName: tableName(),
        Key: claim.scope.key,
        ConditionExpression: '#lease = :lease AND #state = :pending',
        ExpressionAttributeNames: { '#lease': 'lease', '#state': 'state' },
        ExpressionAttributeValues: { ':lease': claim.lease, ':pending': 'pending' },
      }),
    );
  } catch (err) {
    if (!isConditionalCheckFailed(err)) throw err;
  }
}

/**
 * The payload as stored: JSON, gzip, AES-256-GCM (12-byte IV, then the tag, then the
 * ciphertext), bound to its item and status.
 */
function seal(scope: IdempotencyScope, outcome: Outcome): Uint8Array {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', scope.seal, iv);
  cipher.setAAD(Buffer.from(`${scope.key.pk}\n${outcome.status}`, 'utf8'));
  const sealed = Buffer.concat([cipher.update(gzipSync(JSON.stringify(outcome.payload))), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]);
}

function open(scope: IdempotencyScope, status: number, bytes: Uint8Array): unknown {
  const b = Buffer.from(bytes);
  const decipher = createDecipheriv('aes-256-gcm', scope.seal, b.subarray(0, 12));
  decipher.setAAD(Buffer.from(`${scope.key.pk}\n${status}`, 'utf8'));
  decipher.setAuthTag(b.subarray(12, 28));
  return JSON.parse(gunzipSync(Buffer.concat([decipher.update(b.subarray(28)), decipher.final()])).toString('utf8'));
}

/** Opens a stored item's outcome with the scope that stored it (tests, tools), or null when it holds none. */
export function openOutcome(scope: IdempotencyScope, item: Item): Outcome | null {
  if (item.state !== 'done') return null;
  return { status: Number(item.status), payload: open(scope, Number(item.status), item.sealed as Uint8Array) };
}

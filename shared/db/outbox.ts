/**
 * The e-mail outbox (API.md §5.5, §6): every e-mail is an item written in the same transaction as
 * the change that causes it (`outboxPlan`, committed with the change's own plans), then delivered
 * by the mailer (the stream consumer of the INSERT) or by the outbox job (retries).
 *
 *   message    pk = OUTBOX#<id>   sk = M                  { id, template | request, to, data, status, attempts,
 *                                                           created_at, next_at?, lease?, lease_until?,
 *                                                           sent_at?, last_error?, expires_at (TTL) }
 *   due entry  pk = OUTBOX#DUE    sk = <next_at>#<id>     { id, expires_at (TTL) }
 *
 * A message is an e-mail (`template`; a token e-mail holds the token's grant, never the token) or
 * an account request (`request`), which its delivery turns into the e-mails it calls for
 * (shared/email/requests.ts).
 *
 * Status: pending → sending (claimed, with a lease) → sent | dropped (the recipient's cap) |
 * retry (→ sending …) | dead.
 * Invariant: a message that is not sent or dead has exactly one due entry, at its `next_at`
 * (for a new message: a little after its creation, in case the stream consumer never gets to
 * it). So the outbox job, which reads only the due partition, finds every message that still
 * needs work, and nothing is lost when a consumer fails or a process dies mid-delivery.
 *
 * Claiming is one conditional UpdateItem, so only one deliverer at a time holds a message; the
 * status writes after a send are conditioned on that deliverer's lease.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { randomBytes } from 'node:crypto';
import { newId } from '../ids.js';
import { parseOutboxContent, type OutboxContent } from '../email/templates.js';
import type { Item } from './batch.js';
import { send, tableName } from './client.js';
import { isConditionalCheckFailed } from './errors.js';
import { grant, grants, type KeyGrants, type KeyPattern } from './key-patterns.js';
import { RATE_KEYS } from './rate-counters.js';
import { commit, del, itemPlan, put, type WritePlan } from './records.js';
import { AUTH_KEYS, USER_KEYS } from './users.js';

export type OutboxStatus = 'pending' | 'sending' | 'sent' | 'dropped' | 'retry' | 'dead';

/** Statuses after which a message is never delivered again. */
export const FINAL_STATUSES: ReadonlySet<OutboxStatus> = new Set(['sent', 'dropped', 'dead']);

export type OutboxMessage = OutboxContent & {
  id: string;
  status: OutboxStatus;
  /** Delivery attempts started (a claim starts one). */
  attempts: number;
  created_at: string;
  /** When the message is due next (while not sent or dead); its due entry has this time. */
  next_at?: string;
  /** The current deliverer's lease: an opaque value and its end. */
  lease?: string;
  lease_until?: string;
  sent_at?: string;
  /** The last delivery error (a short description, never a body). */
  last_error?: string;
  /** TTL, epoch seconds. */
  expires_at: number;
};

/** A due entry: `id` is due at `at` (the entry's sort key is `sk`). */
export interface DueEntry {
  id: string;
  at: string;
  sk: string;
}

/** Attempts in all: the first send and 11 retries, the last about 24.5 hours after the first. */
export const MAX_ATTEMPTS = 12;
/** How long a claim holds a message (a send takes seconds; see shared/email/send.ts). */
export const LEASE_SECONDS = 60;
/** A new message is due for the outbox job this long after its creation (if still pending). */
export const FIRST_DUE_SECONDS = 120;
/** Messages (and stray due entries) are removed by TTL this long after creation. */
export const RETENTION_DAYS = 30;
/** Longest wait between two attempts. */
export const MAX_BACKOFF_MINUTES = 480;

const DUE_PK = 'OUTBOX#DUE';
const messageKey = (id: string) => ({ pk: `OUTBOX#${id}`, sk: 'M' });
const dueKey = (at: string, id: string) => ({ pk: DUE_PK, sk: `${at}#${id}` });

/** Every item of the outbox: messages and due entries (`OUTBOX#DUE`). */
export const OUTBOX_KEYS: KeyPattern = messageKey('*').pk;

/**
 * What delivering a message does (the mailer and the outbox job): the message claimed, marked
 * and rescheduled (UpdateItem, its due entries put and deleted), the e-mails an account request
 * decides queued (PutItem); the recipient's counter (the cap of shared/email/deliver.ts); and
 * the account the request is decided on (shared/email/requests.ts): the user read by id or
 * e-mail and put again with a new token's nonce or a pending e-mail change (no key of its items
 * moves), its auth state written.
 */
export const DELIVERY_KEYS: KeyGrants = grants(
  grant(OUTBOX_KEYS, 'PutItem', 'UpdateItem', 'DeleteItem'),
  grant(RATE_KEYS, 'UpdateItem'),
  grant(USER_KEYS, 'GetItem', 'PutItem'),
  grant(AUTH_KEYS, 'UpdateItem'),
);
/** The due entries the outbox job reads (Query of `OUTBOX#DUE`). */
export const DUE_KEYS: KeyPattern = DUE_PK;

/** True for the key of an outbox message item (as the stream consumer sees it). */
export const isOutboxMessageKey = (key: { pk?: unknown; sk?: unknown }): boolean =>
  typeof key.pk === 'string' && key.pk.startsWith('OUTBOX#') && key.pk !== DUE_PK && key.sk === 'M';

/** Wait after the `attempts`-th failed attempt: 1, 2, 4, … minutes, at most MAX_BACKOFF_MINUTES. */
export function backoffMinutes(attempts: number): number {
  return Math.min(2 ** Math.max(0, attempts - 1), MAX_BACKOFF_MINUTES);
}

const iso = (d: Date) => d.toISOString();
const plusSeconds = (d: Date, s: number) => new Date(d.getTime() + s * 1000);
const epochSeconds = (d: Date) => Math.floor(d.getTime() / 1000);

function messageFromItem(item: Item): OutboxMessage {
  const { pk: _pk, sk: _sk, ...rest } = item;
  return rest as unknown as OutboxMessage;
}

/**
 * The items that queue `message` (an e-mail or an account request): the message (pending) and
 * its first due entry. Commit it with the plans of the change that causes it, e.g.
 * `commit(createPlan(…), outboxPlan(E1))`.
 */
export function outboxPlan(message: OutboxContent, opts: { id?: string; now?: Date } = {}): WritePlan {
  const content = parseOutboxContent(message);
  const id = opts.id ?? newId();
  const now = opts.now ?? new Date();
  const nextAt = iso(plusSeconds(now, FIRST_DUE_SECONDS));
  const expires = epochSeconds(plusSeconds(now, RETENTION_DAYS * 86_400));
  const item = { ...messageKey(id), id, ...content, status: 'pending', attempts: 0, created_at: iso(now), next_at: nextAt, expires_at: expires };
  const plans = [itemPlan(put(item)), itemPlan(put({ ...dueKey(nextAt, id), id, expires_at: expires }))];
  return { items: plans.flatMap((p) => p.items), meanings: plans.flatMap((p) => p.meanings) };
}

export async function getOutboxMessage(id: string): Promise<OutboxMessage | null> {
  const out = await send((c) => new c.GetCommand({ TableName: tableName(), Key: messageKey(id), ConsistentRead: true }));
  return out.Item ? messageFromItem(out.Item) : null;
}

export type Claim =
  | { claimed: true; message: OutboxMessage }
  /** `current`: the message as it is (null: there is none). */
  | { claimed: false; current: OutboxMessage | null };

/**
 * Takes a message for one delivery attempt: a pending one, a retry that is due, or one whose
 * previous deliverer's lease ran out. It becomes `sending` with a lease of LEASE_SECONDS and one
 * more attempt. Not claimed: someone else holds it, it is not due yet, it is sent or dead, or it
 * does not exist.
 */
export async function claim(id: string, now = new Date()): Promise<Claim> {
  try {
    const out = await send((c) =>
      new c.UpdateCommand({
        TableName: tableName(),
        Key: messageKey(id),
        UpdateExpression: 'SET #status = :sending, #lease = :lease, lease_until = :until ADD attempts :one',
        ConditionExpression: '#status = :pending OR (#status = :retry AND next_at <= :now) OR (#status = :sending AND lease_until < :now)',
        ExpressionAttributeNames: { '#status': 'status', '#lease': 'lease' },
        ExpressionAttributeValues: {
          ':sending': 'sending',
          ':pending': 'pending',
          ':retry': 'retry',
          ':now': iso(now),
          ':until': iso(plusSeconds(now, LEASE_SECONDS)),
          ':lease': randomBytes(12).toString('base64url'),
          ':one': 1,
        },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { claimed: true, message: messageFromItem(out.Attributes!) };
  } catch (err) {
    if (!isConditionalCheckFailed(err)) throw err;
    const old = (err as { Item?: Record<string, AttributeValue> }).Item;
    return { claimed: false, current: old ? messageFromItem(unmarshall(old)) : null };
  }
}

/** Thrown inside a status write when the message is no longer held by this deliverer. */
class LeaseLost extends Error {
  constructor(id: string) {
    super(`outbox message ${id} is no longer held by this deliverer`);
    this.name = 'LeaseLost';
  }
}

/** An update of the claimed message `m`, conditioned on `m` still being held with its lease. */
function update(m: OutboxMessage, expression: string, values: Record<string, unknown>): WritePlan {
  return itemPlan(
    {
      Update: {
        TableName: tableName(),
        Key: messageKey(m.id),
        UpdateExpression: expression,
        ConditionExpression: '#status = :sending AND #lease = :lease',
        ExpressionAttributeNames: { '#status': 'status', '#lease': 'lease' },
        ExpressionAttributeValues: { ':sending': 'sending', ':lease': m.lease, ...values },
      },
    },
    { what: 'error', error: () => new LeaseLost(m.id) },
  );
}

const dropDue = (m: OutboxMessage): WritePlan[] => (m.next_at ? [itemPlan(del(dueKey(m.next_at, m.id)))] : []);

async function commitHeld(...plans: WritePlan[]): Promise<boolean> {
  try {
    await commit(...plans);
    return true;
  } catch (err) {
    if (err instanceof LeaseLost) return false;
    throw err;
  }
}

/**
 * Records that the claimed message `m` is done: `sent` (accepted by SES; for an account request,
 * decided, with `plans` — the changes and e-mails it called for — in the same transaction), or
 * `dropped` (held back by the recipient's cap). Its due entry is removed. False when another
 * deliverer took the message over meanwhile (nothing written).
 */
export async function markDone(m: OutboxMessage, status: 'sent' | 'dropped', now = new Date(), ...plans: WritePlan[]): Promise<boolean> {
  return commitHeld(
    update(m, 'SET #status = :done, sent_at = :now REMOVE #lease, lease_until, next_at, last_error', { ':done': status, ':now': iso(now) }),
    ...dropDue(m),
    ...plans,
  );
}

export type FailureOutcome = { status: 'retry'; next_at: string } | { status: 'dead' };

/**
 * Records a failed attempt of the claimed message `m`. Before the last attempt: status `retry`,
 * due again after backoffMinutes(attempts) (the due entry moves in the same transaction). After
 * the last one: status `dead`, and no due entry. Null when another deliverer took the message
 * over meanwhile (nothing written).
 */
export async function markFailed(m: OutboxMessage, error: string, now = new Date()): Promise<FailureOutcome | null> {
  const lastError = error.slice(0, 500);
  if (m.attempts >= MAX_ATTEMPTS) {
    const ok = await commitHeld(
      update(m, 'SET #status = :dead, last_error = :error REMOVE #lease, lease_until, next_at', { ':dead': 'dead', ':error': lastError }),
      ...dropDue(m),
    );
    return ok ? { status: 'dead' } : null;
  }
  const nextAt = iso(plusSeconds(now, backoffMinutes(m.attempts) * 60));
  const ok = await commitHeld(
    update(m, 'SET #status = :retry, next_at = :next, last_error = :error REMOVE #lease, lease_until', {
      ':retry': 'retry',
      ':next': nextAt,
      ':error': lastError,
    }),
    ...dropDue(m),
    itemPlan(put({ ...dueKey(nextAt, m.id), id: m.id, expires_at: m.expires_at })),
  );
  return ok ? { status: 'retry', next_at: nextAt } : null;
}

/**
 * Due entries with a time at or before `now`, oldest first (`after`: the `sk` of the last entry
 * of the previous page). One Query on the due partition.
 */
export async function dueMessages(now: Date, limit: number, after?: string): Promise<{ entries: DueEntry[]; more: boolean }> {
  const out = await send((c) =>
    new c.QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND sk <= :bound',
      // '~' sorts after every id character, so entries due exactly at `now` are included.
      ExpressionAttributeValues: { ':pk': DUE_PK, ':bound': `${iso(now)}#~` },
      ...(after ? { ExclusiveStartKey: { pk: DUE_PK, sk: after } } : {}),
      Limit: limit,
      ConsistentRead: true,
    }),
  );
  const entries = (out.Items ?? []).map((item) => {
    const sk = String(item.sk);
    return { id: String(item.id), at: sk.slice(0, sk.lastIndexOf('#')), sk };
  });
  return { entries, more: out.LastEvaluatedKey !== undefined };
}

/** Removes a due entry (one that no longer matches its message). */
export async function removeDue(entry: Pick<DueEntry, 'sk'>): Promise<void> {
  await send((c) => new c.DeleteCommand({ TableName: tableName(), Key: { pk: DUE_PK, sk: entry.sk } }));
}

/** True when the due entry no longer stands for work: its message is gone, final, or due at another time. */
export function isStaleDue(entry: Pick<DueEntry, 'at'>, current: OutboxMessage | null): boolean {
  return current === null || FINAL_STATUSES.has(current.status) || current.next_at !== entry.at;
}

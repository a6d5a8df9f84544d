/**
 * Delivering one outbox message (shared/db/outbox.ts): claim → render → send → mark sent. A send
 * that fails is recorded as a failed attempt (retried later with backoff, dead after the last
 * attempt). Used by the mailer (stream consumer) and by the outbox job alike.
 *
 * Two kinds of message:
 * - an e-mail: a token e-mail holds its token's grant, and the token is made here, with the key
 *   (templates.ts `withToken`), so the table never holds a usable token. E-mails anyone can
 *   cause (`CAPPED_TEMPLATES`) are counted per recipient and template first: over the cap the
 *   message is `dropped` (logged, never visible in an API answer);
 * - an account request: decided (shared/email/requests.ts), its changes and e-mails committed
 *   in one transaction with its completion; the e-mails are then delivered as any other.
 *
 * Idempotent per message: only a deliverer that holds the claim sends, so delivering a message
 * that is done or being sent by someone else does nothing. A duplicate e-mail is possible only
 * when a deliverer dies (or loses its lease) after SES accepted the message and before the
 * status write; delivery is at-least-once (API.md §5.5, docs/decisions.md).
 *
 * Logs never carry bodies, tokens or the full recipient address (masked, as in API.md §6).
 */
import { claim, FINAL_STATUSES, markDone, markFailed, MAX_ATTEMPTS, outboxPlan, type OutboxMessage } from '../db/outbox.js';
import { countRequest, rateCounterKey, uncountRequest } from '../db/rate-counters.js';
import { StaleRecord, type WritePlan } from '../db/records.js';
import { logger } from '../log.js';
import { decide } from './requests.js';
import { sendEmail } from './send.js';
import { accountRequestSchema, CAPPED_TEMPLATES, maskAddress, queuedEmailSchema, render, withToken, type QueuedEmail, type Rendered } from './templates.js';

export type Delivery =
  /** Sent now by this call (an account request: decided now). */
  | 'sent'
  /** Held back by the recipient's cap. */
  | 'dropped'
  /** This attempt failed; the message is due again later. */
  | 'retry'
  /** This attempt failed and was the last one (or the attempts were used up). */
  | 'dead'
  /** Someone else holds the message, or its retry is not due yet. */
  | 'busy'
  /** Already sent, dropped or dead. */
  | 'done'
  /** No such message (never written, or removed by TTL). */
  | 'missing'
  /** Sent, but another deliverer had taken the message over by the time its status was written. */
  | 'lost';

/**
 * At most this many e-mails of one capped template reach one address per window, whatever the
 * requests (per template, so that a flood of one kind, e.g. E2, cannot hold back another the
 * owner asked for, e.g. E4).
 */
export const RECIPIENT_CAP = { limit: 3, windowSeconds: 3600 } as const;

/** Attempts at deciding an account request whose account keeps changing meanwhile. */
const DECISION_ATTEMPTS = 3;

export interface DeliveryResult {
  outcome: Delivery;
  /** The message as this call last saw it (null: there is none). */
  message: OutboxMessage | null;
}

/** A short description of an error for the outbox item (name and message, no stack). */
function describe(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return String(err);
}

/** What may be logged about an error: its name and HTTP status (SES messages can quote addresses). */
function errorFacts(err: unknown): Record<string, unknown> {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number }; code?: string };
  return { error_name: e?.name ?? typeof err, ...(e?.$metadata?.httpStatusCode ? { http_status: e.$metadata.httpStatusCode } : {}), ...(e?.code ? { code: e.code } : {}) };
}

/** The counter of `message`'s recipient and template in the window of `now` (rate-counters.ts). */
function recipientCounter(message: QueuedEmail, now: Date) {
  const w = RECIPIENT_CAP.windowSeconds;
  const start = Math.floor(now.getTime() / 1000 / w) * w;
  return { key: rateCounterKey('recipient', message.template, message.to.toLowerCase(), start), end: start + w };
}

/**
 * Delivers the outbox message `id` once, if it is this caller's to deliver. Throws only when the
 * outbox itself cannot be read or written (the caller retries); SES failures are recorded.
 */
export async function deliver(id: string, now: () => Date = () => new Date()): Promise<DeliveryResult> {
  const c = await claim(id, now());
  if (!c.claimed) {
    const current = c.current;
    const outcome: Delivery = current === null ? 'missing' : FINAL_STATUSES.has(current.status) ? 'done' : 'busy';
    return { outcome, message: current };
  }
  const m = c.message;
  const facts = { outbox_id: m.id, ...('request' in m ? { request: m.request } : { template: m.template }), to: maskAddress(m.to), attempt: m.attempts };

  const fail = async (reason: string, err?: unknown): Promise<DeliveryResult> => {
    const result = await markFailed(m, reason, now());
    if (result === null) {
      logger.warn('e-mail attempt failed; the message was taken over meanwhile', { ...facts, ...errorFacts(err) });
      return { outcome: 'lost', message: m };
    }
    if (result.status === 'dead') {
      logger.error('e-mail dead: no attempt left', { ...facts, ...errorFacts(err) });
      return { outcome: 'dead', message: { ...m, status: 'dead' } };
    }
    logger.warn('e-mail attempt failed; will retry', { ...facts, next_at: result.next_at, ...errorFacts(err) });
    return { outcome: 'retry', message: { ...m, status: 'retry', next_at: result.next_at } };
  };
  const finish = async (status: 'sent' | 'dropped', ...plans: WritePlan[]): Promise<DeliveryResult> => {
    if (!(await markDone(m, status, now(), ...plans))) {
      logger.warn(`e-mail ${status}, but the message was taken over meanwhile`, facts);
      return { outcome: 'lost', message: m };
    }
    return { outcome: status, message: { ...m, status } };
  };

  // A previous deliverer died holding the last attempt: no attempt is left.
  if (m.attempts > MAX_ATTEMPTS) return fail('no attempt left (the last attempt did not finish)');

  if ('request' in m) {
    const request = accountRequestSchema.safeParse({ request: m.request, to: m.to, data: m.data });
    if (!request.success) return fail(`request: ${request.error.message}`);
    for (let i = 0; i < DECISION_ATTEMPTS; i++) {
      try {
        const { changes, emails } = await decide(request.data, now());
        const result = await finish('sent', ...changes, ...emails.map((e) => outboxPlan(e)));
        if (result.outcome === 'sent') logger.info('account request decided', { ...facts, emails: emails.map((e) => e.template) });
        return result;
      } catch (err) {
        if (!(err instanceof StaleRecord)) throw err;
      }
    }
    return fail('the account changed at every attempt to decide the request');
  }

  let queued: QueuedEmail;
  let mail: Rendered;
  try {
    queued = queuedEmailSchema.parse({ template: m.template, to: m.to, data: m.data });
    mail = render(await withToken(queued));
  } catch (err) {
    // A message that cannot be rendered will not render later either, but it is kept (dead
    // after its attempts) rather than dropped, so it can be seen and fixed.
    return fail(`render: ${describe(err)}`, err);
  }

  const counter = CAPPED_TEMPLATES.has(queued.template) ? recipientCounter(queued, now()) : null;
  if (counter && (await countRequest(counter.key, RECIPIENT_CAP.limit, counter.end)) === null) {
    const result = await finish('dropped');
    if (result.outcome === 'dropped') logger.warn('e-mail dropped: the recipient had all the e-mails of this kind allowed this hour', facts);
    return result;
  }

  try {
    await sendEmail(m.to, mail);
  } catch (err) {
    // Not sent: it does not count against the recipient (best effort, as for rate limits).
    if (counter) await uncountRequest(counter.key).catch(() => logger.warn('recipient count not taken back', facts));
    return fail(describe(err), err);
  }

  const result = await finish('sent');
  if (result.outcome === 'sent') logger.info('e-mail sent', facts);
  return result;
}

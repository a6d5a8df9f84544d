/**
 * Delivering one outbox message (shared/db/outbox.ts): claim → render → send → mark sent. A send
 * that fails is recorded as a failed attempt (retried later with backoff, dead after the last
 * attempt). Used by the mailer (stream consumer) and by the outbox job alike.
 *
 * Idempotent per message: only a deliverer that holds the claim sends, so delivering a message
 * that is sent, dead or being sent by someone else does nothing. A duplicate e-mail is possible
 * only when a deliverer dies (or loses its lease) after SES accepted the message and before the
 * status write; delivery is at-least-once (API.md §5.5, docs/decisions.md).
 *
 * Logs never carry bodies, tokens or the full recipient address (masked, as in API.md §6).
 */
import { claim, markFailed, markSent, MAX_ATTEMPTS, type OutboxMessage } from '../db/outbox.js';
import { logger } from '../log.js';
import { sendEmail } from './send.js';
import { maskAddress, parseEmailMessage, render, type Rendered } from './templates.js';

export type Delivery =
  /** Sent now by this call. */
  | 'sent'
  /** This attempt failed; the message is due again later. */
  | 'retry'
  /** This attempt failed and was the last one (or the attempts were used up). */
  | 'dead'
  /** Someone else holds the message, or its retry is not due yet. */
  | 'busy'
  /** Already sent or dead. */
  | 'done'
  /** No such message (never written, or removed by TTL). */
  | 'missing'
  /** Sent, but another deliverer had taken the message over by the time its status was written. */
  | 'lost';

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

/**
 * Delivers the outbox message `id` once, if it is this caller's to deliver. Throws only when the
 * outbox itself cannot be read or written (the caller retries); SES failures are recorded.
 */
export async function deliver(id: string, now: () => Date = () => new Date()): Promise<DeliveryResult> {
  const c = await claim(id, now());
  if (!c.claimed) {
    const current = c.current;
    const outcome: Delivery = current === null ? 'missing' : current.status === 'sent' || current.status === 'dead' ? 'done' : 'busy';
    return { outcome, message: current };
  }
  const m = c.message;
  const facts = { outbox_id: m.id, template: m.template, to: maskAddress(m.to), attempt: m.attempts };

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

  // A previous deliverer died holding the last attempt: no attempt is left.
  if (m.attempts > MAX_ATTEMPTS) return fail('no attempt left (the last attempt did not finish)');

  let mail: Rendered;
  try {
    mail = render(parseEmailMessage({ template: m.template, to: m.to, data: m.data }));
  } catch (err) {
    // A message that cannot be rendered will not render later either, but it is kept (dead
    // after its attempts) rather than dropped, so it can be seen and fixed.
    return fail(`render: ${describe(err)}`, err);
  }

  try {
    await sendEmail(m.to, mail);
  } catch (err) {
    return fail(describe(err), err);
  }

  if (!(await markSent(m, now()))) {
    logger.warn('e-mail sent, but the message was taken over meanwhile', facts);
    return { outcome: 'lost', message: m };
  }
  logger.info('e-mail sent', facts);
  return { outcome: 'sent', message: { ...m, status: 'sent' } };
}

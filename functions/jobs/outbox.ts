/**
 * The outbox job (API.md §5.5 "outbox: continuously", scheduled every minute): delivers every
 * outbox message that is due — failed attempts whose backoff has passed, and new messages the
 * mailer (the stream consumer) has not delivered within a couple of minutes. It reads only the
 * due partition of the outbox (shared/db/outbox.ts), one page at a time, until nothing due is
 * left or its time is nearly up. Concurrent runs are safe: each message is claimed first.
 */
import type { Context, ScheduledEvent } from 'aws-lambda';
import { mapLimit } from '../../shared/concurrency.js';
import { dueMessages, isStaleDue, removeDue } from '../../shared/db/outbox.js';
import { deliver, type Delivery } from '../../shared/email/deliver.js';
import { logger } from '../../shared/log.js';

const PAGE = 25;
const CONCURRENCY = 5;

export interface OutboxRunOptions {
  /** The clock (tests move it forward to make retries due). */
  clock?: () => Date;
  /** Stop starting new pages after this time (epoch ms). */
  deadline?: number;
}

export type OutboxRunSummary = Partial<Record<Delivery | 'failed', number>>;

/** One pass over the due messages. */
export async function runOutbox(opts: OutboxRunOptions = {}): Promise<OutboxRunSummary> {
  const clock = opts.clock ?? (() => new Date());
  const until = clock();
  const summary: OutboxRunSummary = {};
  const count = (k: Delivery | 'failed') => (summary[k] = (summary[k] ?? 0) + 1);
  let after: string | undefined;
  for (;;) {
    if (after !== undefined && opts.deadline !== undefined && Date.now() > opts.deadline) break;
    const page = await dueMessages(until, PAGE, after);
    await mapLimit(page.entries, CONCURRENCY, async (entry) => {
      try {
        const { outcome, message } = await deliver(entry.id, clock);
        count(outcome);
        // An entry whose message is gone, final or due at another time stands for no work.
        if ((outcome === 'missing' || outcome === 'done' || outcome === 'busy') && isStaleDue(entry, message)) await removeDue(entry);
      } catch (err) {
        count('failed');
        logger.error('outbox message not handled; it stays due', { outbox_id: entry.id, error_name: (err as Error)?.name });
      }
    });
    if (!page.more || page.entries.length === 0) break;
    after = page.entries.at(-1)!.sk;
  }
  return summary;
}

export async function handler(_event: ScheduledEvent, context: Context): Promise<OutboxRunSummary> {
  logger.addContext(context);
  // Leave time to finish the page in progress: 25 messages, 5 at a time, each send bounded by
  // the SES client's timeouts (shared/email/send.ts), is under two minutes even when SES hangs.
  const remaining = context.getRemainingTimeInMillis();
  const summary = await runOutbox({ deadline: Date.now() + remaining - Math.min(150_000, remaining / 2) });
  if (Object.keys(summary).length > 0) logger.info('outbox run', { ...summary });
  return summary;
}

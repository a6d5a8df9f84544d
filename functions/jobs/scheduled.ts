/** What the scheduled jobs share. */
import type { ScheduledEvent } from 'aws-lambda';

/**
 * A run's "now": the scheduled time of its event (EventBridge's `time`), so a late or retried
 * invocation does the work of its schedule; the clock when the event has none.
 */
export function scheduledTime(event: Pick<ScheduledEvent, 'time'>): Date {
  const at = new Date(event.time);
  return Number.isNaN(at.getTime()) ? new Date() : at;
}

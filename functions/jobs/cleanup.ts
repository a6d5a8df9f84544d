/**
 * The cleanup job (API.md §5.5 "cleanup: daily", §7.1): deletes the accounts never activated
 * within 30 days of their registration, so their username and e-mail address are free again,
 * and removes the stored files of deleted pictures.
 *
 * It reads only the pending-registration partition (shared/db/users.ts: one entry per account
 * waiting for activation, sorted by registration time, kept in step by the transactions that
 * create, activate and delete accounts), oldest first, up to the entries 30 days old. Each
 * account is read again and deleted with everything that goes with it (`accountDeletionPlans`,
 * API.md §4.21.2), in one transaction conditioned on the revision read: an account activated
 * (or otherwise changed) meanwhile makes the deletion fail, and it is read again — and kept once
 * it is active. No e-mail is sent: E9 (§6) is for deletions by the owner or an administrator.
 *
 * The other work §5.5 lists needs no code here:
 *  - Social sign-in states and refresh-token records expire by DynamoDB TTL (`expires_at`).
 *    DynamoDB deletes expired items within a few days (DynamoDB Local never does), so every
 *    reader treats an item whose `expires_at` has passed as absent: a state is refused by its
 *    `expires_at` (functions/socials/finish.ts), a refresh token by its `exp` (checked before
 *    its record is read) and by its record's `expires_at` (shared/db/sessions.ts).
 *  - E-mailed tokens are not stored (an HMAC over the user id, the purpose, a nonce and the
 *    issue time, shared/auth/email-tokens.ts; the user keeps only the current nonce per purpose),
 *    so there are no token records to remove.
 *
 * Files (runFileCleanup): whoever deletes Pictures with uploaded files queues the files in the
 * same transaction, and an upload whose Picture was never written leaves its guard
 * (shared/db/files.ts). The job reads the items that are due, oldest first, deletes their files
 * from storage and then the item; a failure leaves the item for the next run, which deletes
 * again (a deletion of a missing object succeeds).
 *
 * Concurrent runs are safe: an account's deletion is conditioned on the revision read, so an
 * account is deleted at most once and never after a change; a file deleted twice is deleted.
 */
import type { Context, ScheduledEvent } from 'aws-lambda';
import { mapLimit } from '../../shared/concurrency.js';
import { dueFiles, removeDueFiles } from '../../shared/db/files.js';
import { commit, StaleRecord } from '../../shared/db/records.js';
import { getUser, isPendingRegistration, pendingRegistrations, removePendingEntry, type PendingEntry } from '../../shared/db/users.js';
import { accountDeletionPlans, UNACTIVATED_ACCOUNT_DAYS } from '../../shared/domain/accounts.js';
import { logger } from '../../shared/log.js';
import { deleteStoredFile } from '../../shared/storage/pictures.js';

const PAGE = 25;
const CONCURRENCY = 5;
/** Reads and deletion attempts per account when it keeps changing meanwhile; then the next run tries again. */
const ATTEMPTS = 3;

export interface CleanupRunOptions {
  /** The clock (tests move it forward). */
  clock?: () => Date;
  /** Stop starting new pages after this time (epoch ms). */
  deadline?: number;
}

/**
 * What happened to each entry: `deleted` (the account and its items), `activated` (activated
 * meanwhile: kept), `gone` (deleted meanwhile), `busy` (changed at every attempt: left for the
 * next run), `failed` (an error: left for the next run).
 */
export type CleanupOutcome = 'deleted' | 'activated' | 'gone' | 'busy' | 'failed';
export type CleanupRunSummary = Partial<Record<CleanupOutcome, number>>;

/** Registrations made before this time are deleted at `now`. */
export const registrationCutoff = (now: Date): string => new Date(now.getTime() - UNACTIVATED_ACCOUNT_DAYS * 86_400_000).toISOString();

/** Deletes the account of one pending entry, unless it was activated or deleted meanwhile. */
export async function expireRegistration(entry: PendingEntry): Promise<Exclude<CleanupOutcome, 'failed'>> {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const user = await getUser(entry.id);
    if (!user || !isPendingRegistration(user.record, user.priv)) {
      // The transaction that activated or deleted the account removed its entry; this one was
      // read before that, or is a leftover: make sure it is gone.
      await removePendingEntry(entry);
      return user ? 'activated' : 'gone';
    }
    try {
      await commit(...(await accountDeletionPlans(user)));
      return 'deleted';
    } catch (err) {
      // The account (or its profile or links) changed since it was read: read it again.
      if (!(err instanceof StaleRecord)) throw err;
    }
  }
  return 'busy';
}

/** One pass over the pending registrations older than 30 days. */
export async function runCleanup(opts: CleanupRunOptions = {}): Promise<CleanupRunSummary> {
  const clock = opts.clock ?? (() => new Date());
  const cutoff = registrationCutoff(clock());
  const summary: CleanupRunSummary = {};
  const count = (k: CleanupOutcome) => (summary[k] = (summary[k] ?? 0) + 1);
  let after: string | undefined;
  for (;;) {
    if (after !== undefined && opts.deadline !== undefined && Date.now() > opts.deadline) break;
    const page = await pendingRegistrations(cutoff, PAGE, after);
    await mapLimit(page.entries, CONCURRENCY, async (entry) => {
      try {
        const outcome = await expireRegistration(entry);
        count(outcome);
        if (outcome === 'deleted') logger.info('unactivated account deleted', { user_id: entry.id, registered_at: entry.created_at });
      } catch (err) {
        count('failed');
        logger.error('unactivated account not deleted; the next run tries again', { user_id: entry.id, error_name: (err as Error)?.name });
      }
    });
    if (!page.more || page.entries.length === 0) break;
    after = page.entries.at(-1)!.sk;
  }
  return summary;
}

/** What happened: `removed` files (of items deleted), `failed` items (left for the next run, files and all). */
export type FileCleanupSummary = Partial<Record<'removed' | 'failed', number>>;

/** One pass over the files due for removal (shared/db/files.ts). */
export async function runFileCleanup(opts: CleanupRunOptions = {}): Promise<FileCleanupSummary> {
  const now = (opts.clock ?? (() => new Date()))();
  const summary: FileCleanupSummary = {};
  let after: string | undefined;
  for (;;) {
    if (after !== undefined && opts.deadline !== undefined && Date.now() > opts.deadline) break;
    const page = await dueFiles(now, PAGE, after);
    await mapLimit(page.entries, CONCURRENCY, async (entry) => {
      try {
        // The files first: an item without its files is harmless, a file without its item would stay forever.
        await mapLimit(entry.keys, CONCURRENCY, deleteStoredFile);
        await removeDueFiles(entry);
        summary.removed = (summary.removed ?? 0) + entry.keys.length;
      } catch (err) {
        summary.failed = (summary.failed ?? 0) + 1;
        logger.error('stored files not removed; the next run tries again', { keys: entry.keys.length, first_key: entry.keys[0], error_name: (err as Error)?.name });
      }
    });
    if (!page.more || page.entries.length === 0) break;
    after = page.entries.at(-1)!.sk;
  }
  return summary;
}

export async function handler(_event: ScheduledEvent, context: Context): Promise<{ accounts: CleanupRunSummary; files: FileCleanupSummary }> {
  logger.addContext(context);
  // Leave time to finish the page in progress (25 accounts or files, 5 at a time, a few calls each).
  const remaining = context.getRemainingTimeInMillis();
  const deadline = Date.now() + remaining - Math.min(60_000, remaining / 2);
  const accounts = await runCleanup({ deadline });
  const files = await runFileCleanup({ deadline });
  logger.info('cleanup run', { accounts, files });
  return { accounts, files };
}

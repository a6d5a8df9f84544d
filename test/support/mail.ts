/**
 * E-mails in tests: the SES emulator keeps every message it accepted (`GET /store`), for the
 * whole test run (all files share it), so tests look for their own recipients.
 */
import { inject } from 'vitest';

export interface ReceivedEmail {
  messageId: string;
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  /** When the emulator accepted it (epoch seconds). */
  at: number;
}

interface StoredEmail {
  messageId: string;
  from: string;
  destination: { to: string[] };
  subject: string;
  body: { text?: string; html?: string };
  at: number;
}

const mailUrl = () => inject('mailUrl');

/** Every e-mail the emulator accepted for `to` (oldest first), optionally with this subject. */
export async function emailsTo(to: string, opts: { subject?: string } = {}): Promise<ReceivedEmail[]> {
  const res = await fetch(`${mailUrl()}/store`);
  if (!res.ok) throw new Error(`the SES emulator answered ${res.status}`);
  const { emails } = (await res.json()) as { emails: StoredEmail[] };
  const address = to.toLowerCase();
  return emails
    .filter((e) => e.destination.to.some((t) => t.toLowerCase() === address) && (opts.subject === undefined || e.subject === opts.subject))
    .map((e) => ({ messageId: e.messageId, from: e.from, to: e.destination.to, subject: e.subject, text: e.body.text ?? '', html: e.body.html ?? '', at: e.at }));
}

/**
 * Waits until the emulator holds `count` (default 1) e-mails for `to` (with `subject`, if given)
 * and returns the newest. Fails after `timeoutMs` (default 10 s).
 */
export async function waitForEmail(to: string, opts: { subject?: string; timeoutMs?: number; count?: number } = {}): Promise<ReceivedEmail> {
  const deadline = Date.now() + (opts.timeoutMs ?? 10_000);
  const count = opts.count ?? 1;
  for (;;) {
    const found = await emailsTo(to, opts);
    if (found.length >= count) return found.at(-1)!;
    if (Date.now() > deadline) {
      throw new Error(`no${count > 1 ? ` ${count}` : ''} e-mail to ${to}${opts.subject ? ` with subject "${opts.subject}"` : ''} within ${opts.timeoutMs ?? 10_000} ms (found ${found.length})`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The `uid: …` and `token: …` lines of an e-mail (API.md §6). */
export function emailToken(message: Pick<ReceivedEmail, 'text'>): { uid: string; token: string } {
  const uid = /^uid: ([A-Za-z0-9_-]+)$/m.exec(message.text)?.[1];
  const token = /^token: ([A-Za-z0-9_-]+)$/m.exec(message.text)?.[1];
  if (!uid || !token) throw new Error('the e-mail has no uid/token lines');
  return { uid, token };
}

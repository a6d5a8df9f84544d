/**
 * The SES emulator down for a while (API.md §6, §5.5 outbox): account e-mails requested while it
 * is stopped — registrations, a registration with an address that has an account, a new
 * activation e-mail, a password reset, an e-mail change — are answered at once (the API never
 * waits for SES), their sends fail and are retried by the outbox job with backoff (the test moves
 * the job's clock past it, as time would); once the emulator is started again every e-mail
 * arrives exactly once, counted in the emulator, none twice and none lost, and every outbox
 * message is sent. The emulator is the file's own (it keeps what it accepted across the stop).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { runOutbox } from '../../functions/jobs/outbox.js';
import { startMailEmulator } from '../../infra/local/engines.js';
import { SUBJECTS } from '../../shared/email/templates.js';
import { addressOf, makeAccount, PASSWORD, uniqueUsername } from '../support/accounts.js';
import { send } from '../support/contract.js';
import { eventually } from '../support/eventually.js';
import { useServer } from '../support/server.js';
import { scanAll } from '../support/tables.js';

// Before any function sends: the SES client takes its endpoint when it is first made.
const mail = await startMailEmulator();
process.env.AWS_ENDPOINT_URL_SES = mail.url;
afterAll(() => mail.stop());

const server = useServer();

interface Stored {
  destination: { to: string[] };
  subject: string;
}

/** Every e-mail the emulator accepted, by `recipient subject`. */
async function received(): Promise<Map<string, number>> {
  const { emails } = (await (await fetch(`${mail.url}/store`)).json()) as { emails: Stored[] };
  const out = new Map<string, number>();
  for (const e of emails) for (const to of e.destination.to) out.set(`${to.toLowerCase()} ${e.subject}`, (out.get(`${to.toLowerCase()} ${e.subject}`) ?? 0) + 1);
  return out;
}

/** The outbox messages (e-mails and account requests) by status. */
async function outbox(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const i of (await scanAll(process.env.TABLE_NAME!)).values()) {
    if (String(i.pk).startsWith('OUTBOX#') && i.sk === 'M') out[String(i.status)] = (out[String(i.status)] ?? 0) + 1;
  }
  return out;
}

const register = (email: string, username = uniqueUsername('mail')) =>
  send(server, 'POST', '/api/users/', { body: { email, username, password: PASSWORD, re_password: PASSWORD } });

describe('SES down for a while', () => {
  it('e-mails requested meanwhile are answered at once, retried, and each arrives exactly once after it returns', { timeout: 300_000 }, async () => {
    const started = Date.now();
    const [a1, a2, a3] = [addressOf(uniqueUsername('mail')), addressOf(uniqueUsername('mail')), addressOf(uniqueUsername('mail'))];
    const d = await makeAccount();
    const newAddress = addressOf(uniqueUsername('new'));
    const unknown = addressOf(uniqueUsername('nobody'));
    const expected = new Map<string, number>([
      [`${a1} ${SUBJECTS.E1}`, 1],
      [`${a1} ${SUBJECTS.E2}`, 1],
      [`${a2} ${SUBJECTS.E1}`, 2],
      [`${a3} ${SUBJECTS.E1}`, 1],
      [`${d.email} ${SUBJECTS.E4}`, 1],
      [`${d.email} ${SUBJECTS.E7}`, 1],
      [`${newAddress} ${SUBJECTS.E6}`, 1],
    ]);

    // Up: the first registration's e-mail arrives.
    expect((await register(a1)).status).toBe(201);
    await eventually(async () => expect((await received()).get(`${a1} ${SUBJECTS.E1}`)).toBe(1), 30_000);

    await mail.stop();
    const down = Date.now();
    const answers = [
      await register(a2),
      await register(a3),
      await register(a1), // an address with an account: E2, nothing created
      await send(server, 'POST', '/api/users/resend_activation/', { body: { email: a2 } }),
      await send(server, 'POST', '/api/users/reset_password/', { body: { email: d.email } }),
      await send(server, 'POST', '/api/users/reset_password/', { body: { email: unknown } }),
      await send(server, 'POST', '/api/users/set_email/', { body: { current_password: PASSWORD, new_email: newAddress, re_new_email: newAddress }, headers: d.auth }),
    ];
    expect(answers.map((r) => r.status)).toEqual([201, 201, 201, 204, 204, 204, 204]);
    // The mailer tried each e-mail once and failed; every one is due again after its backoff.
    const failed = await eventually(async () => {
      const o = await outbox();
      expect(o.pending ?? 0).toBe(0);
      expect(o.sending ?? 0).toBe(0);
      expect(o.retry).toBe(7);
      return o;
    }, 60_000);
    // The outbox job while it is still down, a few minutes later: failed again, still due.
    const later = (minutes: number) => () => new Date(Date.now() + minutes * 60_000);
    expect(await runOutbox({ clock: later(5) })).toEqual({ retry: 7 });

    await mail.start();
    const back = Date.now();
    // An hour later (the backoff of a second failure is two minutes): each sent once.
    expect(await runOutbox({ clock: later(60) })).toEqual({ sent: 7 });
    expect(await runOutbox({ clock: later(120) })).toEqual({});
    const o = await outbox();
    expect(o).toEqual({ sent: o.sent });

    const got = await received();
    const mine = new Map([...got].filter(([k]) => [a1, a2, a3, d.email, newAddress, unknown].some((a) => k.startsWith(`${a} `))));
    expect(mine).toEqual(expected);
    console.log(
      `mail outage: ${answers.length} requests answered while SES was down (statuses ${answers.map((r) => r.status).join(', ')}); outbox before the restart ${JSON.stringify(failed)}; ` +
        `${[...mine.values()].reduce((a, b) => a + b, 0)} e-mails received, each once; down ${((back - down) / 1000).toFixed(1)} s, test ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  });
});

/**
 * The outbox on the real engines (API.md §5.5, §6): a message committed in the same transaction
 * as a state change is delivered by the local stream poller (the mailer) to the SES emulator,
 * exactly once, and marked sent; a message whose first send fails is retried by the outbox job
 * once its backoff has passed, and then delivered.
 */
import { randomBytes } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { SendEmailCommand, SESClient } from '@aws-sdk/client-ses';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import { runOutbox } from '../../functions/jobs/outbox.js';
import { tableName } from '../../shared/db/client.js';
import { db } from '../../shared/db/sdk.js';
import { dueMessages, getOutboxMessage, outboxPlan, type OutboxMessage } from '../../shared/db/outbox.js';
import { deliver } from '../../shared/email/deliver.js';
import { commit, itemPlan, put } from '../../shared/db/records.js';
import { newId } from '../../shared/ids.js';
import { emailToken as makeToken, newGrant } from '../../shared/auth/email-tokens.js';
import { emailsTo, emailToken, waitForEmail } from '../support/mail.js';
import { useBackground } from '../support/server.js';

const background = useBackground();

const address = () => `outbox-${randomBytes(6).toString('hex')}@example.org`;

async function waitForStatus(id: string, status: OutboxMessage['status'], timeoutMs = 10_000): Promise<OutboxMessage> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const m = await getOutboxMessage(id);
    if (m?.status === status) return m;
    if (Date.now() > deadline) throw new Error(`message ${id} is ${m?.status ?? 'missing'}, not ${status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('outbox delivery', () => {
  it('a state change and its e-mail commit together; the stream poller delivers it once and marks it sent', async () => {
    const to = address();
    const id = newId();
    const stateKey = { pk: `OUTBOXTEST#${newId()}`, sk: 'R' };
    await commit(itemPlan(put({ ...stateKey, state: 'active' })), outboxPlan({ template: 'E3', to, data: { username: 'jane_doe' } }, { id }));

    const mail = await waitForEmail(to, { subject: 'Your account is active' });
    expect(mail.from).toBe('no-reply@catalogue.test');
    expect(mail.text).toContain('jane_doe');
    expect(mail.html).toContain('jane_doe');
    const sent = await waitForStatus(id, 'sent');
    expect(sent.attempts).toBe(1);
    expect(sent.sent_at).toBeDefined();
    const state = await db().send(new GetCommand({ TableName: tableName(), Key: stateKey, ConsistentRead: true }));
    expect(state.Item?.state).toBe('active');

    // Delivering it again does nothing (the engine reports who has it: a sent message).
    const again = await deliver(id);
    expect(again.outcome).toBe('done');
    expect(again.message).toMatchObject({ id, status: 'sent', to });
    // Nothing is due for it any more, and no later run sends it again.
    const due = await dueMessages(new Date(Date.now() + 86_400_000), 100);
    expect(due.entries.filter((e) => e.id === id)).toEqual([]);
    await background.scheduler!.run('outbox');
    await runOutbox({ clock: () => new Date(Date.now() + 86_400_000) });
    await new Promise((r) => setTimeout(r, 500));
    expect(await emailsTo(to)).toHaveLength(1);
  });

  it('an e-mail with a token: the outbox holds its grant only; the e-mail carries the token the grant stands for', async () => {
    const to = address();
    const uid = newId();
    const grant = newGrant();
    await commit(outboxPlan({ template: 'E1', to, data: { username: 'jane_doe', uid, grant } }, { id: `m-${uid}` }));
    const mail = await waitForEmail(to, { subject: 'Activate your account' });
    const token = await makeToken(uid, 'activation', grant);
    expect(emailToken(mail)).toEqual({ uid, token });
    expect(mail.text).toContain(`https://app.example.org/activate/${uid}/${token}`);
    // At rest: nothing in the stored message is the token, or lets a reader without the key make it.
    const stored = JSON.stringify(await getOutboxMessage(`m-${uid}`));
    expect(stored).not.toContain(token);
    expect(stored).not.toContain(token.slice(-22));
  });

  it('a failed send is retried by the outbox job after its backoff, then delivered once', async () => {
    const ses = mockClient(SESClient);
    ses.on(SendEmailCommand).rejects(Object.assign(new Error('SES is down'), { name: 'ServiceUnavailable', $metadata: { httpStatusCode: 503 } }));
    const to = address();
    const id = newId();
    let failed: OutboxMessage;
    try {
      await commit(outboxPlan({ template: 'E3', to, data: { username: 'jane_doe' } }, { id }));
      failed = await waitForStatus(id, 'retry');
    } finally {
      ses.restore();
    }
    expect(failed.attempts).toBe(1);
    expect(failed.last_error).toMatch(/ServiceUnavailable/);
    const wait = Date.parse(failed.next_at!) - Date.now();
    expect(wait).toBeGreaterThan(30_000); // one minute after the failure
    expect(wait).toBeLessThanOrEqual(60_000);

    // Not due yet: a run now leaves it alone.
    await background.scheduler!.run('outbox');
    expect((await getOutboxMessage(id))!.status).toBe('retry');
    expect(await emailsTo(to)).toHaveLength(0);

    // Once due (the job's clock moved past next_at), the job delivers it.
    const summary = await runOutbox({ clock: () => new Date(Date.parse(failed.next_at!) + 1_000) });
    expect(summary.sent).toBeGreaterThanOrEqual(1);
    const sent = await waitForStatus(id, 'sent');
    expect(sent.attempts).toBe(2);
    expect(await emailsTo(to)).toHaveLength(1);
    const due = await dueMessages(new Date(Date.now() + 86_400_000), 100);
    expect(due.entries.filter((e) => e.id === id)).toEqual([]);
  });
});

/**
 * Delivery from the outbox with the AWS clients mocked (API.md §5.5, §6): an SES outage is
 * retried with exponential backoff and ends dead after the last attempt, with the due entry
 * moved in step; a message that is sent, dead or held by someone else is never sent again;
 * the mailer reports only the failing record of a batch; the outbox job cleans stale due
 * entries. The table is a small fake that applies the outbox's writes as DynamoDB would.
 */
import {
  ConditionalCheckFailedException,
  ProvisionedThroughputExceededException,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import { DeleteCommand, DynamoDBDocumentClient, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { SendEmailCommand, SESClient } from '@aws-sdk/client-ses';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { runOutbox } from '../../functions/jobs/outbox.js';
import { handler as mailer } from '../../functions/streams/mailer.js';
import { backoffMinutes, MAX_ATTEMPTS, MAX_BACKOFF_MINUTES, outboxPlan, type OutboxMessage } from '../../shared/db/outbox.js';
import { deliver, RECIPIENT_CAP } from '../../shared/email/deliver.js';
import { lambdaContext } from '../../infra/local/functions.js';

const ddb = mockClient(DynamoDBDocumentClient);
const ses = mockClient(SESClient);

type Row = Record<string, any>;
/** The fake table: items by `pk|sk`. */
let table: Map<string, Row>;
const keyOf = (k: { pk: string; sk: string }) => `${k.pk}|${k.sk}`;
const message = (id: string) => table.get(`OUTBOX#${id}|M`) as (OutboxMessage & Row) | undefined;
const dueEntries = () => [...table.values()].filter((r) => r.pk === 'OUTBOX#DUE').map((r) => r.sk as string).sort();

function ccf(item: Row | undefined): ConditionalCheckFailedException {
  return new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {}, ...(item ? { Item: marshall(item, { removeUndefinedValues: true }) } : {}) });
}

/** The outbox's claim (UpdateItem): condition and effect as written in shared/db/outbox.ts. */
function claimUpdate(input: any): { Attributes: Row } {
  const v = input.ExpressionAttributeValues;
  const item = table.get(keyOf(input.Key));
  const claimable =
    item &&
    (item.status === 'pending' || (item.status === 'retry' && item.next_at <= v[':now']) || (item.status === 'sending' && item.lease_until < v[':now']));
  if (!claimable) throw ccf(item);
  Object.assign(item, { status: 'sending', lease: v[':lease'], lease_until: v[':until'], attempts: (item.attempts ?? 0) + 1 });
  return { Attributes: structuredClone(item) };
}

/** The outbox's status writes (TransactWriteItems of Update + Delete/Put of due entries). */
function transact(input: any): object {
  const items: any[] = input.TransactItems;
  const reasons = items.map((t) => {
    if (!t.Update) return { Code: 'None' };
    const v = t.Update.ExpressionAttributeValues;
    const item = table.get(keyOf(t.Update.Key));
    return item && item.status === 'sending' && item.lease === v[':lease'] ? { Code: 'None' } : { Code: 'ConditionalCheckFailed' };
  });
  if (reasons.some((r) => r.Code !== 'None')) {
    throw new TransactionCanceledException({ message: 'Transaction cancelled', $metadata: {}, CancellationReasons: reasons });
  }
  for (const t of items) {
    if (t.Put) table.set(keyOf(t.Put.Item), structuredClone(t.Put.Item));
    if (t.Delete) table.delete(keyOf(t.Delete.Key));
    if (t.Update) {
      const item = table.get(keyOf(t.Update.Key))!;
      const v = t.Update.ExpressionAttributeValues;
      const expr: string = t.Update.UpdateExpression;
      const status = v[':done'] ?? v[':retry'] ?? v[':dead'];
      item.status = status;
      if (v[':now'] && (status === 'sent' || status === 'dropped')) item.sent_at = v[':now'];
      if (v[':next']) item.next_at = v[':next'];
      if (v[':error']) item.last_error = v[':error'];
      const removed = /REMOVE (.*)$/.exec(expr)?.[1]?.split(',').map((s) => s.trim().replace('#lease', 'lease')) ?? [];
      for (const attr of removed) delete item[attr];
    }
  }
  return {};
}

/** Writes what outboxPlan would commit, straight into the fake table. */
function queue(msg: Parameters<typeof outboxPlan>[0], id: string, now: Date): void {
  for (const t of outboxPlan(msg, { id, now }).items as { Put: { Item: Row } }[]) table.set(keyOf(t.Put.Item as never), structuredClone(t.Put.Item));
}

const E3 = { template: 'E3' as const, to: 'jane@example.org', data: { username: 'jane' } };
const E2 = { template: 'E2' as const, to: 'jane@example.org', data: {} };

/** The recipient cap's counters (rate-counters.ts): count under the limit, or take one back. */
function counterUpdate(input: any): object {
  const v = input.ExpressionAttributeValues;
  const item = table.get(keyOf(input.Key)) ?? { ...input.Key };
  if (v[':minus'] !== undefined) {
    if (item.n === undefined) throw ccf(undefined);
    item.n -= 1;
  } else {
    if (item.n !== undefined && item.n >= v[':limit']) throw ccf(item);
    item.n = (item.n ?? 0) + 1;
  }
  table.set(keyOf(input.Key), item);
  return { Attributes: { n: item.n } };
}
const recipientCount = () => [...table.values()].filter((r) => String(r.pk).startsWith('RATE#recipient#E2#')).reduce((n, r) => n + r.n, 0);
const T0 = new Date('2026-01-01T00:00:00.000Z');
const minutes = (a: string, b: string) => (Date.parse(b) - Date.parse(a)) / 60_000;

beforeEach(() => {
  table = new Map();
  ddb.reset();
  ses.reset();
  ddb.on(UpdateCommand).callsFake(async (input: any) => (String(input.Key.pk).startsWith('RATE#') ? counterUpdate(input) : claimUpdate(input)));
  ddb.on(TransactWriteCommand).callsFake(async (input: any) => transact(input));
  ddb.on(DeleteCommand).callsFake(async (input: any) => {
    table.delete(keyOf(input.Key));
    return {};
  });
  ddb.on(QueryCommand).callsFake(async (input: any) => {
    const bound: string = input.ExpressionAttributeValues[':bound'];
    const items = [...table.values()].filter((r) => r.pk === 'OUTBOX#DUE' && r.sk <= bound).sort((a, b) => (a.sk < b.sk ? -1 : 1));
    return { Items: items.slice(0, input.Limit) };
  });
  ses.on(SendEmailCommand).resolves({ MessageId: 'ses-1' });
});

describe('backoff schedule', () => {
  it('1, 2, 4, … minutes, capped; 12 attempts spread over about 24 hours', () => {
    const waits = Array.from({ length: MAX_ATTEMPTS - 1 }, (_, i) => backoffMinutes(i + 1));
    expect(waits).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256, MAX_BACKOFF_MINUTES, MAX_BACKOFF_MINUTES]);
    const total = waits.reduce((a, b) => a + b, 0) / 60;
    expect(total).toBeGreaterThan(23);
    expect(total).toBeLessThan(26);
  });
});

describe('deliver', () => {
  it('sends once, marks the message sent and removes its due entry; a second delivery does nothing', async () => {
    queue(E3, 'm1', T0);
    expect(dueEntries()).toEqual(['2026-01-01T00:02:00.000Z#m1']);
    const first = await deliver('m1', () => T0);
    expect(first.outcome).toBe('sent');
    expect(message('m1')).toMatchObject({ status: 'sent', attempts: 1, sent_at: T0.toISOString() });
    expect(message('m1')!.lease).toBeUndefined();
    expect(message('m1')!.next_at).toBeUndefined();
    expect(dueEntries()).toEqual([]);
    const second = await deliver('m1', () => T0);
    expect(second.outcome).toBe('done');
    expect(ses.commandCalls(SendEmailCommand)).toHaveLength(1);
  });

  it('the SES request: sender from MAIL_FROM, the recipient, subject, text and HTML in UTF-8', async () => {
    queue(E3, 'm1', T0);
    await deliver('m1', () => T0);
    const input = ses.commandCalls(SendEmailCommand)[0]!.args[0].input;
    expect(input.Source).toBe('no-reply@catalogue.test');
    expect(input.Destination).toEqual({ ToAddresses: ['jane@example.org'] });
    expect(input.Message!.Subject).toEqual({ Data: 'Your account is active', Charset: 'UTF-8' });
    expect(input.Message!.Body!.Text!.Charset).toBe('UTF-8');
    expect(input.Message!.Body!.Html!.Charset).toBe('UTF-8');
    expect(input.Message!.Body!.Text!.Data).toContain('jane');
  });

  it('an SES outage: retried with growing backoff (the due entry moves along), dead after the last attempt', async () => {
    ses.on(SendEmailCommand).rejects(Object.assign(new Error('Service unavailable'), { name: 'ServiceUnavailable', $metadata: { httpStatusCode: 503 } }));
    queue(E3, 'm1', T0);
    let now = T0;
    const waits: number[] = [];
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const result = await deliver('m1', () => now);
      const m = message('m1')!;
      expect(m.attempts).toBe(attempt);
      if (attempt < MAX_ATTEMPTS) {
        expect(result.outcome).toBe('retry');
        expect(m.status).toBe('retry');
        expect(m.last_error).toMatch(/ServiceUnavailable/);
        expect(dueEntries()).toEqual([`${m.next_at}#m1`]);
        waits.push(minutes(now.toISOString(), m.next_at!));
        // Not due before its time: a claim a second early fails.
        expect((await deliver('m1', () => new Date(Date.parse(m.next_at!) - 1000))).outcome).toBe('busy');
        now = new Date(m.next_at!);
      } else {
        expect(result.outcome).toBe('dead');
        expect(m.status).toBe('dead');
        expect(m.next_at).toBeUndefined();
        expect(dueEntries()).toEqual([]);
      }
    }
    expect(waits).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256, 480, 480]);
    for (let i = 1; i < waits.length; i++) expect(waits[i]!).toBeGreaterThanOrEqual(waits[i - 1]!);
    expect(ses.commandCalls(SendEmailCommand)).toHaveLength(MAX_ATTEMPTS);
    // Dead is final: nothing more is sent.
    expect((await deliver('m1', () => new Date(now.getTime() + 86_400_000))).outcome).toBe('done');
    expect(ses.commandCalls(SendEmailCommand)).toHaveLength(MAX_ATTEMPTS);
  });

  it('a retry after the outage is sent', async () => {
    ses.on(SendEmailCommand).rejectsOnce(Object.assign(new Error('Throttling'), { name: 'Throttling' })).resolves({ MessageId: 'ses-2' });
    queue(E3, 'm1', T0);
    expect((await deliver('m1', () => T0)).outcome).toBe('retry');
    const next = new Date(message('m1')!.next_at!);
    expect((await deliver('m1', () => next)).outcome).toBe('sent');
    expect(message('m1')).toMatchObject({ status: 'sent', attempts: 2 });
    expect(dueEntries()).toEqual([]);
  });

  it('a message held by another deliverer is not sent; once its lease has run out it is taken over', async () => {
    queue(E3, 'm1', T0);
    Object.assign(message('m1')!, { status: 'sending', lease: 'other', lease_until: '2026-01-01T00:01:00.000Z', attempts: 1 });
    expect((await deliver('m1', () => T0)).outcome).toBe('busy');
    expect(ses.commandCalls(SendEmailCommand)).toHaveLength(0);
    expect((await deliver('m1', () => new Date('2026-01-01T00:01:00.001Z'))).outcome).toBe('sent');
    expect(message('m1')).toMatchObject({ status: 'sent', attempts: 2 });
  });

  it('a deliverer that lost its lease while sending does not overwrite the new holder', async () => {
    queue(E3, 'm1', T0);
    ses.on(SendEmailCommand).callsFake(async () => {
      // Someone else takes the message over meanwhile.
      Object.assign(message('m1')!, { lease: 'other' });
      return { MessageId: 'ses-1' };
    });
    expect((await deliver('m1', () => T0)).outcome).toBe('lost');
    expect(message('m1')).toMatchObject({ status: 'sending', lease: 'other' });
  });

  it('a message whose last attempt never finished is dead without another send', async () => {
    queue(E3, 'm1', T0);
    Object.assign(message('m1')!, { status: 'sending', lease: 'gone', lease_until: '2026-01-01T00:01:00.000Z', attempts: MAX_ATTEMPTS });
    expect((await deliver('m1', () => new Date('2026-01-02T00:00:00.000Z'))).outcome).toBe('dead');
    expect(ses.commandCalls(SendEmailCommand)).toHaveLength(0);
    expect(dueEntries()).toEqual([]);
  });

  it('an unknown message: nothing is sent', async () => {
    expect((await deliver('nope', () => T0)).outcome).toBe('missing');
    expect(ses.commandCalls(SendEmailCommand)).toHaveLength(0);
  });

  it('the outbox being unavailable is thrown (the caller retries), not recorded', async () => {
    ddb.on(UpdateCommand).rejects(new ProvisionedThroughputExceededException({ message: 'slow down', $metadata: {} }));
    queue(E3, 'm1', T0);
    await expect(deliver('m1', () => T0)).rejects.toThrow(/slow down/);
    expect(ses.commandCalls(SendEmailCommand)).toHaveLength(0);
  });
});

const keys = (pk: string, sk: string) => ({ pk: { S: pk }, sk: { S: sk } });
const record = (seq: string, eventName: 'INSERT' | 'MODIFY' | 'REMOVE', pk: string, sk: string): DynamoDBRecord => ({
  eventName,
  eventSource: 'aws:dynamodb',
  dynamodb: { Keys: keys(pk, sk), SequenceNumber: seq },
});

describe('the recipient cap (decision 64)', () => {
  it(`over ${RECIPIENT_CAP.limit} capped e-mails of one kind an hour, the message is dropped without a send`, async () => {
    for (let i = 0; i < RECIPIENT_CAP.limit + 2; i++) queue(E2, `c${i}`, T0);
    const outcomes = [];
    for (let i = 0; i < RECIPIENT_CAP.limit + 2; i++) outcomes.push((await deliver(`c${i}`, () => T0)).outcome);
    expect(outcomes).toEqual([...Array(RECIPIENT_CAP.limit).fill('sent'), 'dropped', 'dropped']);
    expect(ses.commandCalls(SendEmailCommand)).toHaveLength(RECIPIENT_CAP.limit);
    expect(message(`c${RECIPIENT_CAP.limit}`)).toMatchObject({ status: 'dropped' });
    expect(dueEntries()).toEqual([]);
    // Notices of changes that happened (E3) are never held back.
    queue(E3, 'notice', T0);
    expect((await deliver('notice', () => T0)).outcome).toBe('sent');
  });

  it('a send that fails takes its count back', async () => {
    ses.on(SendEmailCommand).rejects(new Error('SES is down'));
    queue(E2, 'f1', T0);
    expect((await deliver('f1', () => T0)).outcome).toBe('retry');
    expect(recipientCount()).toBe(0);
  });
});

describe('mailer (stream consumer)', () => {
  it('delivers each new outbox message; ignores other records; reports only the record that failed', async () => {
    queue(E3, 'ok', T0);
    queue({ ...E3, to: 'bob@example.org' }, 'bad', T0);
    ddb.on(UpdateCommand).callsFake(async (input: any) => {
      if (input.Key.pk === 'OUTBOX#bad') throw new ProvisionedThroughputExceededException({ message: 'slow down', $metadata: {} });
      return claimUpdate(input);
    });
    const out = await mailer(
      {
        Records: [
          record('1', 'INSERT', 'GENRE#x', 'R'),
          record('2', 'INSERT', 'OUTBOX#bad', 'M'),
          record('3', 'INSERT', 'OUTBOX#DUE', '2026-01-01T00:02:00.000Z#ok'),
          record('4', 'MODIFY', 'OUTBOX#ok', 'M'),
          record('5', 'INSERT', 'OUTBOX#ok', 'M'),
        ],
      },
      lambdaContext('stream.mailer'),
    );
    expect(out).toEqual({ batchItemFailures: [{ itemIdentifier: '2' }] });
    expect(message('ok')!.status).toBe('sent');
    expect(message('bad')!.status).toBe('pending');
    expect(ses.commandCalls(SendEmailCommand)).toHaveLength(1);
  });

  it('an SES failure is not a record failure (the message is retried by the outbox job)', async () => {
    ses.on(SendEmailCommand).rejects(Object.assign(new Error('down'), { name: 'ServiceUnavailable' }));
    queue(E3, 'm1', T0);
    const out = await mailer({ Records: [record('9', 'INSERT', 'OUTBOX#m1', 'M')] });
    expect(out).toEqual({ batchItemFailures: [] });
    expect(message('m1')!.status).toBe('retry');
  });

  it('a record delivered twice (a retried batch) sends once', async () => {
    queue(E3, 'm1', T0);
    const event = { Records: [record('9', 'INSERT', 'OUTBOX#m1', 'M')] };
    await mailer(event);
    await mailer(event);
    expect(ses.commandCalls(SendEmailCommand)).toHaveLength(1);
  });
});

describe('outbox job', () => {
  it('delivers due messages only, and drops due entries that stand for no work', async () => {
    const now = new Date('2026-01-01T01:00:00.000Z');
    queue(E3, 'due', T0); // pending, due at 00:02 (the mailer never got to it)
    queue(E3, 'later', new Date('2026-01-01T00:59:30.000Z')); // due at 01:01:30
    queue(E3, 'sent', T0);
    Object.assign(message('sent')!, { status: 'sent' }); // its entry was left behind
    table.set('OUTBOX#DUE|2026-01-01T00:03:00.000Z#gone', { pk: 'OUTBOX#DUE', sk: '2026-01-01T00:03:00.000Z#gone', id: 'gone' });

    const summary = await runOutbox({ clock: () => now });
    expect(summary).toEqual({ sent: 1, done: 1, missing: 1 });
    expect(message('due')!.status).toBe('sent');
    expect(message('later')!.status).toBe('pending');
    expect(dueEntries()).toEqual([`${message('later')!.next_at}#later`]);
    expect(ses.commandCalls(SendEmailCommand)).toHaveLength(1);
  });

  it('keeps the due entry of a message someone else is sending', async () => {
    queue(E3, 'm1', T0);
    Object.assign(message('m1')!, { status: 'sending', lease: 'other', lease_until: '2026-01-01T00:10:00.000Z', attempts: 1 });
    expect(await runOutbox({ clock: () => new Date('2026-01-01T00:05:00.000Z') })).toEqual({ busy: 1 });
    expect(dueEntries()).toEqual(['2026-01-01T00:02:00.000Z#m1']);
  });
});

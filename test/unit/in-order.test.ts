/**
 * The stream consumers' record loop (functions/streams/in-order.ts): records in order, the first
 * failed one reported with those after it; a record that fails because the table is unavailable
 * is tried again within the invocation while its time lasts, and only reported when it runs out
 * (a given-up record would leave what the consumer derives wrong: docs/decisions.md X1); a
 * record whose write keeps losing to other writers is tried a few times and then reported, never
 * waited on for ever (Z2).
 */
import type { Context, DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { CONTENTION_TRIES, inOrder, OUTAGE_MARGIN_MS } from '../../functions/streams/in-order.js';
import { lambdaContext } from '../../infra/local/functions.js';
import { Contended } from '../../shared/db/errors.js';

const record = (seq: string): DynamoDBRecord => ({ eventName: 'MODIFY', dynamodb: { SequenceNumber: seq, Keys: { pk: { S: `GENRE#${seq}` }, sk: { S: 'R' } } } });
const outage = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8000'), { code: 'ECONNREFUSED' });
const throttled = () => Object.assign(new Error('Rate of requests exceeds the allowed throughput.'), { name: 'ThrottlingException' });
const contended = () => new Contended('The anime');

/** A handler whose apply fails for record `seq` as `failures` says (one entry per try), and the keys it applied. */
function consumer(plan: Record<string, (() => Error)[]>) {
  const applied: string[] = [];
  const tries: Record<string, number> = {};
  const handler = inOrder('test change', async (keys) => {
    const seq = String(keys.pk).split('#')[1]!;
    tries[seq] = (tries[seq] ?? 0) + 1;
    const fail = plan[seq]?.shift();
    if (fail) throw fail();
    applied.push(seq);
  });
  return { handler, applied, tries };
}

describe('stream consumers: records in order', () => {
  it('a table outage is waited out within the invocation: every record applied, in order, none reported', async () => {
    const c = consumer({ '2': [outage, outage, throttled] });
    const out = await c.handler({ Records: [record('1'), record('2'), record('3')] }, lambdaContext('stream.test', 120_000));
    expect(out).toEqual({ batchItemFailures: [] });
    expect(c.applied).toEqual(['1', '2', '3']);
    expect(c.tries['2']).toBe(4);
  });

  it('an outage outlasting the invocation: the record is reported (the mapping retries from it) and nothing after it applied', async () => {
    const c = consumer({ '2': Array.from({ length: 100 }, () => outage) });
    const context: Context = { ...lambdaContext('stream.test'), getRemainingTimeInMillis: () => OUTAGE_MARGIN_MS + 500 };
    const out = await c.handler({ Records: [record('1'), record('2'), record('3')] }, context);
    expect(out).toEqual({ batchItemFailures: [{ itemIdentifier: '2' }] });
    expect(c.applied).toEqual(['1']);
    expect(c.tries['2']).toBeLessThanOrEqual(3);
  });

  it('contention is tried again a few times within the invocation, and applied when a try wins', async () => {
    const c = consumer({ '1': Array.from({ length: CONTENTION_TRIES - 1 }, () => contended) });
    const out = await c.handler({ Records: [record('1'), record('2')] }, lambdaContext('stream.test', 120_000));
    expect(out).toEqual({ batchItemFailures: [] });
    expect(c.applied).toEqual(['1', '2']);
    expect(c.tries['1']).toBe(CONTENTION_TRIES);
  });

  it('contention that keeps recurring is reported after a few tries, not waited out like an outage (the livelock of issue 18)', async () => {
    const c = consumer({ '2': Array.from({ length: 1000 }, () => contended) });
    const started = Date.now();
    const out = await c.handler({ Records: [record('1'), record('2'), record('3')] }, lambdaContext('stream.test', 900_000));
    expect(out).toEqual({ batchItemFailures: [{ itemIdentifier: '2' }] });
    expect(c.applied).toEqual(['1']);
    expect(c.tries['2']).toBe(CONTENTION_TRIES);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('any other error is reported at once', async () => {
    const c = consumer({ '1': [() => new TypeError('a bug')] });
    const out = await c.handler({ Records: [record('1'), record('2')] }, lambdaContext('stream.test', 120_000));
    expect(out).toEqual({ batchItemFailures: [{ itemIdentifier: '1' }] });
    expect(c.tries['1']).toBe(1);
    expect(c.applied).toEqual([]);
  });
});

/**
 * The local runtime's background parts without engines: the scheduler (periods, no overlapping
 * runs, a clean stop), the stream records it hands to consumers (Lambda's shape), and the
 * consumer filters (the same declaration the CDK app turns into filter criteria).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { JOBS } from '../../functions/jobs/registry.js';
import { matchesFilter, STREAM_CONSUMERS } from '../../functions/streams/registry.js';
import { localPeriodSeconds, startScheduler, type Scheduler } from '../../infra/local/scheduler.js';
import { lambdaRecord } from '../../infra/local/streams.js';
import { filterPattern } from '../../infra/aws/streams.js';
import { jobProbe } from '../support/job-probe.js';

const probeJob = { name: 'probe', entry: 'test/support/job-probe.ts', schedule: 'rate(1 minute)', keys: {} };

describe('scheduler', () => {
  let scheduler: Scheduler | undefined;
  afterEach(async () => {
    await scheduler?.stop();
    scheduler = undefined;
    Object.assign(jobProbe, { runs: [], running: 0, maxRunning: 0, durationMs: 0 });
    delete process.env.LOCAL_JOB_PERIOD_SECONDS;
  });

  it('local periods: the job’s own, else its rate, else LOCAL_JOB_PERIOD_SECONDS for all; cron needs one', () => {
    expect(localPeriodSeconds(JOBS.find((j) => j.name === 'outbox')!)).toBe(5);
    expect(localPeriodSeconds({ name: 'a', entry: 'x', schedule: 'rate(10 minutes)', keys: {} })).toBe(600);
    expect(localPeriodSeconds({ name: 'a', entry: 'x', schedule: 'rate(1 hour)', keys: {} })).toBe(3600);
    expect(localPeriodSeconds({ name: 'a', entry: 'x', schedule: 'rate(1 hour)', keys: {} }, 2)).toBe(2);
    expect(() => localPeriodSeconds({ name: 'a', entry: 'x', schedule: 'cron(0 3 * * ? *)', keys: {} })).toThrow(/localPeriodSeconds/);
    process.env.LOCAL_JOB_PERIOD_SECONDS = 'soon';
    expect(() => startScheduler({ jobs: [probeJob] })).toThrow(/LOCAL_JOB_PERIOD_SECONDS/);
  });

  it('runs each job on its period with a schedule event, never two runs of one job at once, and stops cleanly', async () => {
    jobProbe.durationMs = 120;
    scheduler = startScheduler({ jobs: [probeJob], periodSeconds: 0.03 });
    await new Promise((r) => setTimeout(r, 500));
    await scheduler.stop();
    const runs = jobProbe.runs.length;
    expect(runs).toBeGreaterThanOrEqual(2);
    expect(jobProbe.maxRunning).toBe(1);
    expect(jobProbe.running).toBe(0); // stop() waited for the run in progress
    expect(jobProbe.runs[0]).toMatchObject({ 'detail-type': 'Scheduled Event', source: 'aws.events', detail: {} });
    await new Promise((r) => setTimeout(r, 200));
    expect(jobProbe.runs.length).toBe(runs); // no run after stop()
  });

  it('run(name) runs a job now and returns its result', async () => {
    scheduler = startScheduler({ jobs: [probeJob], periodSeconds: 3600 });
    expect(await scheduler.run('probe')).toBe(1);
    await expect(scheduler.run('nope')).rejects.toThrow(/no job/);
  });
});

describe('stream records and filters', () => {
  const sdkRecord = {
    eventID: 'e1',
    eventName: 'INSERT' as const,
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: 'ddblocal',
    dynamodb: {
      ApproximateCreationDateTime: new Date('2026-01-01T00:00:05.000Z'),
      Keys: { pk: { S: 'OUTBOX#abc' }, sk: { S: 'M' } },
      NewImage: { pk: { S: 'OUTBOX#abc' }, sk: { S: 'M' }, bin: { B: new Uint8Array([1, 2, 3]) }, m: { M: { l: { L: [{ BS: [new Uint8Array([255])] }, { N: '1' }] } } } },
      SequenceNumber: '000000000000000000001',
      SizeBytes: 40,
      StreamViewType: 'NEW_AND_OLD_IMAGES' as const,
    },
  };

  it('a record as Lambda delivers it: epoch seconds, binary values in base64, the stream ARN', () => {
    const r = lambdaRecord(sdkRecord, 'arn:stream');
    expect(r.eventSourceARN).toBe('arn:stream');
    expect(r.dynamodb!.ApproximateCreationDateTime).toBe(1767225605);
    expect(r.dynamodb!.NewImage!.bin).toEqual({ B: 'AQID' });
    expect(r.dynamodb!.NewImage!.m).toEqual({ M: { l: { L: [{ BS: ['/w=='] }, { N: '1' }] } } });
    expect(r.dynamodb!.Keys).toEqual({ pk: { S: 'OUTBOX#abc' }, sk: { S: 'M' } });
  });

  it('the mailer’s filter passes new outbox messages only; the CDK filter pattern says the same', () => {
    const mailer = STREAM_CONSUMERS.find((c) => c.name === 'mailer')!;
    const rec = (eventName: 'INSERT' | 'MODIFY' | 'REMOVE', pk: string, sk: string) => ({ eventName, dynamodb: { Keys: { pk: { S: pk }, sk: { S: sk } } } });
    expect(matchesFilter(mailer.filter, rec('INSERT', 'OUTBOX#abc', 'M'))).toBe(true);
    expect(matchesFilter(mailer.filter, rec('MODIFY', 'OUTBOX#abc', 'M'))).toBe(false);
    expect(matchesFilter(mailer.filter, rec('REMOVE', 'OUTBOX#abc', 'M'))).toBe(false);
    expect(matchesFilter(mailer.filter, rec('INSERT', 'OUTBOX#DUE', '2026-01-01T00:00:00.000Z#abc'))).toBe(false);
    expect(matchesFilter(mailer.filter, rec('INSERT', 'RATE#sign-in#ip#x', '1767225600'))).toBe(false);
    expect(matchesFilter(mailer.filter, rec('INSERT', 'USER#abc', 'R'))).toBe(false);
    expect(filterPattern(mailer.filter)).toEqual({ eventName: ['INSERT'], dynamodb: { Keys: { pk: { S: [{ prefix: 'OUTBOX#' }] }, sk: { S: ['M'] } } } });
  });
});

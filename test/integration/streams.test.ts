/**
 * The local stream poller (infra/local/streams.ts) on DynamoDB Local: Lambda-shaped events for
 * the records that pass a consumer's filter, retries from the first record a consumer reports
 * as failed (or of the whole batch when it throws) up to its retry count, then that record given
 * up as a dead letter and the ones after it delivered; consumers read independently (one held
 * back never delays another); resuming after the last processed record from a checkpoint file.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { StreamConsumerDecl } from '../../functions/streams/registry.js';
import { startStreamPoller, type StreamPoller } from '../../infra/local/streams.js';
import { commit, itemPlan, put } from '../../shared/db/records.js';
import { newId } from '../../shared/ids.js';
import { probe } from '../support/stream-probe.js';

const consumer: StreamConsumerDecl = {
  name: 'probe',
  entry: 'test/support/stream-probe.ts',
  description: 'test consumer',
  filter: { events: ['INSERT'], keys: { pk: { prefix: 'PROBE#' } } },
  batchSize: 10,
  retryAttempts: 2,
  keys: {},
};

const dir = mkdtempSync(join(tmpdir(), 'poller-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const start = (checkpointFile?: string, opts: { consumers?: StreamConsumerDecl[]; deadLetterFile?: string } = {}): Promise<StreamPoller> =>
  startStreamPoller({
    endpoint: process.env.AWS_ENDPOINT_URL_DYNAMODB!,
    table: process.env.TABLE_NAME!,
    consumers: opts.consumers ?? [consumer],
    retryDelayMs: 20,
    ...(checkpointFile ? { checkpointFile } : {}),
    ...(opts.deadLetterFile ? { deadLetterFile: opts.deadLetterFile } : {}),
  });

/** The pk values of every record the probe was given, call by call (only `of`, when given). */
const calls = (of?: string[]) =>
  probe.events.map((e) => e.Records.map((r) => r.dynamodb!.Keys!.pk!.S!).filter((pk) => !of || of.includes(pk))).filter((c) => c.length > 0);

async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out; calls: ${JSON.stringify(calls())}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const write = (...pks: string[]) => commit(...pks.map((pk) => itemPlan(put({ pk, sk: 'X', value: 7, tags: new Set(['a']) }))));

beforeEach(() => {
  probe.events.length = 0;
  probe.calls.length = 0;
  probe.hold.clear();
  probe.fail.clear();
  probe.throwOnce = false;
});

describe('stream poller', () => {
  it('delivers matching records as Lambda does: DynamoDB JSON images, sequence numbers, the stream ARN', async () => {
    const poller = await start();
    try {
      const pk = `PROBE#${newId()}`;
      await write(`OTHER#${newId()}`, pk);
      await until(() => calls().flat().includes(pk));
      const records = probe.events.flatMap((e) => e.Records);
      expect(records.map((r) => r.dynamodb!.Keys!.pk!.S!).every((p) => p.startsWith('PROBE#'))).toBe(true);
      const r = records.find((x) => x.dynamodb!.Keys!.pk!.S === pk)!;
      expect(r).toMatchObject({ eventName: 'INSERT', eventSource: 'aws:dynamodb', eventSourceARN: poller.streamArn, awsRegion: expect.any(String) });
      expect(r.dynamodb!.NewImage).toEqual({ pk: { S: pk }, sk: { S: 'X' }, value: { N: '7' }, tags: { SS: ['a'] } });
      expect(r.dynamodb!.StreamViewType).toBe('NEW_AND_OLD_IMAGES');
      expect(typeof r.dynamodb!.SequenceNumber).toBe('string');
      expect(typeof r.dynamodb!.ApproximateCreationDateTime).toBe('number');
    } finally {
      await poller.stop();
    }
  });

  it('retries from the first record reported as failed; gives a record up after its retries, and delivers the ones after it', async () => {
    const deadLetterFile = join(dir, 'dead-letters.jsonl');
    const poller = await start(undefined, { deadLetterFile });
    try {
      const [a, b, c] = [`PROBE#a${newId()}`, `PROBE#b${newId()}`, `PROBE#c${newId()}`];
      probe.fail.set(b, 1);
      await write(a, b, c);
      await until(() => calls([a, b, c]).length >= 2);
      expect(calls([a, b, c])).toEqual([
        [a, b, c],
        [b, c],
      ]);

      const [d, e] = [`PROBE#d${newId()}`, `PROBE#e${newId()}`];
      probe.fail.set(d, 99);
      await write(d, e);
      await until(() => calls([d, e]).length >= 4);
      await new Promise((r) => setTimeout(r, 300));
      // One call and two retries (retryAttempts: 2), then d is given up and e delivered on its
      // own (as bisecting isolates the failing record on AWS): nothing after it is lost.
      expect(calls([d, e])).toEqual([
        [d, e],
        [d, e],
        [d, e],
        [e],
      ]);
      expect(poller.deadLetters()).toEqual([expect.objectContaining({ consumer: 'probe', eventName: 'INSERT', keys: { pk: d, sk: 'X' }, deliveries: 3 })]);
      expect(readFileSync(deadLetterFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l).keys.pk)).toEqual([d]);
      // e was delivered with d three times, then alone.
      expect(poller.stats().probe).toMatchObject({ givenUp: 1, maxDeliveries: 4 });

      probe.throwOnce = true;
      const f = `PROBE#f${newId()}`;
      await write(f);
      await until(() => calls([f]).length >= 2);
      expect(calls([f])).toEqual([[f], [f]]);
    } finally {
      await poller.stop();
    }
  });

  it('consumers read independently: one that is held back (slow, or retrying) does not delay another', async () => {
    const slow: StreamConsumerDecl = { ...consumer, name: 'slow' };
    const fast: StreamConsumerDecl = { ...consumer, name: 'fast' };
    let release!: () => void;
    probe.hold.set('stream.slow', new Promise<void>((r) => (release = r)));
    const poller = await start(undefined, { consumers: [slow, fast] });
    try {
      const [a, b] = [`PROBE#a${newId()}`, `PROBE#b${newId()}`];
      await write(a);
      await until(() => probe.calls.includes('stream.slow') && probe.calls.includes('stream.fast'));
      // The slow consumer is still inside its first invocation; the fast one goes on.
      await write(b);
      await until(() => probe.events.some((e, i) => probe.calls[i] === 'stream.fast' && e.Records.some((r) => r.dynamodb!.Keys!.pk!.S === b)));
      expect(probe.calls.filter((c) => c === 'stream.slow')).toHaveLength(1);
      release();
      await poller.caughtUp();
      const seen = (name: string) => probe.events.flatMap((e, i) => (probe.calls[i] === name ? e.Records.map((r) => r.dynamodb!.Keys!.pk!.S!) : [])).filter((pk) => pk === a || pk === b);
      expect(seen('stream.slow')).toEqual([a, b]);
      expect(seen('stream.fast')).toEqual([a, b]);
    } finally {
      release();
      await poller.stop();
    }
  });

  it('resumes after the last processed record from its checkpoint; without one it reads from the oldest', async () => {
    const file = join(dir, 'streams.json');
    const first = `PROBE#1${newId()}`;
    let poller = await start(file);
    await write(first);
    await until(() => calls().flat().includes(first));
    await poller.stop();
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    expect(saved.streamArn).toBe(poller.streamArn);

    const whileStopped = `PROBE#2${newId()}`;
    await write(whileStopped);
    probe.events.length = 0;
    poller = await start(file);
    try {
      await until(() => calls().flat().includes(whileStopped));
      await new Promise((r) => setTimeout(r, 300));
      expect(calls().flat()).not.toContain(first);
    } finally {
      await poller.stop();
    }

    probe.events.length = 0;
    poller = await start();
    try {
      await until(() => calls().flat().includes(whileStopped));
      expect(calls().flat()).toContain(first);
    } finally {
      await poller.stop();
    }
  });
});

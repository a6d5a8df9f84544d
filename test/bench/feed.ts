/**
 * The change feed (API.md §8.5; docs/decisions.md EX10), on a table of its own with the stream
 * poller as `npm start` runs it:
 *
 *  - **Lag.** While the catalogue churn of the consumers section runs beside (test/support/churn.ts,
 *    8 requests in flight), a probe creates a genre, then polls `/api/changes/` from where it was
 *    every 10 ms until the genre's entry shows: the time from the write's response to its entry.
 *  - **Cost per write.** With consumed capacity measured, writes of every kind: the change item
 *    the write's own transaction carries (its share of the request: items and write units at
 *    DynamoDB's price of a transactional write, 2 units per KB) and what the sequencer does for
 *    the same entries (its calls, read and write units, divided by the entries it numbered).
 *  - **Read cost per page.** The calls and read units of a first page (`since`: the binary
 *    search), full pages of 25 and 100, a page with `kind` (reading up to 500 entries) and a
 *    caught-up poll, over a feed of a few thousand entries.
 */
import type { BenchEnv } from './local.js';
import { onOwnTable } from './lag.js';
import { runChurn, churnProgram } from '../support/churn.js';
import type { BenchOptions } from './options.js';
import type { SectionBody } from './report.js';
import type { SdkCall } from './sdk-calls.js';
import { int, percentile, table } from './stats.js';

interface Page {
  results: { kind: string; id: string; change: string; at: string }[];
  next: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const WRITE_UNITS_PER_KB_IN_TRANSACTION = 2;
const sizeOf = (item: Record<string, unknown>) => Object.entries(item).reduce((n, [k, v]) => n + Buffer.byteLength(k) + (typeof v === 'number' ? 8 : Buffer.byteLength(String(v))), 0);

export async function feedSection(env: BenchEnv, opts: BenchOptions): Promise<SectionBody> {
  return onOwnTable('feed', async (poller, headers) => {
    const get = async (path: string) => (await env.http.expect<Page>(200, 'GET', path)).json;
    const rel = (url: string) => url.slice(url.indexOf('/api/'));
    const caughtUp = async (from: string) => {
      let next = from;
      for (;;) {
        const page = await get(next);
        if (page.results.length === 0) return rel(page.next);
        next = rel(page.next);
      }
    };

    // Lag: probes beside the churn.
    const steps = opts.quick ? 200 : 1_200;
    console.log(`  feed: ${steps} churn writes, 8 in flight, with lag probes beside them…`);
    let cursor = await caughtUp('/api/changes/');
    env.sdk.take();
    let churning = true;
    const churn = runChurn({ server: { url: env.url }, auth: headers, program: churnProgram(opts.seed, steps), concurrency: 8, label: `Bench feed ${opts.seed}` }).finally(() => {
      churning = false;
    });
    const lags: number[] = [];
    for (let i = 0; churning || i < (opts.quick ? 50 : 200); i++) {
      const genre = (await env.http.expect<{ id: string }>(201, 'POST', '/api/genres/', { headers, body: { name: `Feed lag ${opts.seed} ${i}` } })).json;
      const answered = performance.now();
      for (;;) {
        const page = await get(cursor);
        cursor = rel(page.next);
        if (page.results.some((e) => e.id === genre.id)) break;
        if (performance.now() - answered > 30_000) throw new Error('an entry did not show within 30 s');
        if (page.results.length === 0) await sleep(10);
      }
      lags.push(performance.now() - answered);
    }
    const churned = await churn;
    await poller.caughtUp();
    // How many changes the sequencer numbers per transaction under the churn (its head read and put are shared by them).
    const underLoad = env.sdk.take().filter((c) => c.fn === 'stream.feed' && c.operation === 'TransactWriteItems');
    const loadEntries = underLoad.reduce((n, c) => n + ((c.input.TransactItems as unknown[]).length - 1) / 2, 0);

    // Cost per write: the change in the write's transaction, and the sequencer's calls for its entries.
    cursor = await caughtUp(cursor);
    env.sdk.measureCapacity = true;
    env.sdk.take();
    const writes = opts.quick ? 50 : 200;
    for (let i = 0; i < writes; i++) {
      const g = (await env.http.expect<{ id: string }>(201, 'POST', '/api/genres/', { headers, body: { name: `Feed cost ${opts.seed} ${i}` } })).json;
      await env.http.expect(200, 'PATCH', `/api/genres/${g.id}/`, { headers, body: { description: 'Described.' } });
    }
    await poller.caughtUp();
    const calls = env.sdk.take();
    env.sdk.measureCapacity = false;
    const changeItems = calls
      .filter((c) => c.operation === 'TransactWriteItems' && c.fn !== 'stream.feed')
      .flatMap((c) => (c.input.TransactItems as { Put?: { Item: Record<string, unknown> } }[]).flatMap((t) => (t.Put?.Item.pk === 'FEED#P' ? [t.Put.Item] : [])));
    const changeUnits = changeItems.reduce((n, item) => n + WRITE_UNITS_PER_KB_IN_TRANSACTION * Math.ceil(sizeOf(item) / 1024), 0) / changeItems.length;
    const changeBytes = changeItems.reduce((n, item) => n + sizeOf(item), 0) / changeItems.length;
    const sequencer = calls.filter((c) => c.fn === 'stream.feed');
    const entries = changeItems.length;
    const units = (cs: SdkCall[], write: boolean) => cs.reduce((n, c) => n + ((write ? c.writeCapacity : c.capacity) ?? 0), 0);
    // The sequencer's transactions as DynamoDB bills them: 2 units per KB of each item written or deleted.
    const billed = (cs: SdkCall[]) =>
      cs
        .filter((c) => c.operation === 'TransactWriteItems')
        .flatMap((c) => c.input.TransactItems as { Put?: { Item: Record<string, unknown> }; Delete?: unknown }[])
        .reduce((n, t) => n + WRITE_UNITS_PER_KB_IN_TRANSACTION * (t.Put ? Math.ceil(sizeOf(t.Put.Item) / 1024) : Math.ceil(changeBytes / 1024)), 0);
    const sequencerItems = sequencer.filter((c) => c.operation === 'TransactWriteItems').reduce((n, c) => n + (c.input.TransactItems as unknown[]).length, 0);
    const transactions = sequencer.filter((c) => c.operation === 'TransactWriteItems').length;
    const headReads = sequencer.filter((c) => c.operation === 'GetItem').length;
    const perBatch = (n: number) => ({ wu: (WRITE_UNITS_PER_KB_IN_TRANSACTION * (2 * n + 1)) / n, ru: 1 / n });

    // Read cost per page over the feed as it now stands.
    env.sdk.measureCapacity = true;
    const pageCost = async (label: string, path: string) => {
      env.sdk.take();
      const page = await get(path);
      const cs = env.sdk.take().filter((c) => c.fn === 'changes.list' && c.service === 'dynamodb');
      return { label, results: page.results.length, calls: cs.length, units: units(cs, false), read: cs.reduce((n, c) => n + (c.itemsRead ?? 0), 0), next: rel(page.next) };
    };
    const since = new Date(Date.now() - 60_000).toISOString();
    const first = await pageCost('first page, `since` a minute ago (binary search)', `/api/changes/?since=${encodeURIComponent(since)}`);
    const start = await pageCost('first page, no `since` (binary search)', '/api/changes/?limit=25');
    const p25 = await pageCost('a following page of 25', start.next);
    const p100 = await pageCost('a following page of 100', `/api/changes/?limit=100`).then(async (p) => pageCost('a following page of 100', p.next));
    const kindFirst = await pageCost('first page with `kind=anime,manga` (binary search; reads ≤ 500 entries)', `/api/changes/?kind=anime,manga&limit=100&since=${encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString())}`);
    const kind = await pageCost('a following page with `kind=anime,manga` (reads ≤ 500 entries)', kindFirst.next);
    const polled = await pageCost('a caught-up poll', await caughtUp('/api/changes/?limit=100'));
    env.sdk.measureCapacity = false;
    const pages = [first, start, p25, p100, kindFirst, kind, polled];

    const lag = { p50: percentile(lags, 50), p99: percentile(lags, 99), max: Math.max(...lags) };
    const body = [
      `### Lag from a write's response to its entry (${lags.length} probes beside ${int(steps)} churn writes, 8 in flight)`,
      '',
      table(['p50', 'p99', 'max', 'samples'], [[`${lag.p50.toFixed(0)} ms`, `${lag.p99.toFixed(0)} ms`, `${lag.max.toFixed(0)} ms`, lags.length]]),
      '',
      `Churn answers: ${Object.entries(churned.statuses).map(([s, n]) => `${s} × ${n}`).join(', ')}.`,
      '',
      `### Cost per write (${int(entries)} writes, one after another: genres created and changed)`,
      '',
      table(
        ['Part', 'items per write', 'write units per write', 'read units per write'],
        [
          ['the change, in the write’s own transaction', '1', `${changeUnits.toFixed(2)} (${changeBytes.toFixed(0)} B)`, '0'],
          [
            `the sequencer, as measured (${transactions} transactions, ${(entries / Math.max(transactions, 1)).toFixed(1)} changes each)`,
            (sequencerItems / entries).toFixed(2),
            `${(billed(sequencer) / entries).toFixed(2)} (engine: ${(units(sequencer, true) / entries).toFixed(2)})`,
            (headReads / entries).toFixed(2),
          ],
          [`the sequencer under the churn (${underLoad.length} transactions, ${(loadEntries / Math.max(underLoad.length, 1)).toFixed(1)} changes each)`, ((2 * loadEntries + underLoad.length) / Math.max(loadEntries, 1)).toFixed(2), perBatch(loadEntries / Math.max(underLoad.length, 1)).wu.toFixed(2), perBatch(loadEntries / Math.max(underLoad.length, 1)).ru.toFixed(2)],
          ['the sequencer at full batches (49 changes)', (99 / 49).toFixed(2), perBatch(49).wu.toFixed(2), perBatch(49).ru.toFixed(2)],
        ],
      ),
      '',
      'Write units by DynamoDB’s price of a transactional write (2 per KB of each item; DynamoDB Local reports other numbers for transactions, shown as “engine”). Stream reads by the Lambda mapping are free.',
      '',
      '### Read cost per page',
      '',
      table(['Request', 'entries', 'DynamoDB calls', 'items read', 'read units'], pages.map((p) => [p.label, p.results, p.calls, p.read, p.units.toFixed(1)])),
    ].join('\n');
    return {
      method: [
        'A table of its own with the stream poller as `npm start` runs it (polling every 20 ms when idle: on AWS the mapping polls the shard about four times a second).',
        'Units as the engine reports them (ReturnConsumedCapacity); the change item’s by its size at 2 units per KB, as DynamoDB bills transactional writes.',
      ],
      body,
      budgets: [
        { name: 'Change feed: lag from a write’s response to its entry (max)', measured: `${lag.max.toFixed(0)} ms`, limit: '5 s (API.md §8.5)', ok: lag.max < 5_000 },
        { name: 'Change feed: write units per write (change + sequencer, one write at a time)', measured: (changeUnits + billed(sequencer) / entries).toFixed(2), limit: 'reported', ok: null },
        { name: 'Change feed: read units of a full page of 100', measured: p100.units.toFixed(1), limit: 'reported', ok: null },
      ],
      summary: [
        `lag p50 ${lag.p50.toFixed(0)} / p99 ${lag.p99.toFixed(0)} / max ${lag.max.toFixed(0)} ms (${lags.length} probes)`,
        `per write: change ${changeUnits.toFixed(2)} WU + sequencer ${(billed(sequencer) / entries).toFixed(2)} WU, ${(headReads / entries).toFixed(2)} RU (one at a time); under churn ${(loadEntries / Math.max(underLoad.length, 1)).toFixed(1)} changes per transaction`,
        ...pages.map((p) => `${p.label}: ${p.calls} calls, ${p.units.toFixed(1)} RU, ${p.results} entries`),
      ],
    };
  });
}

/**
 * The stream consumers under load (issue 18 §1 and §2; docs/decisions.md Z1–Z6):
 *
 *  - **Lag under churn.** The convergence test's random program (test/support/churn.ts: creates,
 *    updates, renames and deletes of every catalogue and taxonomy kind with their relations, 8
 *    requests in flight) runs on a table of its own with the stream poller as `npm start` runs it,
 *    while a probe loop measures how long after a write's response its effect shows on the other
 *    side of the relation (an anime created with a cast → the character's `animes`; a character
 *    renamed → its voice actor's `voices/`; a genre renamed → the anime's `genres`), polled every
 *    10 ms through the gateway. Reported: p50/p99/max per kind, the poller's delivery figures (the
 *    most deliveries of one record, records retried, records given up) and the recount.
 *  - **Write fan-out.** The items one request causes to be written — by the request itself (until
 *    its response) and by the consumers (after it, until they have caught up) — for the writes
 *    whose effects fan out most, at the contract's maxima (API.md §3.3, §7.1): an anime with 500
 *    characters and 1,000 voice-actor entries and 300 staff created, renamed and deleted; a
 *    character in many animes renamed; a voice actor renamed; a genre linked to many animes
 *    renamed and deleted. Items are counted per call as DynamoDB writes them (a transaction's items
 *    without its condition checks, a batch's requests).
 */
import { publishedVectors, recount } from '../support/recount.js';
import { churnProgram, runChurn } from '../support/churn.js';
import { scanAll } from '../support/tables.js';
import type { BenchEnv } from './local.js';
import { onOwnTable, relationProbe } from './lag.js';
import type { BenchOptions } from './options.js';
import type { SectionBody } from './report.js';
import type { SdkCall } from './sdk-calls.js';
import { int, table } from './stats.js';

/** Lag of reverse views under the churn (see above). */
async function lagUnderChurn(env: BenchEnv, opts: BenchOptions) {
  return onOwnTable('churn', async (poller, headers, tableName) => {
    const server = { url: env.url };
    const probe = relationProbe(env, headers);
    const steps = opts.quick ? 200 : 1_200;
    console.log(`  churn: ${steps} random writes, 8 in flight, with the lag probes beside them…`);
    const started = performance.now();
    let churning = true;
    const churn = runChurn({ server, auth: headers, program: churnProgram(opts.seed, steps), concurrency: 8, label: `Bench churn ${opts.seed}` }).finally(() => {
      churning = false;
    });
    for (let i = 0; churning || i < 5; i++) await probe.probe(i);
    const report = await churn;
    const churnSeconds = (performance.now() - started) / 1000;
    const t0 = performance.now();
    await poller.caughtUp();
    const drain = performance.now() - t0;
    const items = await scanAll(tableName);
    const problems = recount(items, await publishedVectors(items));
    return {
      lags: probe.figures(),
      steps,
      churnSeconds,
      drainMs: drain,
      statuses: report.statuses,
      unexpected: report.outcomes.filter((o) => o.unexpected).length,
      stats: poller.stats(),
      deadLetters: poller.deadLetters().length,
      problems,
    };
  });
}

/** Items a write call puts, updates or deletes (a transaction's condition checks write nothing). */
export function itemsWritten(call: SdkCall): number {
  switch (call.operation) {
    case 'PutItem':
    case 'UpdateItem':
    case 'DeleteItem':
      return 1;
    case 'BatchWriteItem':
      return Object.values((call.input.RequestItems ?? {}) as Record<string, unknown[]>).reduce((n, r) => n + r.length, 0);
    case 'TransactWriteItems':
      return ((call.input.TransactItems ?? []) as Record<string, unknown>[]).filter((i) => !('ConditionCheck' in i)).length;
    default:
      return 0;
  }
}

interface Fanout {
  write: string;
  request: number;
  consumers: number;
}

/** The write fan-out at the contract's maxima (see above). */
async function writeFanout(env: BenchEnv, opts: BenchOptions): Promise<Fanout[]> {
  return onOwnTable('fanout', async (poller, headers) => {
    const post = async <T>(path: string, body: unknown) => (await env.http.expect<T>(201, 'POST', path, { headers, body })).json;
    const rows: Fanout[] = [];
    /** Sends one request and counts what it and the consumers then write. */
    const measure = async (write: string, method: string, path: string, body?: unknown) => {
      await poller.caughtUp();
      env.sdk.take();
      const status = { POST: 201, PATCH: 200, DELETE: 204 }[method]!;
      await env.http.expect(status, method, path, { headers, ...(body === undefined ? {} : { body }) });
      const answered = performance.now();
      await poller.caughtUp();
      const calls = env.sdk.take().filter((c) => c.service === 'dynamodb');
      const count = (cs: SdkCall[]) => cs.reduce((n, c) => n + itemsWritten(c), 0);
      rows.push({ write, request: count(calls.filter((c) => c.startedAt < answered)), consumers: count(calls.filter((c) => c.startedAt >= answered)) });
      console.log(`  ${write}: ${rows.at(-1)!.request} + ${rows.at(-1)!.consumers} items`);
    };
    const titles = opts.quick ? 5 : 20;
    console.log(`  fan-out: ${titles} animes at the maxima…`);
    // The maxima: 20 genres and 20 themes, 500 characters with 2 voice-actor entries each (1,000
    // in all), 300 staff; the voice actors are 20 persons, so one person voices 50 characters per anime.
    // Creations of one kind share its counter and random-pick slots: 8 at a time.
    const many = async (path: string, n: number, label: string) => {
      const out: string[] = [];
      for (let i = 0; i < n; i += 8) out.push(...(await Promise.all(Array.from({ length: Math.min(8, n - i) }, (_, j) => post<{ id: string }>(path, { name: `${label} ${i + j}` })))).map((r) => r.id));
      return out;
    };
    const genres = await many('/api/genres/', 20, 'Fan-out genre');
    const themes = await many('/api/themes/', 20, 'Fan-out theme');
    const characters = await many('/api/characters/', 500, 'Fan-out character');
    const voices = await many('/api/persons/', 20, 'Fan-out voice');
    const staff = await many('/api/persons/', 300, 'Fan-out staff');
    const body = (name: string) => ({
      name,
      genre_ids: genres,
      theme_ids: themes,
      characters: characters.map((c, i) => ({
        character_id: c,
        role: i < 10 ? 'main' : 'supporting',
        voice_actors: [
          { person_id: voices[i % voices.length], language: 'japanese' },
          { person_id: voices[(i + 1) % voices.length], language: 'english' },
        ],
      })),
      staff: staff.map((p) => ({ person_id: p, positions: ['Key Animation'] })),
    });
    // Titles sharing the cast, so the character, the voice actor and the genre below are in `titles` animes.
    const animes: string[] = [];
    for (let i = 0; i < titles - 1; i++) animes.push((await post<{ id: string }>('/api/animes/', body(`Fan-out anime ${i}`))).id);
    await measure('anime created at the maxima (500 characters, 1,000 voice entries, 300 staff, 40 genres and themes)', 'POST', '/api/animes/', body('Fan-out anime measured'));
    const [first] = animes;
    await measure('anime at the maxima renamed', 'PATCH', `/api/animes/${first}/`, { name: 'Fan-out anime renamed' });
    await measure(`character in ${titles} such animes renamed`, 'PATCH', `/api/characters/${characters[0]}/`, { name: 'Fan-out character renamed' });
    await measure(`voice actor of 50 characters in each of ${titles} animes renamed`, 'PATCH', `/api/persons/${voices[0]}/`, { name: 'Fan-out voice renamed' });
    await measure(`genre of ${titles} animes renamed`, 'PATCH', `/api/genres/${genres[0]}/`, { name: 'Fan-out genre renamed' });
    await measure(`genre of ${titles} animes deleted`, 'DELETE', `/api/genres/${genres[1]}/`);
    await measure(`voice actor of 50 characters in each of ${titles} animes deleted`, 'DELETE', `/api/persons/${voices[1]}/`);
    await measure('anime at the maxima deleted', 'DELETE', `/api/animes/${first}/`);
    return rows;
  });
}

export async function consumersSection(env: BenchEnv, opts: BenchOptions): Promise<SectionBody> {
  const churn = await lagUnderChurn(env, opts);
  const fanout = await writeFanout(env, opts);
  const stats = Object.entries(churn.stats);
  const maxDeliveries = Math.max(...stats.map(([, s]) => s.maxDeliveries));
  const largest = fanout.reduce((a, b) => (a.request + a.consumers >= b.request + b.consumers ? a : b));
  const body = [
    `### Lag of reverse views under churn (${int(churn.steps)} random writes, 8 in flight, ${churn.churnSeconds.toFixed(0)} s)`,
    '',
    table(
      ['Relation', 'p50', 'p99', 'max', 'samples'],
      Object.entries(churn.lags).map(([k, v]) => [k, `${v.p50.toFixed(0)} ms`, `${v.p99.toFixed(0)} ms`, `${v.max.toFixed(0)} ms`, v.samples]),
    ),
    '',
    `Answers: ${Object.entries(churn.statuses).map(([s, n]) => `${s} × ${n}`).join(', ')} (${churn.unexpected} not among the answers a racing write may get). The consumers caught up ${(churn.drainMs / 1000).toFixed(1)} s after the last answer; the recount then found ${churn.problems.length} problem(s).`,
    '',
    table(
      ['Consumer', 'records delivered', 'retried', 'most deliveries of one record', 'given up'],
      stats.map(([name, s]) => [name, int(s.records), int(s.retried), s.maxDeliveries, s.givenUp]),
    ),
    '',
    '### Items written per request, at the contract’s maxima (the request itself + the consumers after it)',
    '',
    table(['Write', 'request', 'consumers', 'total'], fanout.map((f) => [f.write, int(f.request), int(f.consumers), int(f.request + f.consumers)])),
  ].join('\n');
  return {
    method: [
      'Churn: test/support/churn.ts, seed from --seed, on a table of its own with the stream poller as `npm start` runs it; the probe writes run beside it, one after another, polling every 10 ms.',
      'Fan-out: the SDK calls recorded from the request until the consumers have caught up; calls started before the response are the request\'s, after it the consumers\'.',
    ],
    body,
    budgets: [
      { name: 'Consumers under churn: most deliveries of one record', measured: String(maxDeliveries), limit: '≤ 3', ok: maxDeliveries <= 3 },
      { name: 'Consumers under churn: records given up', measured: String(churn.deadLetters), limit: '0', ok: churn.deadLetters === 0 },
      { name: 'Consumers under churn: recount problems', measured: String(churn.problems.length), limit: '0', ok: churn.problems.length === 0 },
      ...Object.entries(churn.lags).map(([k, v]) => ({ name: `Lag under churn, ${k} (max)`, measured: `${v.max.toFixed(0)} ms`, limit: '60 s (API.md §1.8)', ok: v.max < 60_000 })),
      { name: 'Largest write fan-out of one request', measured: `${int(largest.request + largest.consumers)} items (${largest.write})`, limit: 'reported', ok: null },
    ],
    summary: [
      ...Object.entries(churn.lags).map(([k, v]) => `${k}: p50 ${v.p50.toFixed(0)} / p99 ${v.p99.toFixed(0)} / max ${v.max.toFixed(0)} ms (${v.samples})`),
      `most deliveries of one record: ${maxDeliveries}; given up: ${churn.deadLetters}; recount problems: ${churn.problems.length}`,
      `largest write fan-out: ${int(largest.request + largest.consumers)} items (${largest.write})`,
    ],
  };
}

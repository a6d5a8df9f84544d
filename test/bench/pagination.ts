/**
 * §9 "Pagination": a list of many genres (50,000 by default), then the first page against the
 * 100th page (and, when the list is long enough, the 1,000th) of `GET /api/genres/?limit=25`,
 * reached by following `next` links. Cursor pagination on a Query should make every page cost
 * the same, whatever its depth.
 */
import { isTransactionConflict, isUnavailable } from '../../shared/db/errors.js';
import { insertGenre } from './fixtures.js';
import type { BenchEnv } from './local.js';
import type { BenchOptions } from './options.js';
import type { SectionBody } from './report.js';
import { eachLimit, int, median, ms, percentile, ratio, table, timed } from './stats.js';

export const PAGE_BUDGET = 1.3;
const PAGE_SIZE = 25;
const CONCURRENCY = 16;

interface Page {
  results: unknown[];
  next: string | null;
  count: number | null;
}

/** Inserts `total` genres with bounded concurrency; retries writes that lost a race on the shared counter. */
async function insertGenres(total: number): Promise<{ seconds: number; retries: number }> {
  const start = Date.now();
  let done = 0;
  let retries = 0;
  let reported = 0;
  const width = String(total).length;
  await eachLimit(
    Array.from({ length: total }, (_, i) => i + 1),
    CONCURRENCY,
    async (i) => {
      for (let attempt = 1; ; attempt++) {
        try {
          await insertGenre(`Paged genre ${String(i).padStart(width, '0')}`);
          break;
        } catch (err) {
          if (attempt >= 10 || !(isTransactionConflict(err) || isUnavailable(err))) throw err;
          retries++;
          await new Promise((r) => setTimeout(r, 20 * attempt));
        }
      }
      done++;
      const pct = Math.floor((done / total) * 10);
      if (pct > reported) {
        reported = pct;
        const s = (Date.now() - start) / 1000;
        console.log(`  inserted ${int(done)} / ${int(total)} genres (${int(done / s)}/s)`);
      }
    },
  );
  return { seconds: (Date.now() - start) / 1000, retries };
}

export async function paginationSection(env: BenchEnv, opts: BenchOptions): Promise<SectionBody> {
  const total = opts.genres;
  const warmup = opts.quick ? 10 : 30;
  const iterations = opts.quick ? 50 : 300;
  const resume = env.sdk.pause();
  const insert = await insertGenres(total).finally(resume);
  const rate = total / insert.seconds;

  // Walk the list from its first page, following `next` links.
  const first = `/api/genres/?limit=${PAGE_SIZE}`;
  const deep = total >= 1000 * PAGE_SIZE + PAGE_SIZE ? 1000 : 100;
  const targets = new Map<number, string>([[1, first]]);
  let url = first;
  let listed = 0;
  const walkStart = Date.now();
  for (let page = 1; page < deep; page++) {
    const { json } = await env.http.expect<Page>(200, 'GET', url);
    if (page === 1) listed = json.count ?? 0;
    if (json.results.length !== PAGE_SIZE || !json.next) throw new Error(`page ${page} has ${json.results.length} results and next=${json.next}`);
    url = json.next;
    if (page + 1 === 100 || page + 1 === deep) targets.set(page + 1, url);
  }
  const walkSeconds = (Date.now() - walkStart) / 1000;

  const pages = [...targets.keys()];
  const samples = new Map<number, number[]>(pages.map((p) => [p, []]));
  const calls = new Map<number, Set<number>>(pages.map((p) => [p, new Set()]));
  for (let i = 0; i < warmup + iterations; i++) {
    for (let j = 0; j < pages.length; j++) {
      const page = pages[(i + j) % pages.length]!;
      env.sdk.take();
      const { ms: t, value: res } = await timed(() => env.http.request('GET', targets.get(page)!));
      const made = env.sdk.take().filter((c) => c.service === 'dynamodb').length;
      if (res.status !== 200) throw new Error(`page ${page}: ${res.status} ${res.text.slice(0, 200)}`);
      if (i >= warmup) {
        samples.get(page)!.push(t);
        calls.get(page)!.add(made);
      }
    }
  }
  const med = (p: number) => median(samples.get(p)!);
  const r100 = med(100) / med(1);
  const rows = pages.map((p) => [
    p === 1 ? 'page 1' : `page ${int(p)} (records ${int((p - 1) * PAGE_SIZE + 1)}–${int(p * PAGE_SIZE)})`,
    ms(med(p), 3),
    ms(percentile(samples.get(p)!, 90), 3),
    [...calls.get(p)!].join('/'),
    ratio(med(p) / med(1)),
  ]);
  const body = [
    `Inserted ${int(total)} genres in ${insert.seconds.toFixed(1)} s: **${int(rate)} records/s** (${CONCURRENCY} concurrent \`createRecord\` transactions; ${insert.retries} retried after losing a race on the shared record counter). The list then holds ${int(listed)} genres (those of other sections included).`,
    `Following \`next\` from page 1 to page ${int(deep)} took ${walkSeconds.toFixed(1)} s (${ms((walkSeconds * 1000) / (deep - 1), 1)} per page).`,
    '',
    table(['Request (`GET /api/genres/?limit=25`, default ordering: name)', 'Median', 'p90', 'DynamoDB calls', 'Median / page 1'], rows),
    '',
  ].join('\n');
  return {
    method: [
      `${int(total)} genres stored with the create operation's record builder and \`createRecord\` (one transaction per genre: the record, its name claim, its 8 ordering items and the counter), ${CONCURRENCY} at a time.`,
      `The cursor URLs of page 100${deep > 100 ? ` and page ${int(deep)}` : ''} are collected by following \`next\` links with limit=${PAGE_SIZE}; then ${warmup} warm-up and ${iterations} measured rounds request each page once (rotating order) through the local gateway.`,
      `Budget (DESIGN §9): median(page 100) / median(page 1) ≤ ${PAGE_BUDGET}${total < 50_000 ? ` (measured here on ${int(total)} records instead of 50,000)` : ''}.`,
    ],
    body,
    budgets: [
      { name: `Pagination: page 100 / page 1 (${int(total)} records)`, measured: `${ratio(r100)} (${ms(med(100), 3)} vs ${ms(med(1), 3)})`, limit: `≤ ${PAGE_BUDGET}×`, ok: r100 <= PAGE_BUDGET },
      ...(deep > 100 ? [{ name: `Pagination: page ${int(deep)} / page 1`, measured: ratio(med(deep) / med(1)), limit: '—', ok: null }] : []),
      { name: 'Insert rate (createRecord, DynamoDB Local)', measured: `${int(rate)} records/s`, limit: '—', ok: null },
    ],
    summary: [
      `pagination: inserted ${int(total)} genres at ${int(rate)}/s; page 1 ${ms(med(1))}, page 100 ${ms(med(100))} → ${ratio(r100)} (budget ≤ ${PAGE_BUDGET}×)${deep > 100 ? `; page ${int(deep)} ${ms(med(deep))}` : ''}`,
    ],
  };
}

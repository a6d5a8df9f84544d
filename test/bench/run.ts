/**
 * `npm run bench`: the benchmarks of DESIGN.md §9 against the local runtime (DynamoDB Local, the
 * local API Gateway, the function modules in this process), written as a markdown report
 * (bench-report.md at the repository root unless --out is given). Not part of `npm test`.
 *
 *   npm run bench                       every section, full iteration counts
 *   npm run bench -- --quick            small counts (checks the harness)
 *   npm run bench -- --only=latency     one section (or a comma-separated list)
 *
 * Sections: calls, latency, pagination, bundles, throughput, auth (sign-in and token latency),
 * enumeration (eligible / unknown address timing of the account requests), catalogue (a
 * MyAnimeList-sized catalogue and the query matrix of the lists; `--scale mal|small`, DATA_DIR;
 * docs/benchmarks.md), community (users, list items, reviews over MyAnimeList's title counts:
 * calls per request of the community routes, random picks, edits under contention, the jobs),
 * import (`npm start`'s first start on an empty data dir: the bangumi-data import, timed), fuzz
 * (≥ 20,000 broken requests over the 151 operations: test/support/fuzz.ts), load (mixed read and
 * write workloads with autocannon over the community store, against a bare GetItem server) and
 * cost (the AWS bill per million requests and per month, from per-request measurements; load.ts)
 * and consumers (the stream consumers: lag of reverse views under random concurrent writes,
 * deliveries per record, the items one request causes to be written at the contract's maxima).
 * The specific rate limits are off while the bench runs.
 */
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { authSection } from './auth.js';
import { enumerationSection } from './enumeration.js';
import { fuzzSection } from './fuzz.js';
import { bundlesSection } from './bundles.js';
import { catalogueSection } from './catalogue.js';
import { callsSection } from './calls.js';
import { feedSection } from './feed.js';
import { consumersSection } from './consumers.js';
import { communitySection } from './community.js';
import { importSection } from './import.js';
import { latencySection } from './latency.js';
import { costSection, loadSection } from './load.js';
import { startBenchEnv, type BenchEnv } from './local.js';
import { parseOptions, USAGE, type BenchOptions, type SectionName } from './options.js';
import { paginationSection } from './pagination.js';
import { environmentFacts, renderReport, type SectionBody, type SectionResult } from './report.js';
import { throughputSection } from './throughput.js';

type Section = (env: BenchEnv, opts: BenchOptions) => Promise<SectionBody>;

const SECTION_RUNNERS: Record<SectionName, { title: string; run: Section; needsRuntime: boolean }> = {
  calls: { title: '1. DynamoDB calls per request', run: callsSection, needsRuntime: true },
  latency: { title: '2. Warm detail GET: full chain vs bare GetItem', run: latencySection, needsRuntime: true },
  pagination: { title: '3. Pagination: first page vs 100th page', run: paginationSection, needsRuntime: true },
  bundles: { title: '4. Function packages: size, module load time, cold start of a detail GET', run: bundlesSection, needsRuntime: true },
  throughput: { title: '5. Throughput: local gateway vs bare node:http', run: throughputSection, needsRuntime: true },
  auth: { title: '6. Sign-in and tokens: password hash, sign-in, refresh, verify', run: authSection, needsRuntime: true },
  enumeration: { title: '7. No account enumeration by timing: eligible / unknown address', run: enumerationSection, needsRuntime: true },
  catalogue: { title: '8. MyAnimeList-scale catalogue: load and query matrix', run: catalogueSection, needsRuntime: true },
  community: { title: '9. MyAnimeList-scale community: lists, reviews, random picks, edits under contention, jobs', run: communitySection, needsRuntime: true },
  import: { title: '10. First start: the real catalogue imported before `listening`', run: () => importSection(), needsRuntime: false },
  fuzz: { title: '11. Fuzz: every operation with broken input (no 5xx, problem documents, nothing stored by a refused request)', run: fuzzSection, needsRuntime: true },
  load: { title: '12. Load: mixed reads and writes over the community store vs a bare GetItem server', run: loadSection, needsRuntime: true },
  cost: { title: '13. What it costs to run on AWS: per million requests and per month', run: costSection, needsRuntime: true },
  consumers: { title: '14. Stream consumers: lag of reverse views under churn, deliveries per record, write fan-out at the maxima', run: consumersSection, needsRuntime: true },
  feed: { title: '15. Change feed: lag from a write to its entry, cost per write, read cost per page', run: feedSection, needsRuntime: true },
};

async function main(): Promise<number> {
  let opts: BenchOptions | 'help';
  try {
    opts = parseOptions(process.argv.slice(2));
  } catch (err) {
    console.error((err as Error).message);
    return 2;
  }
  if (opts === 'help') {
    console.log(USAGE);
    return 0;
  }
  const started = Date.now();
  const loadAtStart = loadavg();
  let env: BenchEnv | null = null;
  const stop = async () => {
    const e = env;
    env = null;
    await e?.stop();
  };
  const onSignal = (signal: NodeJS.Signals) => {
    console.error(`\n${signal}: stopping the local runtime…`);
    void stop().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  const results: SectionResult[] = [];
  try {
    if (opts.sections.some((s) => SECTION_RUNNERS[s].needsRuntime)) {
      console.log('Starting DynamoDB Local, the emulators and the local gateway…');
      // The catalogue section keeps DynamoDB's files (DATA_DIR) so that its loaded catalogue is reused.
      // So do the community, load and cost sections when DATA_DIR is given (else DynamoDB Local runs in memory).
      const keep = opts.sections.includes('catalogue') || (opts.sections.some((s) => s === 'community' || s === 'load' || s === 'cost') && opts.keepCommunity);
      env = await startBenchEnv(keep ? { dataDir: opts.dataDir } : {});
    }
    for (const name of opts.sections) {
      const { title, run, needsRuntime } = SECTION_RUNNERS[name];
      console.log(`\n▶ ${title}`);
      const t0 = Date.now();
      try {
        if (needsRuntime && !env) throw new Error('the local runtime is not running');
        const r = await run(env as BenchEnv, opts);
        results.push({ ...r, name, title, seconds: (Date.now() - t0) / 1000 });
      } catch (err) {
        console.error(`  ${name} failed:`, err);
        results.push({ name, title, method: [], body: '', budgets: [], summary: [`${name}: FAILED (${(err as Error).message})`], error: (err as Error).message, seconds: (Date.now() - t0) / 1000 });
      }
      env?.sdk.take();
      for (const line of results.at(-1)!.summary) console.log(`  ${line}`);
    }
  } finally {
    await stop();
  }

  writeFileSync(opts.out, renderReport(opts, results, environmentFacts(loadAtStart)));
  const budgets = results.flatMap((r) => r.budgets);
  const over = budgets.filter((b) => b.ok === false);
  console.log(`\nReport: ${opts.out} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  console.log(`Budgets: ${budgets.filter((b) => b.ok === true).length} ok, ${over.length} over${over.length ? `: ${over.map((b) => b.name).join('; ')}` : ''}`);
  return results.some((r) => r.error) ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);

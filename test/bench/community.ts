/**
 * The `community` section (issue 8): a catalogue of MyAnimeList's title counts (lean titles,
 * catalogue-data.ts) and its community (community-data.ts: users, list items, reviews, helpful
 * votes), loaded by the bulk loaders into a table of its own — in memory, or kept in DATA_DIR
 * when it is given (`community-manifest.json`; a later run with the same scale, seed and date
 * skips the load) — then, through the local API Gateway:
 *  - the DynamoDB calls, read and write units and items read of one request of every community
 *    route (lists and items, stats, reviews, votes, top reviews, users' reviews, seasons, the
 *    schedule, random picks), on a heavy and a median user, a popular and a quiet title;
 *  - random picks: calls per pick and latency (p50/p99) per kind;
 *  - list-edit and helpful-vote latency (p50/p99) with concurrent editors on one popular title
 *    (one review) and spread over quiet titles (reviews);
 *  - the jobs harness: each job of functions/jobs/registry.ts named in JOB_NAMES that this branch
 *    declares is run once on the loaded store (wall time, DynamoDB read and write calls and units,
 *    peak RSS and heap); the others are reported as absent.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ScheduledEvent } from 'aws-lambda';
import { JOBS } from '../../functions/jobs/registry.js';
import { lambdaContext, loadHandler } from '../../infra/local/functions.js';
import { scheduledEvent } from '../../infra/local/scheduler.js';
import { hashPassword } from '../../shared/auth/passwords.js';
import { signToken } from '../../shared/auth/tokens.js';
import type { BaseRecord } from '../../shared/db/records.js';
import { catalogue, SCALES, type Catalogue, type Kind, type ScaleName } from './catalogue-data.js';
import { freshTable, tableExists } from './catalogue.js';
import { community, COMMUNITY_SCALES, type Community, type TitleKind } from './community-data.js';
import { benchStamps, LOADABLE_KINDS, loadCatalogue, type LoadReport } from './load-catalogue.js';
import { migrateStore } from '../../shared/domain/migrations.js';
import { communityIds, loadCommunity, type CommunityLoadReport, type TitleLookup } from './load-community.js';
import type { BenchEnv } from './local.js';
import type { BenchOptions } from './options.js';
import type { BudgetCheck, SectionBody } from './report.js';
import { describeCall, WRITES, type SdkCall } from './sdk-calls.js';
import { int, median, percentile, table, timed } from './stats.js';

/** The jobs this section runs when the registry declares them (rankings and recommendations come with their branches). */
export const JOB_NAMES = ['rankings', 'recommendations', 'cleanup'] as const;

/** Raised when the loaders write other items (a kept store of an older loader is loaded again). */
const COMMUNITY_LOADER_VERSION = 2;
const BENCH_PASSWORD = 'Bench-community-password-1';

/** The catalogue under the community: MyAnimeList's title counts, lean titles; few persons and characters, no news. */
export function communityCatalogue(scale: ScaleName, seed: number, today: string): Catalogue {
  return catalogue({ scale: { ...SCALES[scale], person: SCALES.small.person, character: SCALES.small.character, news: 0 }, seed, today, lean: true });
}

interface Manifest {
  [table: string]: { loader: number; scale: string; seed: number; today: string; sizes: object; loadedAt: string; catalogue: LoadReport; community: CommunityLoadReport };
}
const manifestFile = (dir: string) => join(dir, 'community-manifest.json');

export interface Store {
  cat: Catalogue;
  comm: Community;
  catalogueReport: LoadReport;
  report: CommunityLoadReport;
  reused: boolean;
  kept: boolean;
  /** Title ids by kind and index. */
  titleId: (kind: TitleKind, i: number) => string;
}

export async function ensureStore(env: BenchEnv, opts: BenchOptions, tableName: string, kept: boolean): Promise<Store> {
  const manifest: Manifest = kept && existsSync(manifestFile(opts.dataDir)) ? (JSON.parse(readFileSync(manifestFile(opts.dataDir), 'utf8')) as Manifest) : {};
  const entry = manifest[tableName];
  const today = opts.today ?? entry?.today ?? new Date().toISOString().slice(0, 10);
  const cat = communityCatalogue(opts.scale, opts.seed, today);
  const comm = community(cat, COMMUNITY_SCALES[opts.scale]);
  const sizes = { catalogue: cat.sizes, community: comm.sizes };
  const stamp = benchStamps(cat, LOADABLE_KINDS);
  const titleId = (kind: TitleKind, i: number) => stamp(kind, i).id;
  if (entry && entry.loader === COMMUNITY_LOADER_VERSION && entry.today === today && JSON.stringify(entry.sizes) === JSON.stringify(sizes) && (await tableExists(env, tableName))) {
    // A store kept by an earlier version of the code is brought to this one, as `npm start` does.
    await migrateStore();
    return { cat, comm, catalogueReport: entry.catalogue, report: entry.community, reused: true, kept, titleId };
  }
  await freshTable(env, tableName);
  console.log(`  loading the ${opts.scale} community (seed ${opts.seed}, ${today}) into ${tableName}${kept ? ` in ${opts.dataDir}` : ' (in memory)'}…`);
  const records: Record<TitleKind, Record<string, unknown>[]> = { anime: [], manga: [] };
  const catalogueReport = await loadCatalogue({
    cat,
    onRecord: (kind: Kind, i, r: BaseRecord) => {
      // What a list item needs of its title (its name; the bounds of its progress).
      if (kind === 'anime' || kind === 'manga') {
        const rec = r as unknown as Record<string, unknown>;
        records[kind][i] = { id: r.id, name: rec.name, episodes: rec.episodes, chapters: rec.chapters, volumes: rec.volumes };
      }
    },
    onProgress: (line) => console.log(line),
  });
  const titles: TitleLookup = (kind, i) => ({ id: String(records[kind][i]!.id), rec: records[kind][i]! });
  const report = await loadCommunity({ comm, titles, passwordHash: await hashPassword(BENCH_PASSWORD), onProgress: (line) => console.log(line) });
  console.log(`  community: ${report.written.total} items in ${report.seconds.toFixed(0)} s (${int(report.itemsPerSecond)}/s)`);
  if (kept) {
    manifest[tableName] = { loader: COMMUNITY_LOADER_VERSION, scale: opts.scale, seed: opts.seed, today, sizes, loadedAt: new Date().toISOString(), catalogue: catalogueReport, community: report };
    writeFileSync(manifestFile(opts.dataDir), `${JSON.stringify(manifest, null, 2)}\n`);
  }
  return { cat, comm, catalogueReport, report, reused: false, kept, titleId };
}

// ---- Measuring requests

interface Measured {
  route: string;
  subject: string;
  status: number;
  calls: number;
  ops: string;
  readUnits: number;
  writeUnits: number;
  itemsRead: number;
  ms: number;
}

const sum = (calls: SdkCall[], f: (c: SdkCall) => number | undefined) => calls.reduce((n, c) => n + (f(c) ?? 0), 0);
const dynamo = (calls: SdkCall[]) => calls.filter((c) => c.service === 'dynamodb');

function opsOf(calls: SdkCall[]): string {
  const counts = new Map<string, number>();
  for (const c of calls) counts.set(describeCall(c), (counts.get(describeCall(c)) ?? 0) + 1);
  return [...counts].map(([op, n]) => (n > 1 ? `${n}× ${op}` : op)).join(', ');
}

async function token(id: string): Promise<Record<string, string>> {
  return { authorization: `Bearer ${(await signToken('access', { id, token_version: 0 })).token}` };
}

export async function communitySection(env: BenchEnv, opts: BenchOptions): Promise<SectionBody> {
  const tableName = `bench-community-${opts.scale}-s${opts.seed}`;
  const previous = process.env.TABLE_NAME;
  process.env.TABLE_NAME = tableName;
  const kept = opts.keepCommunity;
  try {
    const t = await timed(() => ensureStore(env, opts, tableName, kept));
    const store = t.value;
    env.sdk.measureCapacity = true;
    // The jobs first: the top lists and recommendations measured below are what they made.
    const jobs = await jobsHarness(env);
    const requests = await routeCalls(env, store);
    const random = await randomPicks(env, opts.quick ? 30 : 200);
    const contention = await editLatency(env, store, opts.quick ? 5 : 25);
    return render(opts, store, t.ms, requests, random, contention, jobs);
  } finally {
    env.sdk.measureCapacity = false;
    process.env.TABLE_NAME = previous;
  }
}

/** The subjects of the requests: users and titles of the generated community. */
function subjects(store: Store) {
  const { comm } = store;
  const ids = communityIds(comm.seed);
  const counts = [...comm.counts.entries()];
  const heavy = counts.reduce((a, b) => (b[1] > a[1] ? b : a))[0];
  const byCount = counts.filter(([, n]) => n > 0).sort((a, b) => a[1] - b[1] || a[0] - b[0]);
  const med = byCount[byCount.length >> 1]![0];
  const popular = (kind: TitleKind) => comm.popular(kind)[0]!;
  const quiet = (kind: TitleKind) => comm.popular(kind)[Math.floor(comm.popular(kind).length * 0.9)]!;
  // Reviews of the first reviews drawn: the one on the most popular title and one on a quiet one; the author with the most reviews.
  const sample = Array.from({ length: Math.min(comm.sizes.reviews, 3000) }, (_, j) => comm.review(j));
  const rank = (r: { kind: TitleKind; title: number }) => comm.popular(r.kind).indexOf(r.title);
  const popularReview = sample.reduce((a, b) => (rank(b) < rank(a) || (rank(b) === rank(a) && b.voters.length > a.voters.length) ? b : a));
  const quietReview = sample.reduce((a, b) => (rank(b) > rank(a) ? b : a));
  const authors = new Map<number, number>();
  for (const r of sample) authors.set(r.user, (authors.get(r.user) ?? 0) + 1);
  const topAuthor = [...authors].reduce((a, b) => (b[1] > a[1] ? b : a))[0];
  return { ids, heavy, med, popular, quiet, popularReview, quietReview, topAuthor, sample };
}

async function routeCalls(env: BenchEnv, store: Store): Promise<Measured[]> {
  const { comm, titleId } = store;
  const s = subjects(store);
  const out: Measured[] = [];
  const measure = async (route: string, subject: string, method: string, path: string, o: { user?: number; body?: unknown; expect?: number; repeat?: number } = {}) => {
    const headers = o.user === undefined ? {} : await token(s.ids.user(o.user));
    // Warm the function, then measure (GETs: the median of `repeat` times; calls of the first).
    if (method === 'GET') await env.http.request(method, path, { headers });
    env.sdk.take();
    const t0 = performance.now();
    const res = await env.http.request(method, path, { headers, body: o.body });
    const ms = performance.now() - t0;
    const calls = dynamo(env.sdk.take());
    const times = [ms];
    for (let i = 1; i < (method === 'GET' ? (o.repeat ?? 5) : 1); i++) times.push((await timed(() => env.http.request(method, path, { headers }))).ms);
    env.sdk.take();
    if (res.status !== (o.expect ?? (method === 'POST' ? 201 : method === 'DELETE' ? 204 : 200))) throw new Error(`${method} ${path}: ${res.status} ${res.text.slice(0, 300)}`);
    out.push({
      route,
      subject,
      status: res.status,
      calls: calls.length,
      ops: opsOf(calls),
      readUnits: sum(calls, (c) => c.capacity),
      writeUnits: sum(calls, (c) => c.writeCapacity),
      itemsRead: sum(calls, (c) => c.itemsRead),
      ms: median(times),
    });
    return res.text ? (JSON.parse(res.text) as Record<string, unknown>) : {};
  };
  const users = [
    ['heavy user', s.heavy],
    ['median user', s.med],
  ] as const;
  for (const [label, u] of users) {
    const n = comm.counts[u]!;
    await measure('GET /api/playlists/animelist/', `${label} (${n} items)`, 'GET', '/api/playlists/animelist/', { user: u });
    for (const q of ['', '?status=completed', '?ordering=-score', '?ordering=name', '?limit=100']) {
      await measure(`GET /api/playlists/animelist/animes/${q}`, `${label} (${n} items)`, 'GET', `/api/playlists/animelist/animes/${q}`, { user: u });
    }
    await measure('GET /api/playlists/mangalist/mangas/', `${label} (${n} items)`, 'GET', '/api/playlists/mangalist/mangas/', { user: u });
    // An item added (a title not on the list yet), changed, deleted.
    const listed = new Set(comm.items(u).filter((i) => i.kind === 'anime').map((i) => i.title));
    for (const [titleLabel, t] of [
      ['popular', comm.popular('anime').find((x) => !listed.has(x))!],
      ['quiet', [...comm.popular('anime')].reverse().find((x) => !listed.has(x))!],
    ] as const) {
      const subject = `${label}, ${titleLabel} anime`;
      const created = await measure('POST /api/playlists/animelist/animes/', subject, 'POST', '/api/playlists/animelist/animes/', { user: u, body: { anime_id: titleId('anime', t), status: 'watching', score: 7 } });
      const item = `/api/playlists/animelist/animes/${String(created.id)}/`;
      await measure('PATCH …/animes/{item_id}/ (score, status)', subject, 'PATCH', item, { user: u, body: { score: 9, status: 'completed' } });
      await measure('DELETE …/animes/{item_id}/', subject, 'DELETE', item, { user: u });
    }
  }
  for (const [label, t] of [
    ['popular', s.popular('anime')],
    ['quiet', s.quiet('anime')],
  ] as const) {
    await measure('GET /api/animes/{id}/stats/', `${label} anime`, 'GET', `/api/animes/${titleId('anime', t)}/stats/`);
  }
  for (const [label, t] of [
    ['popular', s.popular('manga')],
    ['quiet', s.quiet('manga')],
  ] as const) {
    await measure('GET /api/mangas/{id}/stats/', `${label} manga`, 'GET', `/api/mangas/${titleId('manga', t)}/stats/`);
  }
  for (const [label, r] of [
    ['popular title', s.popularReview],
    ['quiet title', s.quietReview],
  ] as const) {
    const seg = r.kind === 'anime' ? 'animes' : 'mangas';
    const base = `/api/${seg}/${titleId(r.kind, r.title)}/reviews/`;
    await measure(`GET /api/${seg}/{id}/reviews/`, `${label}`, 'GET', base);
    await measure(`GET /api/${seg}/{id}/reviews/?ordering=-helpful_count`, `${label}`, 'GET', `${base}?ordering=-helpful_count`);
    // A review written by a user who has none on the title, edited, voted on, deleted.
    const author = [...Array(comm.sizes.users).keys()].find((u) => u !== r.user && !s.sample.some((x) => x.user === u && x.title === r.title && x.kind === r.kind))!;
    const voter = [...Array(comm.sizes.users).keys()].find((u) => u !== author)!;
    const created = await measure(`POST /api/${seg}/{id}/reviews/create/`, label, 'POST', `${base}create/`, { user: author, body: { rating: 8, comment: 'A benchmark review, long enough to be accepted by the rules.', tags: ['recommended'] } });
    const review = `${base}${String(created.id)}/`;
    await measure(`PATCH /api/${seg}/{id}/reviews/{id}/ (author's edit)`, label, 'PATCH', review, { user: author, body: { rating: 9 } });
    await measure(`PATCH /api/${seg}/{id}/reviews/{id}/ (vote)`, label, 'PATCH', review, { user: voter, body: { helpful: true } });
    await measure(`DELETE /api/${seg}/{id}/reviews/{id}/`, label, 'DELETE', review, { user: author });
    // An existing review voted on (and the vote withdrawn): its top entry moves.
    const existing = `${base}${s.ids.review(r.index)}/`;
    const other = [...Array(comm.sizes.users).keys()].find((u) => u !== r.user && !r.voters.some((v) => v.user === u))!;
    await measure(`PATCH /api/${seg}/{id}/reviews/{id}/ (vote, ${r.voters.length} votes)`, label, 'PATCH', existing, { user: other, body: { helpful: true } });
    await measure(`PATCH /api/${seg}/{id}/reviews/{id}/ (vote withdrawn)`, label, 'PATCH', existing, { user: other, body: { helpful: false } });
  }
  for (const q of ['', '?kind=anime', '?spoilers=false', '?kind=manga&spoilers=false']) await measure(`GET /api/top/reviews/${q}`, `${int(comm.sizes.reviews)} reviews`, 'GET', `/api/top/reviews/${q}`);
  const reviewsOf = (u: number) => s.sample.filter((r) => r.user === u).length;
  await measure('GET /api/users/{username}/reviews/', `most reviews in the sample (${reviewsOf(s.topAuthor)})`, 'GET', `/api/users/${comm.user(s.topAuthor).username}/reviews/`);
  await measure('GET /api/users/{username}/reviews/', 'median user', 'GET', `/api/users/${comm.user(s.med).username}/reviews/`);
  await measure('GET /api/users/{username}/about/', 'median user', 'GET', `/api/users/${comm.user(s.med).username}/about/`);
  const year = Number(store.cat.today.slice(0, 4));
  for (const [path, label] of [
    ['/api/seasons/now/', 'now'],
    ['/api/seasons/upcoming/', 'upcoming'],
    [`/api/seasons/${year - 1}/fall/`, `${year - 1} fall`],
    [`/api/seasons/${year - 1}/fall/?ordering=-score`, `${year - 1} fall by score`],
    ['/api/schedules/', 'the week'],
    ['/api/schedules/?day=monday', 'monday'],
  ] as const) {
    await measure(`GET ${path.replace(/\d{4}\/fall/, '{year}/{season}')}`, label, 'GET', path, { expect: 200 });
  }
  for (const kind of ['anime', 'manga', 'character', 'person']) await measure(`GET /api/random/${kind}/`, `${int(store.cat.sizes[kind as Kind])} ${kind}s`, 'GET', `/api/random/${kind}/`);
  // What the jobs make (communitySection runs them before these requests).
  for (const q of ['', '?filter=airing', '?filter=bypopularity', '?filter=favorite', '?media_type=movie']) await measure(`GET /api/top/animes/${q}`, 'the last rankings run', 'GET', `/api/top/animes/${q}`);
  for (const q of ['', '?filter=publishing']) await measure(`GET /api/top/mangas/${q}`, 'the last rankings run', 'GET', `/api/top/mangas/${q}`);
  for (const path of ['/api/top/characters/', '/api/top/artists/', '/api/characters/members/']) await measure(`GET ${path}`, 'the last rankings run', 'GET', path);
  for (const [label, t] of [['popular', s.popular('anime')], ['quiet', s.quiet('anime')]] as const) {
    await measure('GET /api/animes/{id}/recommendations/', `${label} anime`, 'GET', `/api/animes/${titleId('anime', t)}/recommendations/`);
  }
  await measure('GET /api/mangas/{id}/recommendations/', 'popular manga', 'GET', `/api/mangas/${titleId('manga', s.popular('manga'))}/recommendations/`);
  for (const [label, u] of [['anonymous', undefined], ['heavy user', s.heavy], ['median user', s.med]] as const) {
    await measure('GET /api/recommendations/anime/', label, 'GET', '/api/recommendations/anime/', u === undefined ? {} : { user: u });
    await measure('GET /api/home/', label, 'GET', '/api/home/', u === undefined ? {} : { user: u });
  }
  await measure('GET /api/recommendations/manga/', 'median user', 'GET', '/api/recommendations/manga/', { user: s.med });
  return out;
}

interface RandomStats {
  kind: string;
  records: number;
  picks: number;
  maxCalls: number;
  minCalls: number;
  meanCalls: number;
  p50: number;
  p99: number;
}

async function randomPicks(env: BenchEnv, picks: number): Promise<RandomStats[]> {
  const out: RandomStats[] = [];
  for (const kind of ['anime', 'manga', 'character', 'person']) {
    await env.http.expect(200, 'GET', `/api/random/${kind}/`);
    env.sdk.take();
    const times: number[] = [];
    const calls: number[] = [];
    for (let i = 0; i < picks; i++) {
      times.push((await timed(() => env.http.expect(200, 'GET', `/api/random/${kind}/`))).ms);
      calls.push(dynamo(env.sdk.take()).length);
    }
    const counter = await env.http.expect<{ count: number }>(200, 'GET', `/api/${kind === 'person' ? 'persons' : `${kind}s`}/?limit=1`);
    env.sdk.take();
    out.push({ kind, records: counter.json.count, picks, maxCalls: Math.max(...calls), minCalls: Math.min(...calls), meanCalls: calls.reduce((a, b) => a + b, 0) / calls.length, p50: percentile(times, 50), p99: percentile(times, 99) });
  }
  return out;
}

interface Contention {
  what: string;
  editors: number;
  samples: number;
  p50: number;
  p99: number;
  max: number;
  retries: number;
  failures: number;
}

/**
 * Concurrent editors: `editors` users each PATCH their item of one popular title (the title's
 * counters are one item: the transactions conflict) or of a quiet title each; `rounds` times.
 * Votes likewise: `editors` users vote on one review (yes, then withdraw) or each on its own.
 */
async function editLatency(env: BenchEnv, store: Store, rounds: number): Promise<Contention[]> {
  const { comm, titleId } = store;
  const ids = communityIds(comm.seed);
  const EDITORS = 8;
  const popularAnime = comm.popular('anime')[0]!;
  const quietFloor = Math.floor(comm.popular('anime').length * 0.5);
  const rankOf = new Map([...comm.popular('anime')].map((t, r) => [t, r]));
  const onPopular: { user: number; item: number }[] = [];
  const onQuiet: { user: number; item: number }[] = [];
  const quietTitles = new Set<number>();
  for (let u = 0; u < comm.sizes.users && (onPopular.length < EDITORS || onQuiet.length < EDITORS); u++) {
    for (const [k, it] of comm.items(u).entries()) {
      if (it.kind !== 'anime') continue;
      if (it.title === popularAnime && onPopular.length < EDITORS) onPopular.push({ user: u, item: k });
      else if (rankOf.get(it.title)! >= quietFloor && !quietTitles.has(it.title) && onQuiet.length < EDITORS && !onQuiet.some((e) => e.user === u)) {
        quietTitles.add(it.title);
        onQuiet.push({ user: u, item: k });
      }
    }
  }
  const run = async (what: string, editors: { headers: Record<string, string>; path: string; bodies: unknown[] }[]): Promise<Contention> => {
    const times: number[] = [];
    let failures = 0;
    env.sdk.take();
    for (let round = 0; round < rounds; round++) {
      await Promise.all(
        editors.map(async (e) => {
          for (const body of e.bodies) {
            const t = await timed(() => env.http.request('PATCH', e.path, { headers: e.headers, body }));
            if (t.value.status === 200) times.push(t.ms);
            else failures++;
          }
        }),
      );
    }
    const retries = dynamo(env.sdk.take()).filter((c) => WRITES.has(c.operation)).length - times.length;
    return { what, editors: editors.length, samples: times.length, p50: percentile(times, 50), p99: percentile(times, 99), max: Math.max(...times), retries: Math.max(0, retries), failures };
  };
  const itemEditors = async (list: { user: number; item: number }[]) =>
    Promise.all(
      list.map(async ({ user, item }) => ({
        headers: await token(ids.user(user)),
        path: `/api/playlists/animelist/animes/${ids.item(user, item)}/`,
        bodies: [{ score: 10, is_favorite: true }, { score: 6, is_favorite: false }],
      })),
    );
  const out: Contention[] = [];
  out.push(await run('list edit, the most popular anime (one title: its counters conflict)', await itemEditors(onPopular)));
  out.push(await run('list edit, quiet animes (one title each)', await itemEditors(onQuiet)));
  // Votes: reviews of the sample; voters who have not voted on them.
  const sample = Array.from({ length: Math.min(comm.sizes.reviews, 3000) }, (_, j) => comm.review(j));
  const popularReview = sample.reduce((a, b) => (b.voters.length > a.voters.length ? b : a));
  const voterOf = (r: (typeof sample)[number], n: number) => {
    const taken = new Set([r.user, ...r.voters.map((v) => v.user)]);
    const out: number[] = [];
    for (let u = comm.sizes.users - 1; u >= 0 && out.length < n; u--) if (!taken.has(u)) out.push(u);
    return out;
  };
  const reviewPath = (r: (typeof sample)[number]) => `/api/${r.kind === 'anime' ? 'animes' : 'mangas'}/${titleId(r.kind, r.title)}/reviews/${ids.review(r.index)}/`;
  const votes = [{ helpful: true }, { helpful: false }];
  const oneReview = await Promise.all(voterOf(popularReview, EDITORS).map(async (u) => ({ headers: await token(ids.user(u)), path: reviewPath(popularReview), bodies: votes })));
  out.push(await run(`helpful vote, one review (${popularReview.voters.length} votes)`, oneReview));
  const spread = await Promise.all(sample.slice(0, EDITORS).map(async (r) => ({ headers: await token(ids.user(voterOf(r, 1)[0]!)), path: reviewPath(r), bodies: votes })));
  out.push(await run('helpful vote, one review each', spread));
  return out;
}

interface JobRun {
  name: string;
  declared: boolean;
  seconds?: number;
  reads?: number;
  writes?: number;
  readUnits?: number;
  writeUnits?: number;
  itemsRead?: number;
  itemsWritten?: number;
  peakRss?: number;
  peakHeap?: number;
  error?: string;
  ops?: string;
}

/** Runs each job of JOB_NAMES that the registry declares, once, as EventBridge would, measuring it. */
export async function jobsHarness(env: BenchEnv): Promise<JobRun[]> {
  const out: JobRun[] = [];
  for (const name of JOB_NAMES) {
    const job = JOBS.find((j) => j.name === name);
    if (!job) {
      out.push({ name, declared: false });
      continue;
    }
    env.sdk.take();
    global.gc?.();
    let peakRss = process.memoryUsage().rss;
    let peakHeap = process.memoryUsage().heapUsed;
    const sampler = setInterval(() => {
      const m = process.memoryUsage();
      peakRss = Math.max(peakRss, m.rss);
      peakHeap = Math.max(peakHeap, m.heapUsed);
    }, 50);
    const t0 = performance.now();
    let error: string | undefined;
    try {
      const handler = await loadHandler<ScheduledEvent, unknown>(job.entry);
      await handler(scheduledEvent(job, new Date()), lambdaContext(`job.${name}`));
    } catch (err) {
      error = (err as Error).message;
    } finally {
      clearInterval(sampler);
    }
    const seconds = (performance.now() - t0) / 1000;
    const calls = dynamo(env.sdk.take());
    const writes = calls.filter((c) => WRITES.has(c.operation));
    const reads = calls.filter((c) => !WRITES.has(c.operation));
    const written = (c: SdkCall) =>
      c.operation === 'BatchWriteItem'
        ? Object.values((c.input.RequestItems ?? {}) as Record<string, unknown[]>).reduce((n, r) => n + r.length, 0)
        : c.operation === 'TransactWriteItems'
          ? (c.input.TransactItems as unknown[]).length
          : 1;
    out.push({
      name,
      declared: true,
      seconds,
      reads: reads.length,
      writes: writes.length,
      readUnits: sum(reads, (c) => c.capacity),
      writeUnits: sum(writes, (c) => c.writeCapacity),
      itemsRead: sum(reads, (c) => c.itemsRead),
      itemsWritten: writes.reduce((n, c) => n + written(c), 0),
      peakRss,
      peakHeap,
      ops: opsOf(calls),
      ...(error ? { error } : {}),
    });
  }
  return out;
}

const mb = (b: number | undefined) => (b === undefined ? '' : `${int(b / 1024 / 1024)} MB`);

function render(opts: BenchOptions, store: Store, loadMs: number, requests: Measured[], random: RandomStats[], contention: Contention[], jobs: JobRun[]): SectionBody {
  const { comm, cat, report, catalogueReport } = store;
  const maxFirstCalls = (prefix: string) => Math.max(0, ...requests.filter((r) => r.route.startsWith(prefix)).map((r) => r.calls));
  const failedJobs = jobs.filter((j) => j.error);
  const budgets: BudgetCheck[] = [
    {
      name: 'Random pick: DynamoDB calls per pick (most / fewest of all picks of a kind)',
      measured: random.map((r) => `${r.kind} ${r.maxCalls} / ${r.minCalls}`).join(', '),
      limit: 'the same for every pick (counter, slot, then the detail read: a character or person also queries its partition)',
      ok: random.every((r) => r.maxCalls === r.minCalls),
    },
    { name: 'Random pick latency p50 / p99', measured: random.map((r) => `${r.kind} ${r.p50.toFixed(1)} / ${r.p99.toFixed(1)} ms`).join('; '), limit: '—', ok: null },
    { name: 'List items page: DynamoDB calls (heavy user)', measured: String(maxFirstCalls('GET /api/playlists/animelist/animes/')), limit: '—', ok: null },
    ...contention.map((c) => ({ name: `Latency p50 / p99, ${c.what}, ${c.editors} concurrent`, measured: `${c.p50.toFixed(1)} / ${c.p99.toFixed(1)} ms (${c.failures} failed, ${c.retries} extra write calls)`, limit: 'no failures', ok: c.failures === 0 })),
    ...jobs.map((j) => ({
      name: `Job ${j.name}`,
      measured: !j.declared ? 'not declared on this branch (skipped)' : j.error ? `FAILED: ${j.error}` : `${j.seconds!.toFixed(1)} s, ${int(j.reads!)} reads (${int(j.readUnits!)} RCU), ${int(j.writes!)} writes (${int(j.writeUnits!)} WCU), peak RSS ${mb(j.peakRss)}`,
      limit: '—',
      ok: j.declared ? !j.error : null,
    })),
    { name: 'Community load (items/s)', measured: `${int(report.itemsPerSecond)} items/s, ${int(report.written.total)} items in ${report.seconds.toFixed(0)} s${store.reused ? ' (kept store: loaded before)' : ''}`, limit: '—', ok: null },
  ];
  const body = [
    `Scale \`${opts.scale}\`, seed ${opts.seed}, today ${cat.today}: ${int(cat.sizes.anime)} animes and ${int(cat.sizes.manga)} mangas (lean: no casts, staff or authors), ${int(cat.sizes.character)} characters, ${int(cat.sizes.person)} persons; ${int(comm.sizes.users)} users, ${int(report.items)} list items (most on one user: ${int(Math.max(...comm.counts))}), ${int(report.reviews)} reviews, ${int(report.votes)} helpful votes. Store: ${store.kept ? `kept in \`${opts.dataDir}\`` : 'DynamoDB Local in memory'}${store.reused ? ' (found: loading skipped)' : ''}; ready in ${(loadMs / 1000).toFixed(0)} s.`,
    '',
    '### Load',
    '',
    table(
      ['Part', 'Items', 'Seconds', 'Items/s'],
      [
        ['catalogue (lean titles)', int(catalogueReport.items), catalogueReport.seconds.toFixed(0), int(catalogueReport.itemsPerSecond)],
        ['community: puts (accounts, items, vectors, claims, postings, reviews, votes)', int(report.written.puts), '', ''],
        ['community: aggregates (lists with counts, review counts, counters)', int(report.written.aggregates), '', ''],
        ['community: title records with their `st_*` counters', int(report.written.titles), '', ''],
        ['**community total**', int(report.written.total), report.seconds.toFixed(0), int(report.itemsPerSecond)],
      ],
    ),
    '',
    '### DynamoDB calls per request',
    '',
    'One request each (the function warmed first); read units as DynamoDB Local reports them (consumed capacity), write units likewise; latency the median of 5 for GETs, one request for writes.',
    '',
    table(
      ['Route', 'Subject', 'Calls', 'Operations', 'Read units', 'Write units', 'Items read', 'Latency'],
      requests.map((r) => [r.route, r.subject, r.calls, r.ops, r.readUnits.toFixed(1), r.writeUnits.toFixed(1), int(r.itemsRead), `${r.ms.toFixed(1)} ms`]),
    ),
    '',
    '### Random picks',
    '',
    table(['Kind', 'Records', 'Picks', 'Calls per pick (max / mean)', 'p50', 'p99'], random.map((r) => [r.kind, int(r.records), r.picks, `${r.maxCalls} / ${r.meanCalls.toFixed(2)}`, `${r.p50.toFixed(1)} ms`, `${r.p99.toFixed(1)} ms`])),
    '',
    '### List edits and helpful votes with concurrent editors',
    '',
    table(['Write', 'Concurrent', 'Samples', 'p50', 'p99', 'max', 'Failed', 'Extra write calls (retries)'], contention.map((c) => [c.what, c.editors, c.samples, `${c.p50.toFixed(1)} ms`, `${c.p99.toFixed(1)} ms`, `${c.max.toFixed(1)} ms`, c.failures, c.retries])),
    '',
    '### Jobs on the loaded store',
    '',
    table(
      ['Job', 'Wall time', 'Read calls', 'Read units', 'Items read', 'Write calls', 'Write units', 'Items written', 'Peak RSS', 'Peak heap', 'Calls'],
      jobs.map((j) =>
        j.declared
          ? [j.name + (j.error ? ` (FAILED: ${j.error})` : ''), `${j.seconds!.toFixed(2)} s`, int(j.reads!), int(j.readUnits!), int(j.itemsRead!), int(j.writes!), int(j.writeUnits!), int(j.itemsWritten!), mb(j.peakRss), mb(j.peakHeap), (j.ops ?? '').slice(0, 200)]
          : [j.name, 'not declared on this branch: skipped', '', '', '', '', '', '', '', '', ''],
      ),
    ),
  ].join('\n');
  return {
    method: [
      'The catalogue (catalogue-data.ts, `lean`) and the community (community-data.ts) are written by the bulk loaders (load-catalogue.ts, load-community.ts: the API\'s own plans; counters added up in memory and written once) into their own table, in memory or kept in DATA_DIR.',
      'Requests go through the local gateway as generated users (access tokens signed for them); DynamoDB calls, consumed read and write capacity and items read come from the SDK recorder (sdk-calls.ts).',
      `Jobs: those of ${JOB_NAMES.join(', ')} that functions/jobs/registry.ts declares, run in this process with a scheduled event; memory sampled every 50 ms.`,
    ],
    body,
    budgets,
    summary: [
      `community: ${int(comm.sizes.users)} users, ${int(report.items)} items, ${int(report.reviews)} reviews; ${requests.length} requests measured; random picks ≤ ${Math.max(...random.map((r) => r.maxCalls))} calls; jobs ${jobs.map((j) => `${j.name} ${j.declared ? (j.error ? 'FAILED' : `${j.seconds!.toFixed(1)} s`) : 'absent'}`).join(', ')}${failedJobs.length ? ' (failures)' : ''}`,
    ],
  };
}

/**
 * Per-request read ceilings (docs/data-model.md "Per-request read ceilings") at the sizes that
 * used to make a request read a whole partition: a genre of 3,000 animes, a producer credited by
 * 1,500 of them, a season of 2,000 animes (more than 1 MB of postings), a title with 2,500
 * reviews, a user with 2,000, a person authoring 1,500 mangas, an anime with 2,200 news articles,
 * home over that season, and the schedule of the 750 airing animes (a full schedule:
 * MyAnimeList's has 700–1,000: its entries come from the anime index, not from a read of them).
 * The catalogue and the community are written straight into the table by the bench's bulk loaders
 * (the items the API's writes leave, test/integration/bulk-load.test.ts), so the file stays fast.
 *
 * Every page of each list is requested through the API, each ordering both ways and each filter;
 * the DynamoDB calls each request makes are counted (the SDK middleware of test/bench/sdk-calls.ts,
 * with ReturnConsumedCapacity) and checked against the list's stated ceiling: the Queries, the
 * index items each reads, the keys read by BatchGetItem, the read units. The pages, followed by
 * `next`, must give exactly the records a brute-force evaluation of the contract gives (each once,
 * in order, `count` exact on every page), and `previous` from the last page the same backwards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { animeIndex, type AnimeRecord } from '../../shared/db/animes.js';
import { mangaIndex, type MangaRecord } from '../../shared/db/mangas.js';
import { newsIndex, type NewsRecord } from '../../shared/db/news.js';
import type { BaseRecord, Ordering } from '../../shared/db/records.js';
import { readBudget } from '../../shared/db/index-query.js';
import { searchNormalize } from '../../shared/text.js';
import { setClock } from '../../shared/clock.js';
import type { Catalogue, Kind } from '../bench/catalogue-data.js';
import type { Community, ReviewGen } from '../bench/community-data.js';
import { benchStamps, loadCatalogue } from '../bench/load-catalogue.js';
import { loadCommunity } from '../bench/load-community.js';
import { instrumentSdk, type SdkCall } from '../bench/sdk-calls.js';
import { expectProblem, send, type Sent } from '../support/contract.js';
import { compareCodePoints, contractOrder } from '../support/list-rules.js';
import { useServer } from '../support/server.js';

const server = useServer({ background: false });
const recorder = instrumentSdk();

// ---- The data: sizes past one read of index items (1,000 anime vectors, 1,333 manga vectors per MB)

const ANIMES = 3_000;
const MANGAS = 1_500;
/** Animes 0 … 1,999 air in fall 2024 (the season of the fixed clock): more than one Query page (1 MB) of postings. */
const FALL = 2_000;
/** Animes 2,000 … 2,029 air in winter 2025 (the upcoming season), most with equal `members`. */
const WINTER = 30;
/** Reviews of anime 0, one per user. */
const TITLE_REVIEWS = 2_500;
/** Reviews by user 0 of other titles: animes 1 … 1,200, mangas 0 … 799. */
const USER_REVIEWS = 2_000;
const TODAY = '2024-11-20';

const WORDS = 'alpha bravo charlie delta echo foxtrot golf hotel india juliett kilo lima mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu'.split(' ');
const pad = (n: number) => String(n).padStart(2, '0');
const ROLES = ['story', 'art', 'story_and_art'] as const;
const MEDIA = ['tv', 'movie', 'ova'] as const;

function animeAiredFrom(i: number): string | null {
  if (i < FALL) return `2024-${10 + (i % 3)}-${pad(1 + (i % 28))}`;
  if (i < FALL + WINTER) return `2025-${pad(1 + (i % 3))}-${pad(1 + (i % 28))}`;
  if (i % 50 === 7) return null;
  return `${2000 + (i % 24)}-${pad(1 + (i % 12))}-${pad(1 + (i % 28))}`;
}

/** The write bodies: genres G0 (every anime, every manga) and G1, producers P0 (studio) and P1 (licensor), persons A0 and A1. */
function body(kind: Kind, i: number): unknown {
  const ref = (k: Kind, index: number) => ({ ref: k, index });
  switch (kind) {
    case 'genre':
      return { name: `Bounded genre ${i}` };
    case 'producer':
      return { name: `Bounded producer ${i}`, type: i === 0 ? 'studio' : 'licensor' };
    case 'person':
      return { name: `Bounded author ${i}` };
    case 'anime':
      return {
        name: `${WORDS[(i * 7) % WORDS.length]} ${WORDS[i % WORDS.length]} ${i}`,
        aired_from: animeAiredFrom(i),
        media_type: MEDIA[i % 3],
        status: i % 4 === 0 ? 'airing' : i % 4 === 1 ? 'upcoming' : 'finished',
        ...(i % 4 === 0 && i % 9 !== 0 ? { broadcast: { day: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday', 'other'][i % 8], time: `${pad(i % 24)}:${pad((i * 7) % 60)}`, timezone: i % 3 === 0 ? 'America/New_York' : 'Asia/Tokyo' } } : {}),
        genre_ids: [ref('genre', 0), ...(i % 3 === 0 ? [ref('genre', 1)] : [])],
        studio_ids: i % 2 === 0 ? [ref('producer', 0)] : [],
        producer_ids: i % 3 === 0 ? [ref('producer', 0)] : [],
        licensor_ids: i % 5 === 0 ? [ref('producer', 1)] : [],
      };
    case 'manga':
      return {
        name: `${WORDS[(i * 11) % WORDS.length]} volume ${i}`,
        published_from: i % 20 === 3 ? null : `${1990 + (i % 30)}-${pad(1 + (i % 9))}-1${i % 9}`,
        genre_ids: [ref('genre', 0)],
        authors: [{ person_id: ref('person', 0), role: ROLES[i % 3] }, ...(i % 4 === 0 ? [{ person_id: ref('person', 1), role: 'art' }] : [])],
      };
    case 'news':
      return { name: `${WORDS[(i * 5) % WORDS.length]} bulletin ${i}`, content: 'Body.', tag: NEWS_TAGS[i % NEWS_TAGS.length], anime_ids: [ref('anime', 1)], manga_ids: i % 3 === 0 ? [ref('manga', 0)] : [] };
    default:
      throw new Error(`no ${kind} here`);
  }
}

/** News articles about anime 1 (a third of them also about manga 0): more than 1 MB of postings. */
const NEWS = 2_200;
const NEWS_TAGS = ['pending', 'new_anime', 'new_manga', 'spoiler', 'review', 'interview', 'event', 'recommendation'] as const;
const SIZES = { genre: 2, theme: 0, demographic: 0, producer: 2, magazine: 0, person: 2, character: 0, anime: ANIMES, manga: MANGAS, news: NEWS };
const cat = { seed: 18, sizes: SIZES, today: TODAY, body } as unknown as Catalogue;
const KINDS: Kind[] = ['genre', 'producer', 'person', 'anime', 'manga', 'news'];
const stamp = benchStamps(cat, KINDS);
const idOf = (kind: Kind, i: number) => stamp(kind, i).id;

/** What a rankings run would have left in the records (what the index orders by, K1): `members` with many ties, `score` with nulls. */
function numbers(kind: Kind, i: number, r: BaseRecord): BaseRecord {
  if (kind === 'anime') {
    // The upcoming season's animes mostly tie on members: home orders them by name.
    const members = i >= FALL && i < FALL + WINTER ? (i % 5 === 0 ? 40 : 3) : (i * 7919) % 500;
    return { ...r, members, score: i % 6 === 0 ? null : ((i * 37) % 1000) / 100 } as BaseRecord;
  }
  if (kind === 'manga') return { ...r, members: (i * 31) % 200 } as BaseRecord;
  return r;
}

const animes: AnimeRecord[] = [];
const mangas: MangaRecord[] = [];
const articles: NewsRecord[] = [];

// ---- The community: 2,500 users, each reviewing anime 0; user 0 also 2,000 other titles

const USERS = TITLE_REVIEWS;
const REVIEWS = TITLE_REVIEWS + USER_REVIEWS;
const COMMENT = 'A review long enough for the contract.';
const BASE = Date.parse('2024-06-01T00:00:00.000Z');

function review(j: number): ReviewGen {
  const other = j - TITLE_REVIEWS;
  const kind = j < TITLE_REVIEWS || other < 1_200 ? 'anime' : 'manga';
  const title = j < TITLE_REVIEWS ? 0 : kind === 'anime' ? other + 1 : other - 1_200;
  // Pairs of reviews share a creation time (ties by id); votes 0–4 (many ties).
  const voters = j < TITLE_REVIEWS ? Array.from({ length: j % 5 }, (_, v) => ({ user: (j + 1 + v) % USERS, at: new Date(BASE + 1e9 + j).toISOString() })) : [];
  return {
    index: j,
    user: j < TITLE_REVIEWS ? j : 0,
    kind,
    title,
    body: { rating: 1 + ((j * 7) % 10), comment: COMMENT, is_spoiler: j % 3 === 0, tags: [] },
    created_at: new Date(BASE + Math.floor(j / 2) * 1000).toISOString(),
    voters,
  };
}

const comm = {
  seed: 18,
  sizes: { users: USERS, items: 0, reviews: REVIEWS },
  user: (u: number) => ({ index: u, username: `reader_${u}`, email: `reader_${u}@example.org`, created_at: new Date(BASE - 1e9 + u * 1000).toISOString() }),
  items: () => [],
  counts: new Int32Array(USERS),
  review,
  popular: () => new Int32Array(0),
} as unknown as Community;

beforeAll(async () => {
  setClock(`${TODAY}T12:00:00.000Z`);
  await loadCatalogue({
    cat,
    kinds: KINDS,
    stamp,
    inFlight: 4,
    adjust: numbers,
    onRecord: (kind, _i, r) => {
      if (kind === 'anime') animes.push(r as AnimeRecord);
      if (kind === 'manga') mangas.push(r as MangaRecord);
      if (kind === 'news') articles.push(r as NewsRecord);
    },
  });
  const records = { anime: animes, manga: mangas };
  await loadCommunity({ comm, titles: (kind, i) => ({ id: records[kind][i]!.id, rec: records[kind][i] as unknown as Record<string, unknown> }), passwordHash: null, inFlight: 4 });
}, 900_000);
afterAll(() => setClock(null));

// ---- Measuring a request

interface Cost {
  queries: number;
  /** Index items (or entries) the largest Query read. */
  queryItems: number;
  /** Keys read by BatchGetItem and GetItem. */
  keys: number;
  /** BatchGetItem and GetItem calls. */
  batches: number;
  /** Read units consumed (strongly consistent reads: one per 4 KB of an item). */
  rcu: number;
  /** Read units of the largest Query. */
  queryRcu: number;
}

function costOf(calls: readonly SdkCall[]): Cost {
  const dynamo = calls.filter((c) => c.service === 'dynamodb');
  const queries = dynamo.filter((c) => c.operation === 'Query');
  const batches = dynamo.filter((c) => c.operation === 'BatchGetItem' || c.operation === 'GetItem');
  const keysOf = (c: SdkCall) => (c.operation === 'GetItem' ? 1 : Object.values((c.input.RequestItems ?? {}) as Record<string, { Keys: unknown[] }>).reduce((n, r) => n + r.Keys.length, 0));
  for (const c of dynamo) expect(c.capacity, `${c.operation} reports its consumed capacity`).toBeTypeOf('number');
  return {
    queries: queries.length,
    queryItems: Math.max(0, ...queries.map((c) => c.itemsRead ?? 0)),
    keys: batches.reduce((n, c) => n + keysOf(c), 0),
    batches: batches.length,
    rcu: dynamo.reduce((n, c) => n + (c.capacity ?? 0), 0),
    queryRcu: Math.max(0, ...queries.map((c) => c.capacity ?? 0)),
  };
}

async function measured(path: string): Promise<{ res: Sent; cost: Cost }> {
  recorder.measureCapacity = true;
  recorder.take();
  const res = await send(server, 'GET', path);
  const cost = costOf(recorder.take());
  expect(res.status, `${path}: ${res.text}`).toBe(200);
  return { res, cost };
}

/** A request's ceiling (docs/data-model.md "Per-request read ceilings"); `first`: a page without cursor. */
type Ceiling = (first: boolean, limit: number) => Partial<Cost>;

function expectWithin(path: string, cost: Cost, ceiling: Partial<Cost>): void {
  for (const [k, max] of Object.entries(ceiling) as [keyof Cost, number][]) expect(cost[k], `${path}: ${k} ${JSON.stringify(cost)}`).toBeLessThanOrEqual(max);
}

/**
 * Every page of a list from `path` with `next`, then back from the last page with `previous`:
 * the ids both ways, each request within `ceiling`, `count` (`expectedCount`) on every page.
 */
async function walkList(path: string, ceiling: Ceiling, expectedCount: number | null, limit: number, idOfResult: (r: any) => string = (r) => r.id) {
  const forward: string[] = [];
  const worst: Cost = { queries: 0, queryItems: 0, keys: 0, batches: 0, rcu: 0, queryRcu: 0 };
  const keep = (c: Cost) => {
    for (const k of Object.keys(worst) as (keyof Cost)[]) worst[k] = Math.max(worst[k], c[k]);
  };
  let url: string | null = `${path}${path.includes('?') ? '&' : '?'}limit=${limit}`;
  let last: Sent | undefined;
  for (let n = 0; url !== null; n++) {
    expect(n, `${path}: pages`).toBeLessThan(500);
    const { res, cost } = await measured(url);
    expectWithin(url, cost, ceiling(n === 0, limit));
    keep(cost);
    expect(res.body.count, `${url}: count`).toBe(expectedCount);
    expect(res.body.results.length).toBeLessThanOrEqual(limit);
    forward.push(...res.body.results.map(idOfResult));
    last = res;
    url = res.body.next;
  }
  const backward: string[] = [...last!.body.results.map(idOfResult)];
  url = last!.body.previous;
  for (let n = 0; url !== null && backward.length < forward.length; n++) {
    expect(n, `${path}: pages back`).toBeLessThan(500);
    const { res, cost } = await measured(url);
    expectWithin(url, cost, ceiling(false, limit));
    keep(cost);
    backward.unshift(...res.body.results.map(idOfResult));
    url = res.body.previous;
  }
  return { forward, backward, worst };
}

async function expectList(path: string, expected: readonly string[], ceiling: Ceiling, count: number | null, limit = 100, idOfResult?: (r: any) => string) {
  const got = await walkList(path, ceiling, count, limit, idOfResult);
  expect(got.forward.length, `${path}: records`).toBe(expected.length);
  expect(got.forward, `${path}: every record once, in order`).toEqual(expected);
  expect(got.backward, `${path}: backwards with previous`).toEqual(expected);
  return got.worst;
}

// ---- Brute force: the contract's order over the generated records

const ordered = <R extends { id: string }>(records: readonly R[], o: Ordering<R>, descending: boolean) => contractOrder(records, (r) => o.value(r), o.type, descending).map((r) => r.id);

/**
 * The in-memory index's ceiling (shared/domain/index-reader.ts, docs/decisions.md O2): one Query
 * of the kind's index partition (the deltas the function has not read, with the pointer: here
 * none, the loader published a snapshot), of at most INDEX_RCU read units whatever the list's
 * length or the page's position; the keys the request names (the parent, a tombstone shard) and
 * the page's records; on the first request of a kind in the process, also the pointer (GetItem)
 * before the snapshot is loaded from the index bucket.
 */
const INDEX_RCU = 2;
const INDEX_CEILING: Ceiling = (_first, limit) => ({
  queries: 1,
  queryItems: 2,
  queryRcu: INDEX_RCU,
  batches: 3,
  keys: 3 + limit,
  // The index Query, the pointer, the named keys, the page's records (under 4 KB each here).
  rcu: INDEX_RCU + 1 + 2 + limit,
});
const IN_ORDER = INDEX_CEILING;
const ANIME_CEILING = INDEX_CEILING;
const MANGA_CEILING = INDEX_CEILING;

describe("a genre's and a producer's animes (the anime index with the record's equality)", () => {
  const G0 = () => idOf('genre', 0);
  const P0 = () => idOf('producer', 0);
  it.each([
    ['name', false],
    ['members', true],
    ['score', false],
  ] as const)('genres/{G0}/animes/ ordering %s (descending %s): 3,000 animes, each request within the ceiling', { timeout: 300_000 }, async (key, descending) => {
    const expected = ordered(animes, animeIndex.orderings[key]!, descending);
    await expectList(`/api/genres/${G0()}/animes/?ordering=${descending ? '-' : ''}${key}`, expected, key === 'name' ? IN_ORDER : ANIME_CEILING, ANIMES);
  });

  it.each([
    [undefined, '-aired_from'],
    ['studio', 'name'],
    ['producer', '-members'],
  ] as const)('producers/{P0}/animes/ role %s, ordering %s', { timeout: 300_000 }, async (role, ordering) => {
    const credits = (a: AnimeRecord) => (role === undefined ? [...a.studios, ...a.producers] : role === 'studio' ? a.studios : a.producers).some((p) => p.id === P0());
    const matching = animes.filter(credits);
    const o = animeIndex.orderings[ordering.replace('-', '')]!;
    const expected = ordered(matching, o, ordering.startsWith('-'));
    const worst = await expectList(`/api/producers/${P0()}/animes/?ordering=${ordering}${role ? `&role=${role}` : ''}`, expected, ANIME_CEILING, matching.length);
    expect(worst.queries).toBe(1);
  });

  it("genres/{G0}/mangas/ by -published_from, and G1's animes by name with limit 37", { timeout: 300_000 }, async () => {
    await expectList(`/api/genres/${G0()}/mangas/?ordering=-published_from`, ordered(mangas, mangaIndex.orderings.published_from!, true), MANGA_CEILING, MANGAS);
    const g1 = animes.filter((a) => a.genres.some((g) => g.id === idOf('genre', 1)));
    await expectList(`/api/genres/${idOf('genre', 1)}/animes/`, ordered(g1, animeIndex.orderings.name!, false), ANIME_CEILING, g1.length, 37);
  });
});

describe("a season's animes (the anime index with the season's equality; count from the evaluation)", () => {
  const fall = () => animes.filter((a) => a.year === 2024 && a.season === 'fall');
  it.each([
    ['members', true],
    ['name', false],
    ['score', false],
  ] as const)('seasons/2024/fall/ ordering %s (descending %s): 2,000 animes', { timeout: 300_000 }, async (key, descending) => {
    expect(fall()).toHaveLength(FALL);
    const expected = ordered(fall(), animeIndex.orderings[key]!, descending);
    await expectList(`/api/seasons/2024/fall/?ordering=${descending ? '-' : ''}${key}`, expected, key === 'name' ? IN_ORDER : ANIME_CEILING, FALL);
  });

  it('filters: media_type and status (count null); seasons/now/ is fall 2024 by the clock', { timeout: 300_000 }, async () => {
    const tv = fall().filter((a) => a.media_type === 'tv');
    await expectList('/api/seasons/2024/fall/?media_type=tv', ordered(tv, animeIndex.orderings.members!, true), ANIME_CEILING, null);
    const airing = fall().filter((a) => a.status === 'airing' && a.media_type === 'movie');
    await expectList('/api/seasons/now/?status=airing&media_type=movie&ordering=name', ordered(airing, animeIndex.orderings.name!, false), ANIME_CEILING, null, 25);
    const { res } = await measured('/api/seasons/upcoming/?limit=100');
    expect([res.body.year, res.body.season, res.body.count]).toEqual([2025, 'winter', WINTER]);
  });
});

describe("home's season sections (the anime index in members desc, then name)", () => {
  it('the first 12 of the current (2,000 animes) and the upcoming season, within the ceiling', async () => {
    const head = (list: AnimeRecord[]) =>
      [...list]
        .sort((a, b) => b.members - a.members || compareCodePoints(searchNormalize(a.name), searchNormalize(b.name)) || compareCodePoints(a.id, b.id))
        .slice(0, 12)
        .map((a) => a.id);
    const { res, cost } = await measured('/api/home/');
    expect(res.body.current_season.map((a: { id: string }) => a.id)).toEqual(head(animes.filter((a) => a.year === 2024 && a.season === 'fall')));
    expect(res.body.upcoming_season.map((a: { id: string }) => a.id)).toEqual(head(animes.filter((a) => a.year === 2025 && a.season === 'winter')));
    // The ceiling: one Query of the anime index and one of the news index (their deltas; the two
    // seasons are evaluated over the same copy, read once), and one each for the newest reviews
    // and the popular recommendations' lists; then the cards.
    expectWithin('/api/home/', cost, { queries: 2 + 1 + 3, rcu: 4 * INDEX_RCU + 200 });
  });
});

describe("a person's mangas (the manga index with the author's equality; counts from the evaluation)", () => {
  const A0 = () => idOf('person', 0);
  const roleOf = (m: MangaRecord) => m.authors.find((a) => a.id === A0())?.role;
  it.each([
    [undefined, '-published_from'],
    [undefined, 'name'],
    ['story', 'members'],
    ['art', '-members'],
    ['story_and_art', '-published_from'],
  ] as const)('persons/{A0}/mangas/ role %s, ordering %s: 1,500 mangas', { timeout: 300_000 }, async (role, ordering) => {
    const matching = mangas.filter((m) => roleOf(m) !== undefined && (role === undefined || roleOf(m) === role));
    const expected = ordered(matching, mangaIndex.orderings[ordering.replace('-', '')]!, ordering.startsWith('-'));
    const path = `/api/persons/${A0()}/mangas/?ordering=${ordering}${role ? `&role=${role}` : ''}`;
    const got = await walkList(path, role === undefined && ordering === 'name' ? IN_ORDER : MANGA_CEILING, matching.length, 100, (r) => `${r.id} ${r.author_role}`);
    expect(got.forward).toEqual(expected.map((id) => `${id} ${roleOf(mangas.find((m) => m.id === id)!)}`));
    expect(got.backward).toEqual(got.forward);
  });
});

describe("an anime's and a manga's news (the news index with the title's equality; counts from the evaluation)", () => {
  it.each([
    ['animes', 1, '', 100],
    ['animes', 1, 'ordering=name', 100],
    ['animes', 1, 'tag=review', 30],
    ['mangas', 0, 'ordering=-name&tag=interview', 30],
  ] as const)('%s/{%s}/news/?%s: 2,200 articles about the anime', { timeout: 300_000 }, async (segment, index, query, limit) => {
    const title = segment === 'animes' ? animes[index]! : mangas[index]!;
    const tag = /tag=(\w+)/.exec(query)?.[1];
    const matching = articles.filter((a) => (segment === 'animes' ? a.animes : a.mangas).some((t) => t.id === title.id) && (tag === undefined || a.tag === tag));
    const ordering = /ordering=(-?)(\w+)/.exec(query);
    const expected = ordered(matching, newsIndex.orderings[ordering?.[2] ?? 'created_at']!, ordering ? ordering[1] === '-' : true);
    await expectList(`/api/${segment}/${title.id}/news/${query ? `?${query}` : ''}`, expected, INDEX_CEILING, matching.length, limit);
  });
});

// ---- Reviews

interface GeneratedReview {
  id: string;
  kind: 'anime' | 'manga';
  title: string;
  user: string;
  rating: number;
  spoiler: boolean;
  helpful: number;
  created_at: string;
}

describe("a title's and a user's reviews (ordering entries walked with Limit; counts items)", () => {
  let all: GeneratedReview[] = [];
  beforeAll(async () => {
    // The generated reviews as the API shows them, read through the top list once (ids are the loader's).
    const { communityIds } = await import('../bench/load-community.js');
    const ids = communityIds(comm.seed);
    all = Array.from({ length: REVIEWS }, (_, j) => {
      const g = review(j);
      const title = g.kind === 'anime' ? animes[g.title]! : mangas[g.title]!;
      return { id: ids.review(j), kind: g.kind, title: title.id, user: ids.user(g.user), rating: g.body.rating, spoiler: g.body.is_spoiler, helpful: g.voters.length, created_at: g.created_at };
    });
  });
  const ORDER: Record<string, Ordering<GeneratedReview>> = {
    created_at: { value: (r) => r.created_at, type: 'plain' },
    helpful_count: { value: (r) => r.helpful, type: 'count' },
    rating: { value: (r) => r.rating, type: 'count' },
  };
  /**
   * One Query of limit + 1 entries, or with a filter up to 4 of readBudget(limit) entries each (a
   * page back that finds nothing reads on: up to 25), each ≤ 20 read units (400 entries of ~180 B);
   * the first call (title or user, tombstone, counts), then the page's reviews, titles and authors.
   */
  const reviewCeiling: Ceiling = (first, limit) => ({ queries: first ? 4 : 25, queryItems: readBudget(limit), queryRcu: 20, batches: 5, keys: 4 + 3 * limit, rcu: 25 * 20 + 4 + 3 * limit });

  it.each([
    ['-created_at', undefined],
    ['created_at', false],
    ['-helpful_count', undefined],
    ['helpful_count', false],
    ['-rating', false],
    ['rating', undefined],
  ] as const)("animes/{T0}/reviews/ ordering %s, spoilers %s: 2,500 reviews", { timeout: 300_000 }, async (ordering, spoilers) => {
    const mine = all.filter((r) => r.title === animes[0]!.id && (spoilers !== false || !r.spoiler));
    const expected = ordered(mine, ORDER[ordering.replace('-', '')]!, ordering.startsWith('-'));
    const worst = await expectList(`/api/animes/${animes[0]!.id}/reviews/?ordering=${ordering}${spoilers === false ? '&spoilers=false' : ''}`, expected, reviewCeiling, mine.length);
    // Unfiltered, a page reads what it shows (limit + 1 entries).
    if (spoilers === undefined) expect(worst.queryItems).toBeLessThanOrEqual(101);
  });

  it.each([
    ['-created_at', undefined, undefined],
    ['rating', 'manga', undefined],
    ['-helpful_count', 'anime', false],
    ['created_at', undefined, false],
  ] as const)('users/{u0}/reviews/ ordering %s, kind %s, spoilers %s: 2,001 reviews', { timeout: 300_000 }, async (ordering, kind, spoilers) => {
    const user = all.find((r) => r.id === all[0]!.id)!.user;
    const mine = all.filter((r) => r.user === user && (kind === undefined || r.kind === kind) && (spoilers !== false || !r.spoiler));
    const expected = ordered(mine, ORDER[ordering.replace('-', '')]!, ordering.startsWith('-'));
    const query = [`ordering=${ordering}`, ...(kind ? [`kind=${kind}`] : []), ...(spoilers === false ? ['spoilers=false'] : [])].join('&');
    await expectList(`/api/users/reader_0/reviews/?${query}`, expected, reviewCeiling, mine.length);
  });

  it.each([
    [undefined, undefined],
    ['manga', undefined],
    ['anime', false],
  ] as const)('top/reviews/ kind %s, spoilers %s: every review once, in order (helpful_count desc, created_at desc, id)', { timeout: 300_000 }, async (kind, spoilers) => {
    const mine = all.filter((r) => (kind === undefined || r.kind === kind) && (spoilers !== false || !r.spoiler));
    const expected = [...mine].sort((a, b) => b.helpful - a.helpful || compareCodePoints(b.created_at, a.created_at) || compareCodePoints(a.id, b.id)).map((r) => r.id);
    const query = [...(kind ? [`kind=${kind}`] : []), ...(spoilers === false ? ['spoilers=false'] : [])].join('&');
    await expectList(`/api/top/reviews/?${query}`, expected, reviewCeiling, null);
  });

  it('signed in, a first page makes the calls an anonymous one makes (the auth state is read in its first call)', async () => {
    const { auth } = await server.user('member');
    for (const path of ['/api/seasons/2024/fall/', `/api/persons/${idOf('person', 0)}/mangas/?role=art`, `/api/animes/${animes[1]!.id}/news/`, `/api/genres/${idOf('genre', 0)}/animes/`]) {
      recorder.take();
      const anonymous = await send(server, 'GET', path);
      const calls = recorder.take().filter((c) => c.service === 'dynamodb').length;
      const signed = await send(server, 'GET', path, { headers: auth });
      expect(recorder.take().filter((c) => c.service === 'dynamodb').length, path).toBe(calls);
      expect(signed.body).toEqual(anonymous.body);
    }
  });

  it('a cursor changed by a client is refused (400), on each list', async () => {
    for (const path of [`/api/animes/${animes[0]!.id}/reviews/`, '/api/users/reader_0/reviews/', '/api/seasons/2024/fall/', `/api/persons/${idOf('person', 0)}/mangas/`]) {
      const { res } = await measured(`${path}?limit=5`);
      const next = new URL(res.body.next);
      const cursor = next.searchParams.get('cursor')!;
      next.searchParams.set('cursor', `${cursor.slice(0, -2)}${cursor.at(-2) === 'A' ? 'B' : 'A'}${cursor.at(-1)}`);
      expectProblem(await send(server, 'GET', next.toString()), 400, 'invalid-query');
    }
  });
});

describe("the schedule (the airing animes' entries of the anime index: decision O15)", () => {
  const airing = () => animes.filter((a) => a.status === 'airing');
  it.each(['', '?tz=Europe/Paris&ordering=-day', '?day=saturday&tz=America/Los_Angeles', '?ordering=score'])('schedules/%s: 750 airing animes, the index Query (≤ 2 RU) and the page\'s records, each anime once', { timeout: 120_000 }, async (query) => {
    expect(airing()).toHaveLength(750);
    const seen: string[] = [];
    let url: string | null = `/api/schedules/${query}${query ? '&' : '?'}limit=100`;
    let count: number | null = null;
    for (let n = 0; url !== null; n++) {
      expect(n).toBeLessThan(20);
      const { res, cost } = await measured(url);
      // One Query of the anime index (its deltas and pointer, whatever the schedule's size), then
      // the page's records; on the process's first request of the kind, the pointer before the snapshot.
      expectWithin(url, cost, { queries: 1, queryItems: 2, queryRcu: INDEX_RCU, batches: 2, keys: 1 + 100, rcu: INDEX_RCU + 1 + 100 });
      count ??= res.body.count;
      expect(res.body.count).toBe(count);
      seen.push(...res.body.results.map((e: { anime: { id: string } }) => e.anime.id));
      url = res.body.next;
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBe(count);
    if (!query.includes('day=')) expect(new Set(seen)).toEqual(new Set(airing().map((a) => a.id)));
  });
});

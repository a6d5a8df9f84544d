/**
 * The mixed workloads of the `load` and `cost` sections (issue 9 §4, §5), drawn from the community
 * store (community.ts `ensureStore`): requests as a client of the API would send them, with the
 * share of each kind of request fixed below.
 *
 * - **Read mix**: title details (animes, mangas, characters, persons), lists with filters and
 *   orderings, search (`q`), seasons, the schedule, the top lists, a title's reviews and stats,
 *   the caller's own list, per-title recommendations and home. Titles are drawn by popularity
 *   (the community's own Zipf order), as clients ask for popular titles more often.
 * - **Write mix**: list-item edits by their owners (existing items), list items added, helpful
 *   votes and reviews written by accounts made for the run (`freshUsers`: a kept store is reused by
 *   later runs, so what a run creates must not collide with what an earlier one created).
 *
 * Every request is expected to succeed; the sections count anything else as an error.
 */
import { createHash } from 'node:crypto';
import { OPERATIONS } from '../../functions/registry.js';
import { newAccount } from '../../shared/domain/accounts.js';
import { Router } from '../../shared/http/router.js';
import { ID_LENGTH } from '../../shared/ids.js';
import { commit } from '../../shared/db/records.js';
import { signToken } from '../../shared/auth/tokens.js';
import { Rng, type Kind } from './catalogue-data.js';
import type { Store } from './community.js';
import { communityIds } from './load-community.js';
import { benchStamps, LOADABLE_KINDS } from './load-catalogue.js';
import type { TitleKind } from './community-data.js';

export interface LoadRequest {
  /** The route as the cost model groups it (method and path template). */
  route: string;
  /** The function that serves it (its declaration's name, found by the router as the gateway would). */
  fn: string;
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
  /** The success status. */
  expect: number;
}

type Drawn = Omit<LoadRequest, 'fn'>;
type Weighted = [weight: number, make: () => Drawn | Promise<Drawn>];

const router = new Router(OPERATIONS);

async function draw(rng: Rng, n: number, table: Weighted[]): Promise<LoadRequest[]> {
  const total = table.reduce((s, [w]) => s + w, 0);
  const out: LoadRequest[] = [];
  for (let i = 0; i < n; i++) {
    let u = rng.next() * total;
    const entry = table.find(([w]) => (u -= w) < 0) ?? table[table.length - 1]!;
    const r = await entry[1]();
    const match = router.match(r.method, r.path.split('?')[0]!);
    if (match.kind !== 'route') throw new Error(`${r.method} ${r.path}: no declared route`);
    out.push({ ...r, fn: match.route.name });
  }
  return out;
}

const SEG: Record<TitleKind, string> = { anime: 'animes', manga: 'mangas' };
const LIST: Record<TitleKind, string> = { anime: 'animelist/animes', manga: 'mangalist/mangas' };
const SEASONS = ['winter', 'spring', 'summer', 'fall'] as const;

/** Tokens are signed once per user and run (access tokens live 15 minutes: sign just before a run). */
function tokens() {
  const cache = new Map<string, Promise<Record<string, string>>>();
  return (userId: string) => {
    let t = cache.get(userId);
    if (!t) {
      t = signToken('access', { id: userId, token_version: 0 }).then(({ token }) => ({ authorization: `Bearer ${token}` }));
      cache.set(userId, t);
    }
    return t;
  };
}

/** A title drawn by popularity: the community's most popular titles first, skewed (Zipf-like). */
function popularTitle(store: Store, rng: Rng, kind: TitleKind): number {
  const order = store.comm.popular(kind);
  return order[rng.skewed(0, order.length - 1, 3)]!;
}

/** A word of 3+ letters from the title's searchable texts (its name first), for `q`. */
function searchTerm(store: Store, rng: Rng, kind: TitleKind): string {
  for (let attempt = 0; attempt < 20; attempt++) {
    const texts = store.cat.searchTexts(kind, popularTitle(store, rng, kind));
    const words = (texts[0] ?? '').split(/[^\p{L}\p{N}]+/u).filter((w) => w.length >= 3 && /^[\p{Script=Latin}\p{N}]+$/u.test(w));
    if (words.length > 0) return rng.pick(words).toLowerCase();
  }
  return 'the';
}

export async function readMix(store: Store, n: number, seed: number): Promise<LoadRequest[]> {
  const rng = new Rng(seed);
  const { cat, comm, titleId } = store;
  const ids = communityIds(comm.seed);
  const stamp = benchStamps(cat, LOADABLE_KINDS);
  const idOf = (kind: Kind, i: number) => stamp(kind, i).id;
  const auth = tokens();
  const year = Number(cat.today.slice(0, 4));
  const listUsers = [...comm.counts.keys()].filter((u) => comm.counts[u]! > 0);
  const get = (route: string, path: string, headers?: Record<string, string>): Drawn => ({ route, method: 'GET', path, expect: 200, ...(headers ? { headers } : {}) });
  const title = (kind: TitleKind) => titleId(kind, popularTitle(store, rng, kind));
  return draw(rng, n, [
    [30, () => get('GET /api/animes/{id}/', `/api/animes/${title('anime')}/`)],
    [10, () => get('GET /api/mangas/{id}/', `/api/mangas/${title('manga')}/`)],
    [3, () => get('GET /api/characters/{id}/', `/api/characters/${idOf('character', rng.int(0, cat.sizes.character - 1))}/`)],
    [2, () => get('GET /api/persons/{id}/', `/api/persons/${idOf('person', rng.int(0, cat.sizes.person - 1))}/`)],
    [
      10,
      () => {
        const filters = [
          `genre=${idOf('genre', rng.int(0, cat.sizes.genre - 1))}&ordering=-score`,
          'media_type=tv&status=airing&ordering=-members',
          `year=${rng.int(year - 15, year)}&ordering=-members`,
          `season=${rng.pick(SEASONS)}&year=${rng.int(year - 10, year)}`,
          `min_score=${rng.int(6, 8)}&ordering=-score`,
          `theme=${idOf('theme', rng.int(0, cat.sizes.theme - 1))}&genre=${idOf('genre', rng.int(0, cat.sizes.genre - 1))}`,
        ];
        return get('GET /api/animes/ (filters)', `/api/animes/?${rng.pick(filters)}`);
      },
    ],
    [5, () => get('GET /api/mangas/ (filters)', `/api/mangas/?${rng.pick([`genre=${idOf('genre', rng.int(0, cat.sizes.genre - 1))}&ordering=-score`, 'status=publishing&ordering=-members', 'media_type=manga&ordering=name'])}`)],
    [7, () => get('GET /api/animes/?q=', `/api/animes/?q=${encodeURIComponent(searchTerm(store, rng, 'anime'))}`)],
    [3, () => get('GET /api/mangas/?q=', `/api/mangas/?q=${encodeURIComponent(searchTerm(store, rng, 'manga'))}`)],
    [2, () => get('GET /api/seasons/now/', '/api/seasons/now/')],
    [1, () => get('GET /api/seasons/upcoming/', '/api/seasons/upcoming/')],
    [2, () => get('GET /api/seasons/{year}/{season}/', `/api/seasons/${rng.int(year - 20, year)}/${rng.pick(SEASONS)}/`)],
    [2, () => get('GET /api/schedules/', '/api/schedules/')],
    [3, () => get('GET /api/schedules/?day=', `/api/schedules/?day=${rng.pick(['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'])}`)],
    [3, () => get('GET /api/top/animes/', `/api/top/animes/${rng.pick(['', '?filter=airing', '?filter=bypopularity', '?media_type=movie'])}`)],
    [2, () => get('GET /api/top/mangas/', `/api/top/mangas/${rng.pick(['', '?filter=publishing'])}`)],
    [2, () => get('GET /api/top/reviews/', `/api/top/reviews/${rng.pick(['', '?kind=anime'])}`)],
    [1, () => get('GET /api/top/characters/', '/api/top/characters/')],
    [3, () => get('GET /api/animes/{id}/reviews/', `/api/animes/${title('anime')}/reviews/`)],
    [2, () => get('GET /api/animes/{id}/stats/', `/api/animes/${title('anime')}/stats/`)],
    [1, () => get('GET /api/mangas/{id}/stats/', `/api/mangas/${title('manga')}/stats/`)],
    [
      5,
      async () => {
        const u = rng.pick(listUsers);
        return get('GET /api/playlists/animelist/animes/', `/api/playlists/animelist/animes/${rng.pick(['', '?status=completed', '?ordering=-score'])}`, await auth(ids.user(u)));
      },
    ],
    [2, () => get('GET /api/animes/{id}/recommendations/', `/api/animes/${title('anime')}/recommendations/`)],
    [1, () => get('GET /api/home/', '/api/home/')],
  ]);
}

/**
 * Accounts made for a write run (active, with a profile, as registration and activation leave
 * them): `count` members named after the run, so no two runs share one.
 */
export async function freshUsers(run: string, count: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = createHash('sha256').update(`load/${run}/${i}`).digest('base64url').slice(0, ID_LENGTH);
    const username = `load_${run}_${i}`.replace(/[^A-Za-z0-9_]/g, '_').slice(0, 30);
    const account = newAccount({ id, email: `${username.toLowerCase()}@example.org`, username, passwordHash: null, active: true, role: 'member' });
    await commit(...account.plans);
    out.push(id);
  }
  return out;
}

export async function writeMix(store: Store, n: number, seed: number, fresh: readonly string[]): Promise<LoadRequest[]> {
  // Drawn from the seed and the run's fresh users: a kept store's list items get other edits than a
  // previous run's (the same ones again would be no-op PATCHes, which skip the transaction).
  const rng = new Rng(seed + Number.parseInt(createHash('sha256').update(fresh.join()).digest('hex').slice(0, 8), 16));
  const { comm, titleId } = store;
  const ids = communityIds(comm.seed);
  const auth = tokens();
  const listUsers = [...comm.counts.keys()].filter((u) => comm.counts[u]! > 0);
  /** What each fresh user has added or reviewed in this run (one per title). */
  const added = new Map<string, Set<string>>();
  const reviewed = new Map<string, Set<string>>();
  const unused = (seen: Map<string, Set<string>>, user: string, kind: TitleKind): number => {
    const mine = seen.get(user) ?? new Set<string>();
    seen.set(user, mine);
    for (;;) {
      const t = popularTitle(store, rng, kind);
      if (!mine.has(`${kind}${t}`)) {
        mine.add(`${kind}${t}`);
        return t;
      }
    }
  };
  const reviews = Math.min(comm.sizes.reviews, 20_000);
  return draw(rng, n, [
    [
      45,
      async () => {
        const u = rng.pick(listUsers);
        const k = rng.int(0, comm.counts[u]! - 1);
        const kind = comm.items(u)[k]!.kind;
        return { route: `PATCH /api/playlists/${LIST[kind]}/{item_id}/`, method: 'PATCH', path: `/api/playlists/${LIST[kind]}/${ids.item(u, k)}/`, headers: await auth(ids.user(u)), body: { score: rng.int(1, 10), is_favorite: rng.chance(0.1) }, expect: 200 };
      },
    ],
    [
      25,
      async () => {
        const user = rng.pick(fresh);
        const kind: TitleKind = rng.chance(0.7) ? 'anime' : 'manga';
        const t = unused(added, user, kind);
        const body = kind === 'anime' ? { anime_id: titleId(kind, t), status: 'plan_to_watch' } : { manga_id: titleId(kind, t), status: 'plan_to_read' };
        return { route: `POST /api/playlists/${LIST[kind]}/`, method: 'POST', path: `/api/playlists/${LIST[kind]}/`, headers: await auth(user), body, expect: 201 };
      },
    ],
    [
      20,
      async () => {
        const r = comm.review(rng.int(0, reviews - 1));
        const user = rng.pick(fresh);
        return { route: `PATCH /api/${SEG[r.kind]}/{id}/reviews/{review_id}/ (vote)`, method: 'PATCH', path: `/api/${SEG[r.kind]}/${titleId(r.kind, r.title)}/reviews/${ids.review(r.index)}/`, headers: await auth(user), body: { helpful: rng.chance(0.8) }, expect: 200 };
      },
    ],
    [
      10,
      async () => {
        const user = rng.pick(fresh);
        const kind: TitleKind = rng.chance(0.7) ? 'anime' : 'manga';
        const t = unused(reviewed, user, kind);
        const body = { rating: rng.int(1, 10), comment: 'Written by the load benchmark: long enough for the rules, short like most reviews.', tags: [rng.pick(['recommended', 'mixed_feelings', 'not_recommended'])] };
        return { route: `POST /api/${SEG[kind]}/{id}/reviews/create/`, method: 'POST', path: `/api/${SEG[kind]}/${titleId(kind, t)}/reviews/create/`, headers: await auth(user), body, expect: 201 };
      },
    ],
  ]);
}

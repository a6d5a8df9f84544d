/**
 * The community of the MyAnimeList-scale benchmark, generated over a catalogue of
 * catalogue-data.ts: users (accounts as the API stores them, activated), their anime and manga
 * list items, and reviews with helpful votes — as write bodies and the facts the write paths
 * need (who, which title, when), deterministic from (seed, sizes, catalogue).
 *
 * Distributions (what decides the cost of the community routes):
 *  - items per user: log-normal (median ~4, mean sizes.items / sizes.users), plus heavy users
 *    (one in 500) with 1,000–5,000 items; users with an empty list;
 *  - titles: by the catalogue's popularity (a Zipf rank: the most popular anime is on ~2 % of
 *    the anime lists, the least popular on a handful), so popular titles have many members;
 *  - statuses like MyAnimeList's (a third planned, half completed), upcoming titles only
 *    planned; scores 1–10 around 7.5 on ~70 % of the seen items (0 = unscored), a title's
 *    scores shifted by its own bias; favourites on a few percent of the seen items;
 *  - reviews: `sizes.reviews` list items drawn evenly over all items (so popular titles and
 *    heavy users get more), their rating the item's score; helpful votes per review heavy-tailed
 *    (most 0–3, a few hundred), by distinct other users.
 *
 * Pure data: no database. A user's items are computed on demand (`items(u)`); only per-user
 * counts and offsets are kept (a few MB at 100,000 users).
 */
import { Rng, streamSeed, type Catalogue } from './catalogue-data.js';

export interface CommunitySizes {
  users: number;
  items: number;
  reviews: number;
}

export const COMMUNITY_SCALES = {
  mal: { users: 100_000, items: 1_000_000, reviews: 50_000 },
  small: { users: 400, items: 4_000, reviews: 200 },
  tenth: { users: 10_000, items: 100_000, reviews: 5_000 },
} as const satisfies Record<string, CommunitySizes>;

export type TitleKind = 'anime' | 'manga';

export interface UserGen {
  index: number;
  username: string;
  email: string;
  created_at: string;
}

export interface ItemGen {
  user: number;
  kind: TitleKind;
  /** The title's index in the catalogue. */
  title: number;
  /** The item's write body without the title's id (`anime_id` / `manga_id` are added by the writer). */
  body: Record<string, unknown>;
  created_at: string;
}

export interface ReviewGen {
  index: number;
  user: number;
  kind: TitleKind;
  title: number;
  body: { rating: number; comment: string; is_spoiler: boolean; tags: string[] };
  created_at: string;
  /** Users who voted the review helpful (distinct, not the author), and when. */
  voters: { user: number; at: string }[];
}

export interface Community {
  readonly sizes: CommunitySizes;
  readonly seed: number;
  user(u: number): UserGen;
  /** Items of user `u` (distinct titles per kind), in creation order. */
  items(u: number): ItemGen[];
  /** Items per user (as generated: heavy users may have fewer than drawn when titles run out). */
  readonly counts: Int32Array;
  /** The review `j` (0 ≤ j < reviews). */
  review(j: number): ReviewGen;
  /** Titles ordered by popularity (index of the most popular first). */
  popular(kind: TitleKind): Int32Array;
}

const DAY = 86_400_000;
const ANIME_STATUS = { watching: 8, completed: 48, on_hold: 4, dropped: 6, plan_to_watch: 34 } as const;
const MANGA_STATUS = { reading: 12, completed: 30, on_hold: 5, dropped: 5, plan_to_read: 48 } as const;
const WORDS =
  'story animation characters pacing ending soundtrack art direction plot world cast opening arc villain protagonist romance comedy drama action tension atmosphere voice acting studio adaptation source chapters volumes episodes season finale twist theme emotional beautiful boring slow brilliant messy memorable rewatch recommend'.split(
    ' ',
  );

function sentence(r: Rng): string {
  const n = r.int(6, 16);
  const words = Array.from({ length: n }, () => r.pick(WORDS));
  const s = words.join(' ');
  return `${s[0]!.toUpperCase()}${s.slice(1)}.`;
}

/** A review comment of ~200–4,000 characters (the contract allows 20–10,000). */
function comment(r: Rng): string {
  const paragraphs = r.skewed(1, 8, 2);
  return Array.from({ length: paragraphs }, () => Array.from({ length: r.int(2, 6) }, () => sentence(r)).join(' ')).join('\n\n');
}

const iso = (ms: number) => new Date(ms).toISOString();
const dateOf = (ms: number) => iso(ms).slice(0, 10);

export function community(cat: Catalogue, sizes: CommunitySizes, seed = cat.seed): Community {
  const end = Date.parse(`${cat.today}T00:00:00.000Z`) - 2 * DAY;
  const start = end - 10 * 365 * DAY;
  const titles = { anime: cat.sizes.anime, manga: cat.sizes.manga };
  // Titles by popularity: weights are 1 / (rank + 1).
  const popular = (kind: TitleKind) => {
    const order = new Int32Array(titles[kind]);
    for (let i = 0; i < titles[kind]; i++) order[Math.round(1 / cat.popularityWeight(kind, i)) - 1] = i;
    return order;
  };
  const order = { anime: popular('anime'), manga: popular('manga') };
  // Per title: status (upcoming titles are only planned), episodes or chapters and volumes (progress bounds), and a score bias.
  const facts = { anime: [] as { upcoming: boolean; a: number | null; b: number | null; bias: number }[], manga: [] as { upcoming: boolean; a: number | null; b: number | null; bias: number }[] };
  for (let i = 0; i < titles.anime; i++) {
    const b = cat.body('anime', i);
    facts.anime.push({ upcoming: b.status === 'upcoming', a: b.episodes, b: null, bias: new Rng(streamSeed(seed, 'bias-anime', i)).normal() * 0.8 });
  }
  for (let i = 0; i < titles.manga; i++) {
    const b = cat.body('manga', i);
    facts.manga.push({ upcoming: b.status === 'upcoming', a: b.chapters, b: b.volumes, bias: new Rng(streamSeed(seed, 'bias-manga', i)).normal() * 0.8 });
  }

  // Items per user: log-normal, scaled to the total; one user in 500 heavy.
  const heavy = (u: number) => u % 500 === 7;
  const raw = new Float64Array(sizes.users);
  const cap = titles.anime + titles.manga;
  let heavySum = 0;
  let lightSum = 0;
  for (let u = 0; u < sizes.users; u++) {
    const r = new Rng(streamSeed(seed, 'user-count', u));
    if (heavy(u)) {
      raw[u] = Math.min(Math.floor(cap * 0.8), r.int(1000, 5000));
      heavySum += raw[u]!;
    } else {
      raw[u] = Math.exp(1.3 * r.normal());
      lightSum += raw[u]!;
    }
  }
  const counts = new Int32Array(sizes.users);
  const factor = Math.max(0, sizes.items - heavySum) / Math.max(lightSum, 1e-9);
  let cumulative = 0;
  for (let u = 0; u < sizes.users; u++) {
    if (heavy(u)) {
      counts[u] = raw[u]!;
      continue;
    }
    const before = Math.round(cumulative);
    cumulative += raw[u]! * factor;
    counts[u] = Math.min(cap, Math.round(cumulative) - before);
  }

  const user = (u: number): UserGen => {
    const r = new Rng(streamSeed(seed, 'user', u));
    const username = `${r.pick(['otaku', 'reader', 'watcher', 'fan', 'nakama', 'senpai', 'kohai', 'weeb'])}_${u}`;
    return { index: u, username, email: `${username}@example.org`, created_at: iso(start + Math.floor(r.next() * (end - start - 30 * DAY))) };
  };

  // The last user's items (reviews are drawn in item order: a heavy user's come one after another).
  let cached: { u: number; items: ItemGen[] } | null = null;
  const items = (u: number): ItemGen[] => {
    if (cached?.u !== u) cached = { u, items: itemsOf(u) };
    return cached.items;
  };
  const itemsOf = (u: number): ItemGen[] => {
    const n = counts[u]!;
    if (n === 0) return [];
    const r = new Rng(streamSeed(seed, 'items', u));
    const joined = Date.parse(user(u).created_at);
    // About two thirds animes; never more than 90 % of a kind's titles.
    let animeN = Math.min(Math.floor(titles.anime * 0.9), Math.round(n * (0.55 + 0.2 * r.next())));
    const mangaN = Math.min(Math.floor(titles.manga * 0.9), n - animeN);
    if (animeN + mangaN < n) animeN = Math.min(Math.floor(titles.anime * 0.9), n - mangaN);
    const out: ItemGen[] = [];
    for (const [kind, k] of [
      ['anime', animeN],
      ['manga', mangaN],
    ] as const) {
      const picks = r.distinct(k, () => order[kind][r.zipf(titles[kind], 1, 5)]!);
      // Heavy users run out of distinct draws at the top: the rest is taken uniformly.
      if (picks.length < k) {
        const seen = new Set(picks);
        for (let tries = 0; picks.length < k && tries < k * 50; tries++) {
          const t = r.int(0, titles[kind] - 1);
          if (!seen.has(t)) {
            seen.add(t);
            picks.push(t);
          }
        }
      }
      for (const t of picks) out.push(itemOf(r, u, kind, t, joined));
    }
    return out.sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));
  };

  const itemOf = (r: Rng, u: number, kind: TitleKind, t: number, joined: number): ItemGen => {
    const f = facts[kind][t]!;
    const status = f.upcoming ? (kind === 'anime' ? 'plan_to_watch' : 'plan_to_read') : kind === 'anime' ? r.weighted(ANIME_STATUS) : r.weighted(MANGA_STATUS);
    const planned = status.startsWith('plan_to');
    const seen = !planned;
    const score = seen && r.chance(0.7) ? Math.max(1, Math.min(10, Math.round(7.4 + f.bias + 1.4 * r.normal()))) : 0;
    const at = joined + Math.floor(r.next() * (end - joined));
    const body: Record<string, unknown> = { status, score, is_favorite: seen && score >= 8 && r.chance(0.08) };
    const progress = (max: number | null) => (status === 'completed' ? (max ?? r.int(1, 300)) : seen ? r.int(0, Math.max(0, (max ?? 200) - 1)) : 0);
    if (kind === 'anime') body.episodes_watched = Math.min(5000, progress(f.a));
    else {
      body.chapters_read = Math.min(100_000, progress(f.a));
      body.volumes_read = Math.min(1000, status === 'completed' ? (f.b ?? 0) : 0);
    }
    if (seen && r.chance(0.4)) {
      const startDate = at - r.int(1, 400) * DAY;
      body.start_date = dateOf(startDate);
      if (status === 'completed') body.finish_date = dateOf(startDate + r.int(0, 300) * DAY);
    }
    if (r.chance(0.05)) body.tags = r.distinct(r.int(1, 3), () => r.pick(['favourite', 'rewatch', 'summer', 'with friends', 'backlog', 'dub', 'sub', 'classic']));
    if (r.chance(0.03)) body.notes = sentence(r);
    if (status === 'completed' && r.chance(0.05)) body[kind === 'anime' ? 'times_rewatched' : 'times_reread'] = r.int(1, 5);
    if (r.chance(0.1)) body.priority = r.pick(['low', 'medium', 'high']);
    return { user: u, kind, title: t, body, created_at: iso(at) };
  };

  // Reviews: the j-th of R is the list item at an even stratum of all items.
  const offsets = new Float64Array(sizes.users + 1);
  for (let u = 0; u < sizes.users; u++) offsets[u + 1] = offsets[u]! + counts[u]!;
  const total = offsets[sizes.users]!;
  const reviewCount = Math.min(sizes.reviews, total);
  const ownerOf = (g: number) => {
    let lo = 0;
    let hi = sizes.users - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (offsets[mid]! <= g) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const review = (j: number): ReviewGen => {
    if (!Number.isInteger(j) || j < 0 || j >= reviewCount) throw new RangeError(`No review #${j} (there are ${reviewCount})`);
    const r = new Rng(streamSeed(seed, 'review', j));
    const g = Math.min(total - 1, Math.floor(((j + r.next()) * total) / reviewCount));
    const u = ownerOf(g);
    const item = items(u)[g - offsets[u]!]!;
    const rating = Number(item.body.score) || Math.max(1, Math.min(10, Math.round(7 + facts[item.kind][item.title]!.bias + 1.6 * r.normal())));
    const created = Date.parse(item.created_at) + Math.floor(r.next() * Math.max(0, end - Date.parse(item.created_at)));
    const tags = r.chance(0.7) ? [rating >= 8 ? 'recommended' : rating >= 5 ? 'mixed_feelings' : 'not_recommended'] : [];
    // Votes: heavy-tailed; reviews of popular titles a little more.
    const rank = Math.round(1 / cat.popularityWeight(item.kind, item.title));
    const top = rank <= Math.max(3, titles[item.kind] / 300);
    const n = Math.min(sizes.users - 1, r.skewed(0, 24, 3) * (top ? 4 : 1) + (r.chance(0.002) ? r.int(100, 400) : 0));
    const voters = r
      .distinct(n, () => r.int(0, sizes.users - 1))
      .filter((v) => v !== u)
      .map((v) => ({ user: v, at: iso(created + Math.floor(r.next() * Math.max(1, end + DAY - created))) }));
    return {
      index: j,
      user: u,
      kind: item.kind,
      title: item.title,
      body: { rating, comment: comment(r), is_spoiler: r.chance(0.12), tags },
      created_at: iso(created),
      voters,
    };
  };

  return { sizes: { ...sizes, reviews: reviewCount }, seed, user, items, counts, review, popular: (kind) => order[kind] };
}

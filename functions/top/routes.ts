/**
 * The top lists (API.md §4.20). `top/reviews/` is computed from current data (no `refreshed_at`):
 * the top partition of shared/db/reviews.ts, kept in order by every review change and vote. The
 * others are the lists the rankings job made at its last run (shared/db/rankings.ts, selection,
 * filters and order of that run), shown as the records are now (shared/http/top.ts), with the
 * run's `refreshed_at`.
 */
import * as z from 'zod/mini';
import { animeTitle } from '../../shared/db/animes.js';
import { characterTitle } from '../../shared/db/characters.js';
import { mangaTitle } from '../../shared/db/mangas.js';
import { personTitle } from '../../shared/db/persons.js';
import { REVIEW_KEYS } from '../../shared/db/reviews.js';
import { TOMBSTONE_KEYS } from '../../shared/db/tombstones.js';
import { titleKeys } from '../../shared/db/titles.js';
import { animes } from '../../shared/domain/animes.js';
import { characters } from '../../shared/domain/characters.js';
import { AnimeMediaType, MangaMediaType, PersonCategory, ReviewKind } from '../../shared/domain/enums.js';
import { mangas } from '../../shared/domain/mangas.js';
import { persons } from '../../shared/domain/persons.js';
import { ANIME_REVIEWS, MANGA_REVIEWS, REVIEW_FIELDS, reviewRead } from '../../shared/domain/reviews.js';
import { defineRoute, type RouteDecl } from '../../shared/http/route.js';
import { booleanParam, enumParam } from '../../shared/http/schemas.js';
import { rankedKeys, rankedResponse, TITLE_FILTERS } from '../../shared/http/top-routes.js';

export const routes = {
  animes: defineRoute({
    name: 'top.animes', method: 'GET', path: '/api/top/animes/', access: 'public',
    summary: 'Top animes',
    description: 'As the last rankings run made it: by `rank` (`airing`: of airing animes), by `popularity` (`bypopularity`; `upcoming`: of upcoming animes) or by `favorites` (`favorite`: then `rank`, then `name`). `count` is null.',
    query: z.object({ filter: enumParam(TITLE_FILTERS.anime), media_type: enumParam(AnimeMediaType) }),
    response: rankedResponse(animes),
    keys: rankedKeys(titleKeys(animeTitle)),
  }),
  mangas: defineRoute({
    name: 'top.mangas', method: 'GET', path: '/api/top/mangas/', access: 'public',
    summary: 'Top mangas',
    description: 'As `top/animes/`, with `publishing` for `airing`. `count` is null.',
    query: z.object({ filter: enumParam(TITLE_FILTERS.manga), media_type: enumParam(MangaMediaType) }),
    response: rankedResponse(mangas),
    keys: rankedKeys(titleKeys(mangaTitle)),
  }),
  characters: defineRoute({
    name: 'top.characters', method: 'GET', path: '/api/top/characters/', access: 'public',
    summary: 'Top characters',
    description: 'Characters with `favorites` ≥ 1 by `favorites` desc, `members` desc, then `name`, as the last rankings run made it. `count` is null.',
    response: rankedResponse(characters),
    keys: rankedKeys(titleKeys(characterTitle)),
  }),
  artists: defineRoute({
    name: 'top.artists', method: 'GET', path: '/api/top/artists/', access: 'public',
    summary: 'Top artists',
    description: 'Persons with `favorites` ≥ 1 by `favorites` desc, then `name`, as the last rankings run made it; `category` as of that run. `count` is null.',
    query: z.object({ category: enumParam(PersonCategory) }),
    response: rankedResponse(persons),
    keys: rankedKeys(titleKeys(personTitle)),
  }),
  reviews: defineRoute({
    name: 'top.reviews', method: 'GET', path: '/api/top/reviews/', access: 'public',
    summary: 'Top reviews', description: 'Every review by `helpful_count` desc, `created_at` desc, then `id`. `count` is null.',
    query: z.object({ kind: enumParam(ReviewKind), spoilers: booleanParam }),
    response: { status: 200, schema: reviewRead, page: true, fields: REVIEW_FIELDS },
    // The reviews and their titles' records (entry), the tombstones.
    keys: [...REVIEW_KEYS, titleKeys(ANIME_REVIEWS.title), titleKeys(MANGA_REVIEWS.title), TOMBSTONE_KEYS],
  }),
} satisfies Record<string, RouteDecl>;

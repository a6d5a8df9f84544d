/** The season lists (API.md §4.16): a given season, the current one and the upcoming one (§5.2). */
import * as z from 'zod/mini';
import { animeTitle } from '../../shared/db/animes.js';
import { titleKeys } from '../../shared/db/titles.js';
import { grant, grants } from '../../shared/db/key-patterns.js';
import { TOMBSTONE_READS } from '../../shared/db/tombstones.js';
import { animeRead } from '../../shared/domain/animes.js';
import { indexReads } from '../../shared/domain/index-reader.js';
import { Season } from '../../shared/domain/enums.js';
import { seasonParams, seasonQuery } from '../../shared/domain/seasons.js';
import { defineRoute } from '../../shared/http/route.js';

const response = {
  status: 200,
  schema: animeRead,
  page: true,
  fields: Object.keys(animeRead.shape),
  envelope: { year: z.int(), season: z.enum(Season) },
} as const;
/** The anime index (its pointer and deltas; its snapshot from the index bucket), the page's animes, the tombstones. */
const keys = grants(grant(titleKeys(animeTitle), 'BatchGetItem'), indexReads('ANIME'), TOMBSTONE_READS);
const uses = ['index-read'] as const;

export const routes = {
  get: defineRoute({
    name: 'seasons.get', method: 'GET', path: '/api/seasons/{year}/{season}/', access: 'public',
    summary: 'List the animes of a season', params: seasonParams, query: seasonQuery, response, errors: ['not-found'], keys, uses,
  }),
  now: defineRoute({
    name: 'seasons.now', method: 'GET', path: '/api/seasons/now/', access: 'public',
    summary: 'List the animes of the current season', query: seasonQuery, response, keys, uses,
  }),
  upcoming: defineRoute({
    name: 'seasons.upcoming', method: 'GET', path: '/api/seasons/upcoming/', access: 'public',
    summary: 'List the animes of the upcoming season', query: seasonQuery, response, keys, uses,
  }),
};

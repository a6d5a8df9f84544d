/** The declaration of `top.animes` (its function: animes.ts). */
import * as z from 'zod/mini';
import { animeTitle } from '../../shared/db/animes.js';
import { titleKeys } from '../../shared/db/titles.js';
import { animes } from '../../shared/domain/animes.js';
import { AnimeMediaType } from '../../shared/domain/enums.js';
import { defineRoute } from '../../shared/http/route.js';
import { enumParam, sfwParam } from '../../shared/domain/params.js';
import { rankedKeys, rankedResponse, TITLE_FILTERS } from '../../shared/http/top-routes.js';

export const route = defineRoute({
  name: 'top.animes', method: 'GET', path: '/api/top/animes/', access: 'public',
  summary: 'Top animes',
  description: 'As the last rankings run made it: by `rank` (`airing`: of airing animes), by `popularity` (`bypopularity`; `upcoming`: of upcoming animes) or by `favorites` (`favorite`: then `rank`, then `name`). `count` is null. With `sfw=true` explicit titles are left out of each page (a page may then hold fewer than `limit`).',
  query: z.object({ filter: enumParam(TITLE_FILTERS.anime), media_type: enumParam(AnimeMediaType), sfw: sfwParam }),
  response: rankedResponse(animes),
  keys: rankedKeys(titleKeys(animeTitle)),
});

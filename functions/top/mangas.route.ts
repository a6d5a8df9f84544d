/** The declaration of `top.mangas` (its function: mangas.ts). */
import * as z from 'zod/mini';
import { mangaTitle } from '../../shared/db/mangas.js';
import { titleKeys } from '../../shared/db/titles.js';
import { MangaMediaType } from '../../shared/domain/enums.js';
import { mangas } from '../../shared/domain/mangas.js';
import { defineRoute } from '../../shared/http/route.js';
import { enumParam, sfwParam } from '../../shared/domain/params.js';
import { rankedKeys, rankedResponse, TITLE_FILTERS } from '../../shared/http/top-routes.js';

export const route = defineRoute({
  name: 'top.mangas', method: 'GET', path: '/api/top/mangas/', access: 'public',
  summary: 'Top mangas',
  description: 'As `top/animes/`, with `publishing` for `airing`. `count` is null. With `sfw=true` explicit titles are left out of each page (a page may then hold fewer than `limit`).',
  query: z.object({ filter: enumParam(TITLE_FILTERS.manga), media_type: enumParam(MangaMediaType), sfw: sfwParam }),
  response: rankedResponse(mangas),
  keys: rankedKeys(titleKeys(mangaTitle)),
});

/** The embedded summaries of titles and people (API.md §3.2), read at request time wherever they are shown. */
import * as z from 'zod/mini';
import { AnimeMediaType, AnimeStatus, MangaMediaType, MangaStatus } from './enums.js';

const image = z.nullable(z.string().check(z.meta({ format: 'uri' })));

export const characterCard = z.object({ id: z.string(), name: z.string(), image });
/** A review's `entry` (§3.9): the reviewed anime or manga as `{id, name, image}`. */
export const reviewEntry = characterCard;
export const animeCard = z.object({
  id: z.string(),
  name: z.string(),
  image,
  media_type: z.enum(AnimeMediaType),
  status: z.enum(AnimeStatus),
  episodes: z.nullable(z.int()),
  score: z.nullable(z.number()),
});
export const mangaCard = z.object({
  id: z.string(),
  name: z.string(),
  image,
  media_type: z.enum(MangaMediaType),
  status: z.enum(MangaStatus),
  chapters: z.nullable(z.int()),
  volumes: z.nullable(z.int()),
  score: z.nullable(z.number()),
});

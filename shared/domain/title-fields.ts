/**
 * What animes and mangas share (API.md §3.4: these fields are "exactly as for Anime"): the write
 * fields and the read fields of both, in a module of their own so that neither resource needs
 * the other's (a manga's function carries no anime rules, and the reverse).
 */
import * as z from 'zod/mini';
import { distinctList, idList, line, optional, optionalNullable, optionalText, text, url } from './fields.js';
import { picturesField } from './media.js';

const names = distinctList(line({ min: 1, max: 255 }), { max: 20, message: 'Duplicate name.' });

/** The write fields both have. */
export const titleFields = {
  name_jpn: optionalText(line({ max: 255 })),
  name_rom: optionalText(line({ max: 255 })),
  alternative_names: optional(names, () => []),
  image: optionalNullable(url()),
  synopsis: optionalText(text({ max: 10_000 })),
  background: optionalText(text({ max: 5_000 })),
  website: optionalNullable(url({ allowHttp: true })),
  genre_ids: optional(idList(20), () => []),
  theme_ids: optional(idList(20), () => []),
  pictures: picturesField,
};

export const refShape = z.object({ id: z.string(), name: z.string() });
const nullableDate = z.nullable(z.string().check(z.meta({ format: 'date' })));
export const nullableUrl = z.nullable(z.string().check(z.meta({ format: 'uri' })));

/** The read fields both have (`from`, `to`: the aired or published dates). */
export const titleRead = {
  id: z.string(),
  created_at: z.string().check(z.meta({ format: 'date-time' })),
  updated_at: z.string().check(z.meta({ format: 'date-time' })),
  name: z.string(),
  name_jpn: z.string(),
  name_rom: z.string(),
  alternative_names: z.array(z.string()),
  image: nullableUrl,
  synopsis: z.string(),
  background: z.string(),
  from: nullableDate,
  to: nullableDate,
  genres: z.array(refShape),
  themes: z.array(refShape),
  website: nullableUrl,
  score: z.nullable(z.number()),
  scored_by: z.int(),
  members: z.int(),
  favorites: z.int(),
  rank: z.nullable(z.int()),
  popularity: z.nullable(z.int()),
};

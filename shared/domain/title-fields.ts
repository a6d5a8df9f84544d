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

// ---- External ids and where to watch (API.md §8.2)

const EXTERNAL_ID = 'Must be an integer between 1 and 1000000000.';
const externalId = z.int().check(z.gte(1, EXTERNAL_ID), z.lte(1_000_000_000, EXTERNAL_ID));
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A MangaDex id: a UUID, kept in lower case. */
const uuid = z.pipe(z.string().check(z.regex(UUID, 'Must be a UUID.')), z.transform((v: string) => v.toLowerCase()));
/** The value schema of each site (integers but MangaDex's UUIDs). */
const siteValue = (site: string) => (site === 'mangadex' ? uuid : externalId);

/** `external_ids` as written: the sites given (unknown keys → 400 under `external_ids.<key>`); default `{}`; PATCH replaces it whole. */
export const externalIdsField = (sites: readonly string[]) =>
  optional(z.strictObject(Object.fromEntries(sites.map((site) => [site, z.optional(siteValue(site))]))), () => ({}), `Ids on other sites (${sites.join(', ')}), each unique among this kind.`);

/** `external_ids` as read: the sites that are set. */
export const externalIdsRead = (sites: readonly string[]) => z.object(Object.fromEntries(sites.map((site) => [site, z.optional(site === 'mangadex' ? z.string() : z.int())])));

/** The list filters `<site>_id`: equality with a site's id (one claim read). */
export function externalIdParams(sites: readonly string[]) {
  const param = (site: string) =>
    z.optional(
      site === 'mangadex'
        ? uuid
        : z.pipe(z.pipe(z.string().check(z.regex(/^\d{1,10}$/, EXTERNAL_ID)), z.transform(Number)), z.int().check(z.gte(1, EXTERNAL_ID), z.lte(1_000_000_000, EXTERNAL_ID))),
    );
  return Object.fromEntries(sites.map((site) => [`${site}_id`, param(site)]));
}

/** `streaming` (animes): where to watch, `{site, url}` in written order, distinct by `url`, at most 20; default `[]`. */
export const streamingField = optional(
  distinctList(z.strictObject({ site: line({ min: 1, max: 50 }), url: url() }), { max: 20, key: (s) => s.url, field: 'url', message: 'Duplicate URL.' }),
  () => [],
  'Where the title can be watched: a site name and an https URL each.',
);
export const streamingRead = z.array(z.object({ site: z.string(), url: z.string().check(z.meta({ format: 'uri' })) }));

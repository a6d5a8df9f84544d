/**
 * Seasons (API.md §4.16, §5.2): the season of a date, the current and the upcoming season, and
 * the path and query of the season lists (answered by shared/http/seasons.ts).
 */
import * as z from 'zod/mini';
import { enumParam, orderingParam, sfwParam } from './params.js';
import { AnimeMediaType, AnimeStatus, Season } from './enums.js';

export interface SeasonOfYear {
  year: number;
  season: (typeof Season)[number];
}

/** §5.2: the season of a date by its month, and its year. */
export function seasonOf(date: string | null): { season: string | null; year: number | null } {
  if (date === null) return { season: null, year: null };
  const month = Number(date.slice(5, 7));
  return { season: Season[Math.floor((month - 1) / 3)]!, year: Number(date.slice(0, 4)) };
}

/** §5.2 `now`: the season containing the UTC date of `at`. */
export function seasonNow(at: Date): SeasonOfYear {
  const { season, year } = seasonOf(at.toISOString().slice(0, 10));
  return { year: year!, season: season as SeasonOfYear['season'] };
}

/** §5.2 `upcoming`: the season after `now` (fall Y → winter Y + 1). */
export function seasonUpcoming(at: Date): SeasonOfYear {
  const now = seasonNow(at);
  const i = Season.indexOf(now.season);
  return i === Season.length - 1 ? { year: now.year + 1, season: Season[0] } : { year: now.year, season: Season[i + 1]! };
}

const YEAR_MESSAGE = 'Must be a year between 1900 and 2100.';

/** A year of four digits, 1900–2100 (the range of `aired_from`), as a string. */
export const yearString = () =>
  z.string().check(z.regex(/^\d{4}$/, YEAR_MESSAGE), z.refine((v) => Number(v) >= 1900 && Number(v) <= 2100, YEAR_MESSAGE));

/** `/api/seasons/{year}/{season}/`: anything else in the path is a 404 (§4.16). */
export const seasonParams = z.object({ year: z.pipe(yearString(), z.transform(Number)), season: z.enum(Season) });

export const seasonOrderings = ['members', 'score', 'name', 'aired_from'] as const;

/** The filters of a season list: equalities on the anime index's filters of the same name. */
export const seasonFilters = { media_type: enumParam(AnimeMediaType), status: enumParam(AnimeStatus) };

export const seasonQuery = z.object({ ordering: orderingParam(seasonOrderings, '-members'), ...seasonFilters, sfw: sfwParam });

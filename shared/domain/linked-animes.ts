/**
 * The animes linked to a taxonomy record (API.md §4.4 `GET /api/genres/{id}/animes/`, §4.11
 * `GET /api/producers/{id}/animes/`): which index filter selects them, their exact count, their
 * query and item shapes. Answered by shared/http/linked-titles.ts.
 */
import * as z from 'zod/mini';
import type { AnimeRecord } from '../db/animes.js';
import { creditsOfRole } from '../db/taxonomy.js';
import type { LinkedTitles } from './listings.js';
import { enumParam, orderingParam, sfwParam } from './params.js';
import { animeRead, animes } from './animes.js';
import { ProducerRole } from './enums.js';

const orderings = animes.list.orderings;
const numberAt = (item: Record<string, unknown>, path: string) => Number(path.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], item) ?? 0);

/** `GET /api/genres/{id}/animes/`: ordering keys of `GET /api/animes/`, default `name`. */
export const genreAnimesQuery = z.object({ ordering: orderingParam(orderings, 'name'), sfw: sfwParam });

export const genreAnimes: LinkedTitles<AnimeRecord> = {
  titles: animes,
  parent: { kind: 'GENRE', noun: 'genre' },
  filter: (id) => ({ genre: id }),
  count: (genre) => numberAt(genre, 'rec.anime_count'),
};

/** `GET /api/producers/{id}/animes/`: `role`, ordering keys of `GET /api/animes/`, default `-aired_from`. */
export const producerAnimesQuery = z.object({ role: enumParam(ProducerRole), ordering: orderingParam(orderings, '-aired_from'), sfw: sfwParam });

/** An anime of a producer's list: the Anime and the roles it credits the producer in (§4.11). */
export const producerAnimeRead = z.extend(animeRead, { producer_roles: z.array(z.enum(ProducerRole)) });

const ROLE_FIELDS = { studio: 'studios', producer: 'producers', licensor: 'licensors' } as const;

/** The roles in which an anime credits a producer, in the order studio, producer, licensor. */
export const producerRoles = (a: AnimeRecord, id: string): string[] => ProducerRole.filter((role) => a[ROLE_FIELDS[role]].some((r) => r.id === id));

export const producerAnimes: LinkedTitles<AnimeRecord> = {
  titles: animes,
  parent: { kind: 'PRODUCER', noun: 'producer' },
  // Credited in the role (the `studio`, `producer`, `licensor` filters), or in any (`credited`).
  filter: (id, q) => (q.role === undefined ? { credited: id } : { [q.role as string]: id }),
  count: (producer, q) => (q.role === undefined ? numberAt(producer, 'rec.anime_count') : numberAt(producer, `priv.${creditsOfRole(q.role as string)}`)),
  extra: (a, id) => ({ producer_roles: producerRoles(a, id) }),
};

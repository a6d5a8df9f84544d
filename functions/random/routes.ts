/**
 * `GET /api/random/anime|manga|character|person/` (API.md §4.13): one record drawn uniformly
 * among the kind's records (shared/db/slots.ts), in its detail shape; `fields` only; no ETag,
 * never cached.
 */
import type * as z from 'zod/mini';
import { TITLE_KEYS } from '../../shared/domain/title-resource.js';
import { animes } from '../../shared/domain/animes.js';
import { characters } from '../../shared/domain/characters.js';
import { mangas } from '../../shared/domain/mangas.js';
import { persons } from '../../shared/domain/persons.js';
import { defineRoute } from '../../shared/http/route.js';

function randomRoute<const K extends 'anime' | 'manga' | 'character' | 'person'>(kind: K, read: z.ZodMiniObject, noun: string) {
  return defineRoute({
    name: `random.${kind}`, method: 'GET', path: `/api/random/${kind}/`, access: 'public',
    summary: `A random ${noun}`, description: `Drawn uniformly among all ${noun}s, independently of earlier calls; 404 when there is none.`,
    response: { status: 200, schema: read, fields: Object.keys(read.shape) }, cache: 'no-store', errors: ['not-found'],
    keys: TITLE_KEYS[kind],
  });
}

export const routes = {
  anime: randomRoute('anime', animes.read, 'anime'),
  manga: randomRoute('manga', mangas.read, 'manga'),
  character: randomRoute('character', characters.read, 'character'),
  person: randomRoute('person', persons.read, 'person'),
};

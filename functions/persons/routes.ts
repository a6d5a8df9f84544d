/** The operations on /api/persons/ (API.md §4.0 catalogue CRUD pattern, §4.9). */
import { crudRoutes } from '../../shared/http/crud-routes.js';
import { persons } from '../../shared/domain/persons.js';
import { TITLE_KEYS } from '../../shared/domain/title-resource.js';
import { authoredFilters, authoredItem, authoredOrderings, voiceFilters, voiceItem, voiceOrderings } from '../../shared/domain/casts.js';
import { TOMBSTONE_KEYS } from '../../shared/db/tombstones.js';
import { defineRoute } from '../../shared/http/route.js';
import { orderingParam } from '../../shared/http/schemas.js';
import * as z from 'zod';

export const routes = {
  ...crudRoutes({ ...persons, keys: TITLE_KEYS.person }),
  mangas: defineRoute({
    name: 'persons.mangas', method: 'GET', path: '/api/persons/{id}/mangas/', access: 'public',
    summary: 'List the mangas a person is credited as author of',
    query: z.object({ ordering: orderingParam(authoredOrderings, '-published_from'), ...authoredFilters }),
    response: { status: 200, schema: authoredItem, page: true, fields: Object.keys(authoredItem.shape) }, errors: ['not-found'],
    keys: ['PERSON#*', 'MANGA#*', TOMBSTONE_KEYS],
  }),
  voices: defineRoute({
    name: 'persons.voices', method: 'GET', path: '/api/persons/{id}/voices/', access: 'public',
    summary: 'List the characters a person voices, with their animes',
    query: z.object({ ordering: orderingParam(voiceOrderings, '-aired_from'), ...voiceFilters }),
    response: { status: 200, schema: voiceItem, page: true, fields: Object.keys(voiceItem.shape) }, errors: ['not-found'],
    keys: ['PERSON#*', 'ANIME#*', 'CHARACTER#*', TOMBSTONE_KEYS],
  }),
};

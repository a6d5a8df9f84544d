/** The operations on /api/persons/ (API.md §4.0 catalogue CRUD pattern, §4.9). */
import { FILE_KEYS } from '../../shared/db/files.js';
import { personTitle } from '../../shared/db/persons.js';
import { titleKeys } from '../../shared/db/titles.js';
import { crudRoutes } from '../../shared/http/crud-routes.js';
import { mediaOrderings, pictureRead } from '../../shared/domain/media.js';
import { persons } from '../../shared/domain/persons.js';
import { pictureUploadBody } from '../../shared/domain/pictures.js';
import { TITLE_KEYS } from '../../shared/domain/title-resource.js';
import { authoredFilters, authoredItem, authoredOrderings, voiceFilters, voiceItem, voiceOrderings } from '../../shared/domain/casts.js';
import { TOMBSTONE_KEYS } from '../../shared/db/tombstones.js';
import { defineRoute } from '../../shared/http/route.js';
import { orderingParam } from '../../shared/http/schemas.js';
import * as z from 'zod/mini';

// Writes that drop uploaded pictures (PUT, PATCH, DELETE) queue their files (FILE#GONE); reads
// and the creation (which has none to drop) keep to the persons' items.
const WRITES = [...TITLE_KEYS.person, FILE_KEYS];
const crud = crudRoutes({ ...persons, keys: TITLE_KEYS.person });

export const routes = {
  ...crud,
  put: { ...crud.put, keys: WRITES },
  patch: { ...crud.patch, keys: WRITES },
  delete: { ...crud.delete, keys: WRITES },
  createPicture: defineRoute({
    name: 'persons.create-picture', method: 'POST', path: '/api/persons/{id}/create-picture/', access: persons.writer,
    summary: 'Upload a picture of a person',
    description: 'A multipart/form-data body: `image` (JPEG, PNG or WebP by content, at most 2 MiB, 1–3,000 pixels each side) and an optional `name`. The file is stored unchanged and its Picture appended to the person’s pictures (at most 100).',
    bodyType: 'multipart', body: pictureUploadBody, uses: ['picture-storage'], rateLimit: { policy: 'upload' },
    response: { status: 201, schema: pictureRead, etag: false }, errors: ['not-found', 'validation-error', 'service-unavailable'], keys: WRITES,
  }),
  pictures: defineRoute({
    name: 'persons.pictures', method: 'GET', path: '/api/persons/{id}/pictures/', access: 'public',
    summary: "List a person's pictures",
    query: z.object({ ordering: orderingParam(mediaOrderings, 'position') }),
    response: { status: 200, schema: pictureRead, page: true, fields: Object.keys(pictureRead.shape) }, errors: ['not-found'], keys: [titleKeys(personTitle)],
  }),
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

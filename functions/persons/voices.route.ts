/** The declaration of `persons.voices` (its function: voices.ts). */
import * as z from 'zod/mini';
import { grant, grants } from '../../shared/db/key-patterns.js';
import { TOMBSTONE_READS } from '../../shared/db/tombstones.js';
import { indexReads } from '../../shared/domain/index-reader.js';
import { voiceFilters, voiceItem, voiceOrderings } from '../../shared/domain/voices.js';
import { defineRoute } from '../../shared/http/route.js';
import { orderingParam } from '../../shared/domain/params.js';

export const route = defineRoute({
  name: 'persons.voices', method: 'GET', path: '/api/persons/{id}/voices/', access: 'public',
  summary: 'List the characters a person voices, with their animes',
  query: z.object({ ordering: orderingParam(voiceOrderings, '-aired_from'), ...voiceFilters }),
  response: { status: 200, schema: voiceItem, page: true, fields: Object.keys(voiceItem.shape) }, errors: ['not-found'],
  // The person (404) and their voice groups, the index of the animes or of the characters (its
  // pointer and deltas; its snapshot from the index bucket: decision O17), the animes and
  // characters shown, the tombstones.
  keys: grants(grant('PERSON#*', 'BatchGetItem', 'Query'), grant(['ANIME#*', 'CHARACTER#*'], 'BatchGetItem'), indexReads('ANIME', 'CHARACTER'), TOMBSTONE_READS),
  uses: ['index-read'],
});

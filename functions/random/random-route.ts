/** The declaration of a `GET /api/random/<kind>/` route (routes.ts lists them, one module each). */
import type * as z from 'zod/mini';
import { grant, grants } from '../../shared/db/key-patterns.js';
import { TITLE_ITEMS, TITLE_OPERATIONS } from '../../shared/domain/title-resource.js';
import { defineRoute } from '../../shared/http/route.js';

export function randomRoute<const K extends 'anime' | 'manga' | 'character' | 'person'>(kind: K, read: z.ZodMiniObject, noun: string) {
  return defineRoute({
    name: `random.${kind}`, method: 'GET', path: `/api/random/${kind}/`, access: 'public',
    summary: `A random ${noun}`, description: `Drawn uniformly among all ${noun}s, independently of earlier calls; 404 when there is none.`,
    response: { status: 200, schema: read, fields: Object.keys(read.shape) }, cache: 'no-store', errors: ['not-found'],
    // The detail's reads, after the kind's counter and one slot (GetItem, shared/db/slots.ts).
    keys: grants(TITLE_OPERATIONS[kind].get, grant(TITLE_ITEMS[kind].own, 'GetItem')),
  });
}

/** The declaration of a `GET /api/random/<kind>/` route (routes.ts lists them, one module each). */
import type * as z from 'zod/mini';
import * as zm from 'zod/mini';
import { TOMBSTONE_READS } from '../../shared/db/tombstones.js';
import { indexReads } from '../../shared/domain/index-reader.js';
import { sfwParam } from '../../shared/domain/params.js';
import { grant, grants } from '../../shared/db/key-patterns.js';
import { TITLE_ITEMS, TITLE_OPERATIONS } from '../../shared/domain/title-resource.js';
import { defineRoute } from '../../shared/http/route.js';

export function randomRoute<const K extends 'anime' | 'manga' | 'character' | 'person'>(kind: K, read: z.ZodMiniObject, noun: string) {
  // Animes and mangas take `sfw` (API.md §8.3): drawn among the safe-for-work ones, from the kind's index.
  const titles = kind === 'anime' || kind === 'manga';
  return defineRoute({
    name: `random.${kind}`, method: 'GET', path: `/api/random/${kind}/`, access: 'public',
    summary: `A random ${noun}`, description: `Drawn uniformly among all ${noun}s${titles ? ' (with sfw=true: among those not explicit)' : ''}, independently of earlier calls; 404 when there is none.`,
    response: { status: 200, schema: read, fields: Object.keys(read.shape) }, cache: 'no-store', errors: ['not-found'],
    ...(titles ? { query: zm.object({ sfw: sfwParam }), uses: ['index-read' as const] } : {}),
    // The detail's reads, after the kind's counter and one slot (GetItem, shared/db/slots.ts); with
    // `sfw=true`, after the kind's index and a tombstone shard.
    keys: grants(TITLE_OPERATIONS[kind].get, grant(TITLE_ITEMS[kind].own, 'GetItem'), titles ? grants(indexReads(kind.toUpperCase()), TOMBSTONE_READS) : {}),
  });
}

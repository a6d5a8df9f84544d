/**
 * The query and path schemas the handler adds to every operation: path ids, pagination
 * (`limit`, `cursor`) and sparse fieldsets (`fields`) (API.md §1.5, §1.6). The parameters
 * routes declare themselves (`ordering`, `q`, filters) are in shared/domain/params.ts.
 */
import * as z from 'zod/mini';
import { ID_PATTERN } from '../domain/fields.js';
import type { RouteDecl } from './route.js';

/** Path ids: anything that is not a well-formed id cannot name a record (→ 404). */
export function idParams(names: readonly string[]) {
  return z.object(Object.fromEntries(names.map((n) => [n, z.string().check(z.regex(ID_PATTERN))])));
}

const LIMIT = 'Must be an integer between 1 and 100.';
const limit = z
  .pipe(z.pipe(z.string().check(z.regex(/^\d+$/, LIMIT)), z.transform(Number)), z.int().check(z.gte(1, LIMIT), z.lte(100, LIMIT)))
  .check(z.meta({ description: 'Page size, 1–100 (default 25).' }));

/** `cursor` is verified by the middleware (signature and binding); here it is only a string. */
const cursor = z.string().check(z.meta({ description: 'Opaque cursor from `next` or `previous`.' }));

/** `limit` and `cursor`, for a list whose envelope is not §1.5's (the change feed, §8.5: it declares them itself). */
export const paginationParams = { limit: z.optional(limit), cursor: z.optional(cursor) };

function fieldsParam(keys: readonly string[]) {
  return z
    .pipe(
      z.string(),
      z.transform((v: string, ctx) => {
        const parts = v.split(',');
        for (const p of parts) {
          if (!keys.includes(p)) ctx.issues.push({ code: 'custom', message: `Unknown field "${p}".`, input: v });
        }
        return [...new Set(parts)];
      }),
    )
    .check(z.meta({ description: `Comma-separated keys to return: ${keys.join(', ')}.` }));
}

/** The full query schema of a route: its own parameters plus pagination and `fields`. */
export function pageQuerySchema(route: RouteDecl): z.ZodMiniObject {
  const shape: Record<string, z.core.$ZodType> = { ...(route.query?.shape ?? {}) };
  if (route.response.page) {
    Object.assign(shape, paginationParams);
  }
  if (route.response.fields) shape.fields = z.optional(fieldsParam(route.response.fields));
  return z.object(shape);
}

/**
 * Query and path schemas shared by every operation: pagination (`limit`, `cursor`), sparse
 * fieldsets (`fields`), `ordering`, `q`, enum and boolean filters (API.md §1.5, §1.6). Query
 * values arrive as strings; each schema turns one into its typed value or an error.
 */
import * as z from 'zod';
import { ID_PATTERN } from '../domain/fields.js';
import { queryTerms } from '../text.js';
import type { RouteDecl } from './route.js';

/** Path ids: anything that is not a well-formed id cannot name a record (→ 404). */
export function idParams(names: readonly string[]) {
  return z.object(Object.fromEntries(names.map((n) => [n, z.string().regex(ID_PATTERN)])));
}

const limit = z
  .string()
  .regex(/^\d+$/, 'Must be an integer between 1 and 100.')
  .transform(Number)
  .pipe(z.number().int().min(1, 'Must be an integer between 1 and 100.').max(100, 'Must be an integer between 1 and 100.'))
  .meta({ description: 'Page size, 1–100 (default 25).' });

/** `cursor` is verified by the middleware (signature and binding); here it is only a string. */
const cursor = z.string().meta({ description: 'Opaque cursor from `next` or `previous`.' });

function fieldsParam(keys: readonly string[]) {
  return z
    .string()
    .transform((v, ctx) => {
      const parts = v.split(',');
      for (const p of parts) {
        if (!keys.includes(p)) ctx.issues.push({ code: 'custom', message: `Unknown field "${p}".`, input: v });
      }
      return [...new Set(parts)];
    })
    .meta({ description: `Comma-separated keys to return: ${keys.join(', ')}.` });
}

/** The full query schema of a route: its own parameters plus pagination and `fields`. */
export function pageQuerySchema(route: RouteDecl): z.ZodObject {
  const shape: Record<string, z.ZodType> = { ...(route.query?.shape ?? {}) };
  if (route.response.page) {
    shape.limit = limit.optional();
    shape.cursor = cursor.optional();
  }
  if (route.response.fields) shape.fields = fieldsParam(route.response.fields).optional();
  return z.object(shape);
}

/** `ordering`: one allowed key, optionally prefixed with `-`. */
export function orderingParam(keys: readonly string[], defaultKey: string) {
  const allowed = new Set(keys.flatMap((k) => [k, `-${k}`]));
  return z
    .string()
    .refine((v) => allowed.has(v), `Must be one of: ${keys.join(', ')} (prefix with - for descending).`)
    .transform((v) => ({ key: v.replace(/^-/, ''), descending: v.startsWith('-') }))
    .optional()
    .transform((v) => v ?? { key: defaultKey.replace(/^-/, ''), descending: defaultKey.startsWith('-') })
    .meta({ description: `One of ${keys.join(', ')}; prefix with - for descending. Default ${defaultKey}.` });
}

/** `q`: the search terms of §1.6 (an empty list means "ignored"). */
export const searchParam = z
  .string()
  .transform((v, ctx) => {
    const out = queryTerms(v);
    if ('error' in out) {
      ctx.issues.push({ code: 'custom', message: out.error, input: v });
      return [];
    }
    return out.terms;
  })
  .optional()
  .transform((v) => v ?? [])
  .meta({ description: 'Search: every term must be a prefix of a word of the searched fields.' });

export function enumParam<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values).optional();
}

export const booleanParam = z
  .enum(['true', 'false'])
  .transform((v) => v === 'true')
  .optional();

/** A filter naming a record (§1.6: it must identify an existing, non-deleted record; checked by the list). */
export const idParam = z.string().regex(ID_PATTERN, 'Not a valid id.').optional();

/** A number 0–10 with at most two decimals (`min_score`). */
export const scoreParam = z
  .string()
  .regex(/^\d+(\.\d{1,2})?$/, 'Must be a number between 0 and 10 with at most two decimals.')
  .transform(Number)
  .refine((n) => n <= 10, 'Must be a number between 0 and 10 with at most two decimals.')
  .optional();

/**
 * The query parameters routes declare (API.md §1.5, §1.6, §8): `ordering`, `q`, enum, boolean,
 * id and score filters, `ids` and `sfw`. Query values arrive as strings; each schema turns one
 * into its typed value or an error. The domain declares its list options with them, so they
 * live below shared/http (which adds pagination and `fields`: shared/http/schemas.ts).
 */
import * as z from 'zod/mini';
import { queryTerms } from '../text.js';
import { ID_PATTERN } from './fields.js';

/** `ordering`: one allowed key, optionally prefixed with `-`. */
export function orderingParam(keys: readonly string[], defaultKey: string) {
  const allowed = new Set(keys.flatMap((k) => [k, `-${k}`]));
  const key = z.pipe(
    z.string().check(z.refine((v) => allowed.has(v), `Must be one of: ${keys.join(', ')} (prefix with - for descending).`)),
    z.transform((v: string) => ({ key: v.replace(/^-/, ''), descending: v.startsWith('-') })),
  );
  return z
    .pipe(
      z.optional(key),
      z.transform((v: { key: string; descending: boolean } | undefined) => v ?? { key: defaultKey.replace(/^-/, ''), descending: defaultKey.startsWith('-') }),
    )
    .check(z.meta({ description: `One of ${keys.join(', ')}; prefix with - for descending. Default ${defaultKey}.` }));
}

/** `q`: the search terms of §1.6 (an empty list means "ignored"). */
const terms = z.pipe(
  z.string(),
  z.transform((v: string, ctx) => {
    const out = queryTerms(v);
    if ('error' in out) {
      ctx.issues.push({ code: 'custom', message: out.error, input: v });
      return [];
    }
    return out.terms;
  }),
);
export const searchParam = z
  .pipe(z.optional(terms), z.transform((v: string[] | undefined) => v ?? []))
  .check(z.meta({ description: 'Search: every term must be a prefix of a word of the searched fields.' }));

export function enumParam<const T extends readonly [string, ...string[]]>(values: T) {
  return z.optional(z.enum(values));
}

export const booleanParam = z.optional(z.pipe(z.enum(['true', 'false']), z.transform((v: 'true' | 'false') => v === 'true')));

/** `fuzzy` (§8.4): with `q`, terms of 4 or more characters also match typos and words written together. */
export const fuzzyParam = booleanParam.check(
  z.meta({ description: 'true: with q, a term of 4–7 characters also matches a word within one typo of it (8 or more: two), and words written together (rezero).' }),
);

/** `sfw` (§8.3): `true` leaves out explicit titles; `false` or absent: no effect; anything else → 400. */
export const sfwParam = booleanParam.check(z.meta({ description: 'true: leave out titles rated rx or with an explicit genre or theme.' }));

/** A filter naming a record (§1.6: it must identify an existing, non-deleted record; checked by the list). */
export const idParam = z.optional(z.string().check(z.regex(ID_PATTERN, 'Not a valid id.')));

/** At most this many ids in `ids` (API.md §8.1). */
export const MAX_IDS = 100;
const IDS = `A comma-separated list of 1–${MAX_IDS} distinct ids.`;
/**
 * `ids` (§8.1): a batch lookup, a filter like the others. Ids that name no record are simply
 * absent from the results (unlike a relation filter's id), so only the list's form is checked.
 */
/** An optional comma-separated list of 1–100 distinct well-formed ids (`ids`, the calendar's `anime`), described for the OpenAPI document. */
export const idsListParam = (description: string) =>
  z.optional(
    z
      .pipe(
        z.string(),
        z.transform((v: string, ctx) => {
          const parts = v.split(',');
          const bad = parts.find((p) => !ID_PATTERN.test(p));
          if (bad !== undefined) ctx.issues.push({ code: 'custom', message: bad === '' ? `${IDS} An id is empty.` : `"${bad.slice(0, 70)}" is not a valid id.`, input: v });
          else if (parts.length > MAX_IDS) ctx.issues.push({ code: 'custom', message: `${IDS} ${parts.length} were given.`, input: v });
          else if (new Set(parts).size < parts.length) ctx.issues.push({ code: 'custom', message: `${IDS} An id is repeated.`, input: v });
          return parts;
        }),
      )
      .check(z.meta({ description })),
  );
export const idsParam = idsListParam(`Only these records: a comma-separated list of 1–${MAX_IDS} distinct ids (ids of no record are simply absent).`);

/** A number 0–10 with at most two decimals (`min_score`). */
const SCORE = 'Must be a number between 0 and 10 with at most two decimals.';
export const scoreParam = z.optional(
  z.pipe(z.string().check(z.regex(/^\d+(\.\d{1,2})?$/, SCORE)), z.transform(Number)).check(z.refine((n: number) => n <= 10, SCORE)),
);

/**
 * A typed client of the API: openapi-fetch (a small fetch wrapper) over the types that
 * openapi-typescript generates from the OpenAPI document (schema.ts, `npm run client`).
 *
 * Sparse fieldsets (API.md §1.6): the document gives the operations that take `fields` two
 * representations, the full one and the sparse one (`id` and the requested keys). This client
 * tells them apart by the request: a GET without `fields` returns the full representation, one
 * with a literal `fields` (`'name,score'`) an object with exactly `id` and those keys, and one
 * with any other string the sparse representation, whose keys are all optional.
 *
 *   const api = createCatalogueClient({ baseUrl: 'http://localhost:3000' });
 *   const { data } = await api.GET('/api/animes/', { params: { query: { q: 'frieren', fields: 'name' } } });
 *   data?.results[0]?.name; // string
 */
import createClient, { type Client, type ClientOptions, type FetchResponse, type MaybeOptionalInit, type Middleware } from 'openapi-fetch';
import type { MediaType, PathsWithMethod } from 'openapi-typescript-helpers';
import type { components, operations, paths } from './schema.js';

export type { components, operations, paths };

/** A member of a response union that is a sparse fieldset: nothing but `id` is required. */
type IsSparse<M> = Partial<Omit<M, 'id'>> extends Omit<M, 'id'> ? true : false;
type FullOf<U> = U extends unknown ? (IsSparse<U> extends true ? never : U) : never;
type SparseOf<U> = U extends unknown ? (IsSparse<U> extends true ? U : never) : never;

/** The keys of a literal `fields` value: `'name,score'` → `'name' | 'score'`. */
type FieldKeys<S extends string> = S extends `${infer Head},${infer Tail}` ? Head | FieldKeys<Tail> : S;

/** One record as requested: full without `fields`, `id` plus the named keys with a literal one. */
type AsRequestedItem<U, F> = [F] extends [undefined]
  ? FullOf<U>
  : F extends string
    ? string extends F
      ? SparseOf<U>
      : Pick<FullOf<U>, Extract<'id' | FieldKeys<F>, keyof FullOf<U>>>
    : SparseOf<U>;

/** A body as requested: a record, or a page whose `results` are records. */
type AsRequested<D, F> = D extends { results: (infer I)[] } ? Omit<D, 'results'> & { results: AsRequestedItem<I, F>[] } : AsRequestedItem<D, F>;

/** The `fields` a request names: undefined when it names none, string when it may name some. */
type QueryOf<Init> = Init extends { params: { query: infer Q } } ? Q : undefined;
type FieldsOf<Init> = [QueryOf<Init>] extends [undefined]
  ? undefined
  : 'fields' extends keyof QueryOf<Init>
    ? QueryOf<Init> extends { fields: infer F }
      ? F
      : string
    : undefined;

/** Whether an operation takes `fields`. */
type TakesFields<Op> = Op extends { parameters: { query?: infer Q } } ? ([NonNullable<Q>] extends [never] ? false : 'fields' extends keyof NonNullable<Q> ? true : false) : false;

type Narrowed<R, Op, Init> = TakesFields<Op> extends true
  ? R extends { data: infer D; error?: never }
    ? Omit<R, 'data'> & { data: AsRequested<D, FieldsOf<Init>> }
    : R
  : R;

type GetPath = PathsWithMethod<paths, 'get'>;
/** The GET paths whose request options may be left out (no required parameter). */
type OptionalInitPath = { [P in GetPath]: undefined extends MaybeOptionalInit<paths[P], 'get'> ? P : never }[GetPath];
type GetResponse<Path extends GetPath, Init> = Narrowed<FetchResponse<paths[Path]['get'], Init, MediaType>, paths[Path]['get'], Init>;

/**
 * openapi-fetch's GET, with the request options typed `const` so that a literal `fields` keeps
 * its keys (openapi-fetch's own signature widens it to string).
 */
interface GetMethod {
  <Path extends GetPath, const Init extends MaybeOptionalInit<paths[Path], 'get'>>(url: Path, init: Init & { [key: string]: unknown }): Promise<GetResponse<Path, Init>>;
  <Path extends OptionalInitPath>(url: Path): Promise<GetResponse<Path, undefined>>;
}

/** openapi-fetch's client of this API, with GET responses typed as requested (`fields`). */
export type CatalogueClient = Omit<Client<paths>, 'GET'> & { GET: GetMethod };

export function createCatalogueClient(options: ClientOptions & { baseUrl: string }): CatalogueClient {
  // The same client at run time: only the types of GET responses are narrower.
  return createClient<paths>(options) as unknown as CatalogueClient;
}

/** A middleware that sends `Authorization: Bearer <token>` (the access token of a sign-in). */
export function bearerAuth(token: string): Middleware {
  return {
    onRequest({ request }) {
      request.headers.set('Authorization', `Bearer ${token}`);
      return request;
    },
  };
}

/** A problem document (API.md §1.4), the body of every error response. */
export type Problem = components['schemas']['Problem'];

/**
 * What each function may touch (DESIGN.md §6, least privilege), derived from its route
 * declaration. This is the one place to change when a route starts needing more: e.g. when
 * the token-minting operations arrive, add their names to SIGNS_TOKENS.
 */
import type { RouteDecl } from '../../shared/http/route.js';

/** Reads of the table (TransactGetItems is authorised per item as GetItem). */
export const TABLE_READ = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'] as const;

/**
 * Writes. TransactWriteItems is authorised per item action, so a transaction with a condition
 * check needs ConditionCheckItem. No Scan (DESIGN.md §4), no BatchWriteItem (writes are
 * conditioned transactions), no table administration.
 */
export const TABLE_WRITE = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:ConditionCheckItem'] as const;

/** GET operations that store something all the same: the start of social sign-in keeps its state (PutItem). */
const GET_PUTS: ReadonlySet<string> = new Set(['socials.start']);

/**
 * GET operations that write like other routes: `my-profile` creates the caller's blank profile
 * when it is absent (a transaction: record, claim, ordering entries, counter, user check).
 */
const GET_WRITES: ReadonlySet<string> = new Set(['profiles.my-profile']);

/**
 * The table actions of a route's function: reads for GET, reads and writes otherwise; a GET
 * with a rate-limit policy also counts its requests (UpdateItem, shared/db/rate-counters.ts),
 * one of GET_PUTS puts its item, and one of GET_WRITES writes.
 */
export function tableActions(route: Pick<RouteDecl, 'name' | 'method' | 'rateLimit'>): readonly string[] {
  if (route.method !== 'GET' || GET_WRITES.has(route.name)) return [...TABLE_READ, ...TABLE_WRITE];
  return [...TABLE_READ, ...(GET_PUTS.has(route.name) ? ['dynamodb:PutItem'] : []), ...(route.rateLimit ? ['dynamodb:UpdateItem'] : [])];
}

/** List operations sign and check pagination cursors with the cursor key (API.md §1.5). */
export function usesCursorKey(route: Pick<RouteDecl, 'response'>): boolean {
  return route.response.page === true;
}

/**
 * Operations without `public` access that still read the public signing keys: the JWK Set
 * endpoint publishes them; `POST /api/tokens/jwt/verify/` and the refresh operation verify
 * tokens given in the body.
 */
const READS_PUBLIC_KEYS: ReadonlySet<string> = new Set(['support.jwks', 'tokens.refresh', 'tokens.verify']);

/**
 * Verifying tokens needs the public keys: public operations verify a token when one is sent
 * (API.md §2.1); protected routes get the verified caller from the authorizer instead.
 */
export function readsPublicKeys(route: Pick<RouteDecl, 'name' | 'access'>): boolean {
  return route.access === 'public' || READS_PUBLIC_KEYS.has(route.name);
}

/**
 * Operations that mint tokens and so read the private signing keys (API.md §2.2): sign-in,
 * refresh and the end of social sign-in.
 */
const SIGNS_TOKENS: ReadonlySet<string> = new Set<string>(['tokens.create', 'tokens.refresh', 'socials.finish']);

export function readsPrivateKeys(route: Pick<RouteDecl, 'name'>): boolean {
  return SIGNS_TOKENS.has(route.name);
}

/** Social sign-in reads the provider configuration (both operations)… */
export function readsSocialProviders(route: Pick<RouteDecl, 'name'>): boolean {
  return route.name.startsWith('socials.');
}

/** …and the end of it the providers' client secrets (the code exchange). */
export function readsSocialSecrets(route: Pick<RouteDecl, 'name'>): boolean {
  return route.name === 'socials.finish';
}

/** Operations that issue or check e-mailed tokens (`uses: ['email-tokens']`) read their HMAC key (API.md §6). */
export function usesEmailTokenKey(route: Pick<RouteDecl, 'uses'>): boolean {
  return route.uses?.includes('email-tokens') === true;
}

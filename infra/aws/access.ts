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

/** The table actions of a route's function: reads for GET, reads and writes otherwise. */
export function tableActions(route: Pick<RouteDecl, 'method'>): readonly string[] {
  return route.method === 'GET' ? TABLE_READ : [...TABLE_READ, ...TABLE_WRITE];
}

/** List operations sign and check pagination cursors with the cursor key (API.md §1.5). */
export function usesCursorKey(route: Pick<RouteDecl, 'response'>): boolean {
  return route.response.page === true;
}

/**
 * Operations without `public` access that still read the public signing keys: the JWK Set
 * endpoint publishes them; later, `POST /api/tokens/jwt/verify/` and the refresh operation
 * verify tokens given in the body.
 */
const READS_PUBLIC_KEYS: ReadonlySet<string> = new Set(['support.jwks']);

/**
 * Verifying tokens needs the public keys: public operations verify a token when one is sent
 * (API.md §2.1); protected routes get the verified caller from the authorizer instead.
 */
export function readsPublicKeys(route: Pick<RouteDecl, 'name' | 'access'>): boolean {
  return route.access === 'public' || READS_PUBLIC_KEYS.has(route.name);
}

/**
 * Operations that mint tokens and so read the private signing keys (API.md §2.2): the
 * `/api/tokens/jwt/…` operations and social sign-in, once they exist. Empty today.
 */
const SIGNS_TOKENS: ReadonlySet<string> = new Set<string>([]);

export function readsPrivateKeys(route: Pick<RouteDecl, 'name'>): boolean {
  return SIGNS_TOKENS.has(route.name);
}

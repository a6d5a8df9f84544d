/**
 * What each function may touch (DESIGN.md §6, least privilege), derived from the facts of its
 * route declaration (shared/http/route.ts) and nothing else: the method, `access`, `keys`,
 * `response.page`, `rateLimit`, `sendsMail`, `writes` and `uses`. No route is named here: a
 * route that starts needing more says so in its declaration (e.g. `uses: ['signing-key']`).
 */
import { FUNCTION_ENV } from '../api-config.js';
import type { KeyPattern } from '../../shared/db/key-patterns.js';
import { OUTBOX_KEYS } from '../../shared/db/outbox.js';
import { RATE_KEYS } from '../../shared/db/rate-counters.js';
import { AUTH_KEYS } from '../../shared/db/users.js';
import type { Capability, RouteDecl } from '../../shared/http/route.js';

/** Reads of the table (TransactGetItems is authorised per item as GetItem). */
export const TABLE_READ = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'] as const;

/**
 * Writes. TransactWriteItems is authorised per item action, so a transaction with a condition
 * check needs ConditionCheckItem. No Scan (DESIGN.md §4), no BatchWriteItem (writes are
 * conditioned transactions), no table administration.
 */
export const TABLE_WRITE = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:ConditionCheckItem'] as const;

/**
 * The table actions of a route's function: reads and writes for every method but GET. A GET
 * reads; with a rate-limit policy it also counts its requests (UpdateItem,
 * shared/db/rate-counters.ts); `writes: 'put'` adds PutItem, `writes: true` every write.
 */
export function tableActions(route: Pick<RouteDecl, 'method' | 'rateLimit' | 'writes'>): readonly string[] {
  if (route.method !== 'GET' || route.writes === true) return [...TABLE_READ, ...TABLE_WRITE];
  return [...TABLE_READ, ...(route.writes === 'put' ? ['dynamodb:PutItem'] : []), ...(route.rateLimit ? ['dynamodb:UpdateItem'] : [])];
}

/**
 * The items a route's function may touch (partition-key patterns, the `dynamodb:LeadingKeys` of
 * its role): those its declaration lists, plus what every function of its kind needs — the auth
 * states on public routes (they check a sent token themselves, API.md §2.1), the counters of a
 * `rateLimit`, the outbox for `sendsMail`.
 */
export function routeKeys(route: Pick<RouteDecl, 'access' | 'keys' | 'rateLimit' | 'sendsMail'>): KeyPattern[] {
  const implied = [...(route.access === 'public' ? [AUTH_KEYS] : []), ...(route.rateLimit ? [RATE_KEYS] : []), ...(route.sendsMail ? [OUTBOX_KEYS] : [])];
  return [...new Set([...route.keys, ...implied])];
}

/** The authorizer checks tokens: it reads the users' auth states, and nothing else. */
export const AUTHORIZER_KEYS: readonly KeyPattern[] = [AUTH_KEYS];

/** The secrets of the stack, by their property in CatalogueSecrets (secrets.ts). */
export type SecretKey = 'jwtPublic' | 'jwtPrivate' | 'cursor' | 'emailToken' | 'social';

/**
 * What a function is given for a capability: a secret (read permission and its ARN in `env`), a
 * setting in `env`, or the pictures bucket (s3:PutObject under `pictures/`, its name in `env` and
 * the pictures' public base URL beside it).
 */
export type Grant = { secret: SecretKey; env: string } | { setting: 'socialProviders'; env: string } | { storage: 'pictures'; env: string };

/** Each capability of `RouteDecl.uses` and what it grants. */
export const CAPABILITY_GRANTS: Readonly<Record<Capability, Grant>> = {
  'public-keys': { secret: 'jwtPublic', env: FUNCTION_ENV.jwtPublic },
  'signing-key': { secret: 'jwtPrivate', env: FUNCTION_ENV.jwtPrivate },
  'email-tokens': { secret: 'emailToken', env: FUNCTION_ENV.emailTokenKey },
  'social-providers': { setting: 'socialProviders', env: FUNCTION_ENV.socialProviders },
  'social-secrets': { secret: 'social', env: FUNCTION_ENV.socialSecrets },
  'picture-storage': { storage: 'pictures', env: FUNCTION_ENV.picturesBucket },
};

/** The cursor key: list operations sign and check pagination cursors with it (API.md §1.5). */
export const CURSOR_GRANT: Grant = { secret: 'cursor', env: FUNCTION_ENV.cursor };

/**
 * The capabilities of a route: those it declares, plus `public-keys` for public operations,
 * which verify a token when one is sent (API.md §2.1; protected routes get the verified caller
 * from the authorizer instead).
 */
export function capabilitiesOf(route: Pick<RouteDecl, 'access' | 'uses'>): Set<Capability> {
  const out = new Set<Capability>(route.uses ?? []);
  if (route.access === 'public') out.add('public-keys');
  return out;
}

/** Everything a route's function is given besides the table, in a stable order. */
export function routeGrants(route: Pick<RouteDecl, 'access' | 'uses' | 'response'>): Grant[] {
  const capabilities = capabilitiesOf(route);
  const grants = (Object.keys(CAPABILITY_GRANTS) as Capability[]).filter((c) => capabilities.has(c)).map((c) => CAPABILITY_GRANTS[c]);
  return route.response.page === true ? [CURSOR_GRANT, ...grants] : grants;
}

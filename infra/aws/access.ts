/**
 * What each function may touch (DESIGN.md §6, least privilege), derived from the facts of its
 * route declaration (shared/http/route.ts) and nothing else: `access`, `keys` (the actions per
 * key pattern), `method` and `response` (a creation; `response.page`), `rateLimit`, `sendsMail`
 * and `uses`. No route is named here: a route that starts needing more says so in its
 * declaration (e.g. `uses: ['signing-key']`).
 */
import { FUNCTION_ENV } from '../api-config.js';
import { grant, grants, TABLE_ACTIONS, type KeyGrants, type KeyPattern, type TableAction } from '../../shared/db/key-patterns.js';
import { IDEMPOTENCY_KEYS } from '../../shared/db/idempotency.js';
import { OUTBOX_KEYS } from '../../shared/db/outbox.js';
import { RATE_KEYS } from '../../shared/db/rate-counters.js';
import { AUTH_KEYS } from '../../shared/db/users.js';
import { routePolicies } from '../../shared/http/rate-limits.js';
import { takesIdempotencyKey, type Capability, type RouteDecl } from '../../shared/http/route.js';

/** A public route's token check: the auth state of a sent token, read with the operation's own items (API.md §2.1). */
export const TOKEN_CHECK: KeyGrants = grant(AUTH_KEYS, 'BatchGetItem');

/** Counting a request against a rate limit, and taking the count back (shared/db/rate-counters.ts). */
export const RATE_COUNTING: KeyGrants = grant(RATE_KEYS, 'UpdateItem');

/** Queuing an e-mail: the outbox message and its due entry, in the transaction of the change (shared/db/outbox.ts). */
export const MAIL_QUEUING: KeyGrants = grant(OUTBOX_KEYS, 'PutItem');

/**
 * A creation's Idempotency-Key (API.md §8.7, shared/db/idempotency.ts): the claim (a conditional
 * PutItem, whose refusal returns the item there), the stored answer (a Put in the creation's
 * transaction, or a PutItem after a refusal) and the claim given back (DeleteItem).
 */
export const IDEMPOTENT_CREATION: KeyGrants = grant(IDEMPOTENCY_KEYS, 'PutItem', 'DeleteItem');

/**
 * What a route's function may do to the table: what its declaration grants (`keys`), plus what
 * every function of its kind needs — the token check of public routes, the counters of a
 * `rateLimit`, the outbox for `sendsMail`, the Idempotency-Key of a creation (a POST answering 201).
 */
export function routeKeys(route: Pick<RouteDecl, 'access' | 'keys' | 'rateLimit' | 'sendsMail' | 'method' | 'response'>): KeyGrants {
  return grants(
    route.keys,
    route.access === 'public' ? TOKEN_CHECK : {},
    routePolicies(route).length > 0 ? RATE_COUNTING : {},
    route.sendsMail ? MAIL_QUEUING : {},
    takesIdempotencyKey(route) ? IDEMPOTENT_CREATION : {},
  );
}

/** The authorizer checks tokens: it reads the users' auth states, and nothing else. */
export const AUTHORIZER_KEYS: KeyGrants = grant(AUTH_KEYS, 'GetItem');

/** One statement of a role on the table: these actions (IAM names) on the items of these patterns. */
export interface TableStatement {
  actions: string[];
  keys: KeyPattern[];
}

/**
 * The statements that grant exactly `keys`: one per set of patterns, holding every action that
 * is granted on exactly that set. So each action is in one statement with every pattern it is
 * granted on, and a call that names several items (BatchGetItem, BatchWriteItem) is allowed
 * whether DynamoDB checks its keys one by one or as one set against a statement's
 * `ForAllValues` condition. Stable order: statements by their first action, patterns sorted.
 */
export function grantStatements(keys: KeyGrants): TableStatement[] {
  const byPatterns = new Map<string, { actions: TableAction[]; keys: KeyPattern[] }>();
  for (const action of TABLE_ACTIONS) {
    const patterns = Object.entries(keys)
      .filter(([, actions]) => actions.includes(action))
      .map(([pattern]) => pattern)
      .sort();
    if (patterns.length === 0) continue;
    const id = patterns.join('\n');
    const st = byPatterns.get(id) ?? byPatterns.set(id, { actions: [], keys: patterns }).get(id)!;
    st.actions.push(action);
  }
  return [...byPatterns.values()].map((st) => ({ actions: st.actions.map((a) => `dynamodb:${a}`), keys: st.keys }));
}

/** The secrets of the stack, by their property in CatalogueSecrets (secrets.ts). */
export type SecretKey = 'jwtPublic' | 'jwtPrivate' | 'cursor' | 'emailToken' | 'social';

/**
 * What a function is given for a capability: a secret (read permission and its ARN in `env`), a
 * setting in `env`, the pictures bucket (s3:PutObject under `pictures/`, its name in `env` and
 * the pictures' public base URL beside it), or the index bucket (index-storage.ts `read`: s3:GetObject
 * under `index/`, its name in `env`).
 */
export type Grant = { secret: SecretKey; env: string } | { setting: 'socialProviders'; env: string } | { storage: 'pictures' | 'index'; env: string };

/** Each capability of `RouteDecl.uses` and what it grants. */
export const CAPABILITY_GRANTS: Readonly<Record<Capability, Grant>> = {
  'public-keys': { secret: 'jwtPublic', env: FUNCTION_ENV.jwtPublic },
  'signing-key': { secret: 'jwtPrivate', env: FUNCTION_ENV.jwtPrivate },
  'email-tokens': { secret: 'emailToken', env: FUNCTION_ENV.emailTokenKey },
  'social-providers': { setting: 'socialProviders', env: FUNCTION_ENV.socialProviders },
  'social-secrets': { secret: 'social', env: FUNCTION_ENV.socialSecrets },
  'picture-storage': { storage: 'pictures', env: FUNCTION_ENV.picturesBucket },
  'index-read': { storage: 'index', env: FUNCTION_ENV.indexBucket },
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

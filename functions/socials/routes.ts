/** The operations on /api/socials/ (API.md §4.17): social sign-in with OpenID Connect providers. */
import * as z from 'zod/mini';
import { PROVIDER_NAME } from '../../shared/auth/social.js';
import { grant, grants } from '../../shared/db/key-patterns.js';
import { PROFILE_WRITES } from '../../shared/db/profiles.js';
import { REFRESH_KEYS } from '../../shared/db/sessions.js';
import { SOCIAL_LINK_KEYS, SOCIAL_STATE_KEYS } from '../../shared/db/social.js';
import { ACCOUNT_READS, USER_WRITES } from '../../shared/db/users.js';
import { MSG } from '../../shared/domain/fields.js';
import { defineRoute, type RouteDecl } from '../../shared/http/route.js';

const path = '/api/socials/o/{provider}/';
/** A value that cannot name a provider is a 404 (§1.3); unknown names are found by the operation. */
const params = z.object({ provider: z.string().check(z.regex(PROVIDER_NAME)) });
const required = z.string().check(z.refine((v) => v.trim() !== '', MSG.blank));

export const routes = {
  start: defineRoute({
    name: 'socials.start', method: 'GET', path, access: 'credentials',
    summary: 'Retrieve social information for the provider',
    description: 'Starts social sign-in: the URL to send the user to (state, nonce and PKCE challenge included). The state is valid for 10 minutes.',
    params, query: z.object({ redirect_uri: z.string().check(z.meta({ description: 'Where the provider sends the user back; must be one of the provider’s allowed redirect URIs.' })) }),
    response: { status: 200, schema: z.object({ authorization_url: z.string() }) },
    // A fresh state on every call: never stored by shared caches.
    cache: 'private',
    errors: ['not-found'],
    rateLimit: { policy: 'social' },
    // The provider's configuration (discovery, authorization URL); no client secret.
    uses: ['social-providers'],
    // Stores the state (a new item; never read or changed here).
    keys: grant(SOCIAL_STATE_KEYS, 'PutItem'),
  }),
  finish: defineRoute({
    name: 'socials.finish', method: 'POST', path, access: 'credentials',
    summary: 'Authenticate with the social provider',
    description: 'Finishes social sign-in with the code and state the provider returned (in the body; older clients may send them as query parameters instead). Signs in the linked account; or links the active account with the verified e-mail (its other sessions are revoked, password sign-in then needs a new password set through reset_password, and the account is told by e-mail); or creates an active account, replacing a registration with that e-mail that was never activated.',
    params,
    query: z.object({ code: z.optional(z.string()), state: z.optional(z.string()) }),
    body: z.strictObject({ code: required, state: required }),
    response: {
      status: 201,
      schema: z.object({ access: z.string(), refresh: z.string(), user: z.object({ id: z.string(), username: z.string(), email: z.string() }) }),
      etag: false,
    },
    errors: ['not-found', 'validation-error', 'account-inactive'],
    rateLimit: { policy: 'social' },
    // The code exchange authenticates as the provider's client; the result is a new token pair.
    uses: ['social-providers', 'social-secrets', 'signing-key'],
    // The state (taken: a conditional DeleteItem), the link (read, put; the user's copy put and a
    // replaced one deleted), the account (read; created with its profile, changed when linked, or
    // a never-activated registration re-created with its profile), the new token family, and E10
    // when an existing account is linked (sendsMail).
    keys: grants(
      grant(SOCIAL_STATE_KEYS, 'DeleteItem'),
      grant(SOCIAL_LINK_KEYS[0]!, 'GetItem', 'PutItem'),
      grant(SOCIAL_LINK_KEYS[1]!, 'PutItem', 'DeleteItem'),
      ACCOUNT_READS,
      USER_WRITES.create,
      USER_WRITES.recreate,
      PROFILE_WRITES.create,
      PROFILE_WRITES.rename,
      grant(REFRESH_KEYS, 'PutItem'),
    ),
    sendsMail: true,
  }),
} satisfies Record<string, RouteDecl>;

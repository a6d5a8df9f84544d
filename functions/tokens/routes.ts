/** The operations on /api/tokens/ (API.md §4.19): credentials in, token pairs out. */
import * as z from 'zod/mini';
import { grant, grants } from '../../shared/db/key-patterns.js';
import { REFRESH_KEYS } from '../../shared/db/sessions.js';
import { ACCOUNT_READS, AUTH_KEYS, USER_WRITES } from '../../shared/db/users.js';
import { refreshBody, signInBody, verifyBody } from '../../shared/domain/users.js';
import { defineRoute, type RouteDecl } from '../../shared/http/route.js';

const tokenPair = z.object({ access: z.string(), refresh: z.string() });

export const routes = {
  create: defineRoute({
    name: 'tokens.create', method: 'POST', path: '/api/tokens/jwt/create/', access: 'credentials',
    summary: 'Create a JWT token',
    description: 'Signs in with e-mail and password: a new token family (access and refresh token); `last_login` is updated.',
    body: signInBody, response: { status: 200, schema: tokenPair, etag: false },
    errors: ['validation-error', 'invalid-credentials', 'account-inactive'],
    rateLimit: { policy: 'sign-in' },
    uses: ['signing-key'],
    // Reads the account by e-mail; `last_login` changes with the user; the new family's refresh token is stored.
    keys: grants(ACCOUNT_READS, USER_WRITES.replace, grant(REFRESH_KEYS, 'PutItem')),
  }),
  refresh: defineRoute({
    name: 'tokens.refresh', method: 'POST', path: '/api/tokens/jwt/refresh/', access: 'credentials',
    summary: 'Refresh a JWT token',
    description: 'Spends the refresh token and returns a new pair of the same family. A spent refresh token presented again revokes the family.',
    body: refreshBody, response: { status: 200, schema: tokenPair, etag: false },
    errors: ['validation-error', 'invalid-token'],
    rateLimit: { policy: 'token' },
    // Verifies the refresh token it is given, then mints the next pair.
    uses: ['public-keys', 'signing-key'],
    // Spends the refresh token (a conditional UpdateItem) and stores the next one; checks the
    // auth state, and revokes the family there when a spent token comes back. Never the user record.
    keys: grants(grant(REFRESH_KEYS, 'PutItem', 'UpdateItem'), grant(AUTH_KEYS, 'GetItem', 'UpdateItem')),
  }),
  verify: defineRoute({
    name: 'tokens.verify', method: 'POST', path: '/api/tokens/jwt/verify/', access: 'credentials',
    summary: 'Verify a JWT token',
    description: 'Whether an access or refresh token is currently valid. Never spends or revokes anything.',
    body: verifyBody, response: { status: 200, schema: z.object({}), etag: false },
    errors: ['validation-error', 'invalid-token'],
    rateLimit: { policy: 'token' },
    uses: ['public-keys'],
    // Only reads: the refresh token's state and the auth state.
    keys: grant([REFRESH_KEYS, AUTH_KEYS], 'GetItem'),
  }),
} satisfies Record<string, RouteDecl>;

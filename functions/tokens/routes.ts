/** The operations on /api/tokens/ (API.md §4.19): credentials in, token pairs out. */
import * as z from 'zod/mini';
import { REFRESH_KEYS } from '../../shared/db/sessions.js';
import { AUTH_KEYS, USER_KEYS } from '../../shared/db/users.js';
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
    // Reads the account by e-mail; `last_login` changes with the user.
    keys: [USER_KEYS, AUTH_KEYS, REFRESH_KEYS],
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
    // Token checks and revocations need only the auth state, never the user record.
    keys: [REFRESH_KEYS, AUTH_KEYS],
  }),
  verify: defineRoute({
    name: 'tokens.verify', method: 'POST', path: '/api/tokens/jwt/verify/', access: 'credentials',
    summary: 'Verify a JWT token',
    description: 'Whether an access or refresh token is currently valid. Never spends or revokes anything.',
    body: verifyBody, response: { status: 200, schema: z.object({}), etag: false },
    errors: ['validation-error', 'invalid-token'],
    rateLimit: { policy: 'token' },
    uses: ['public-keys'],
    keys: [REFRESH_KEYS, AUTH_KEYS],
  }),
} satisfies Record<string, RouteDecl>;

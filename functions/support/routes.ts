/**
 * Support endpoints (API.md §4.22). They are not among the 151 operations: anyone may call them
 * and they ignore the Authorization header.
 */
import * as z from 'zod/mini';
import { RENDERER } from '../../shared/http/docs-page.js';
import { defineRoute } from '../../shared/http/route.js';

export const routes = {
  schema: defineRoute({
    name: 'support.schema', method: 'GET', path: '/api/schema/', access: 'credentials',
    summary: 'The OpenAPI 3.1 document of this API', cache: 'static',
    response: { status: 200, schema: z.looseObject({ openapi: z.string() }) },
    keys: {},
  }),
  docs: defineRoute({
    name: 'support.docs', method: 'GET', path: '/api/docs/', access: 'credentials',
    summary: 'An interactive reference of this API (an HTML page rendering /api/schema/)', cache: 'static',
    response: { status: 200, media: 'text/html' },
    packageFiles: [RENDERER],
    keys: {},
  }),
  jwks: defineRoute({
    name: 'support.jwks', method: 'GET', path: '/.well-known/jwks.json', access: 'credentials',
    summary: 'The public keys that sign tokens (JWK Set)', cache: 'static',
    uses: ['public-keys'],
    response: {
      status: 200,
      schema: z.object({
        keys: z.array(z.object({ kty: z.string(), crv: z.string(), x: z.string(), kid: z.string(), alg: z.string(), use: z.literal('sig') })),
      }),
    },
    keys: {},
  }),
};

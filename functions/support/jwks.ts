import { publicJwks } from '../../shared/auth/keys.js';
import { createHandler } from '../../shared/http/handler.js';
import { routes } from './routes.js';

export const handler = createHandler(routes.jwks, async () => ({ status: 200, body: await publicJwks() }));

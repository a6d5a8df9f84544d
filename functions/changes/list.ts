import { createHandler } from '../../shared/http/handler.js';
import { listChanges } from '../../shared/http/change-feed.js';
import { routes } from './routes.js';
import { tokenVerification } from '../../shared/auth/verification.js';

export const handler = createHandler(routes.list, listChanges, { tokens: tokenVerification });

import { createHandler } from '../../shared/http/handler.js';
import { seasonList } from '../../shared/http/seasons.js';
import { routes } from './routes.js';
import { tokenVerification } from '../../shared/auth/verification.js';

export const handler = createHandler(routes.upcoming, seasonList('upcoming'), { tokens: tokenVerification });

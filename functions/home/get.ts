import { createHandler } from '../../shared/http/handler.js';
import { homeOperation } from '../../shared/http/home.js';
import { routes } from './routes.js';
import { tokenVerification } from '../../shared/auth/verification.js';

export const handler = createHandler(routes.get, homeOperation, { tokens: tokenVerification });

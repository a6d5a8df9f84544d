import { deleteUserOperation } from '../../shared/http/accounts.js';
import { createHandler } from '../../shared/http/handler.js';
import { requestLimits } from '../../shared/http/rate-limiter.js';
import { routes } from './routes.js';

export const handler = createHandler(routes.delete, deleteUserOperation, { rateLimits: requestLimits });

import { updateOperation } from '../../shared/http/crud.js';
import { createHandler } from '../../shared/http/handler.js';
import { requestLimits } from '../../shared/http/rate-limiter.js';
import { themes } from '../../shared/domain/taxonomy.js';
import { routes } from './routes.js';

export const handler = createHandler(routes.patch, updateOperation(themes, 'merge'), { rateLimits: requestLimits });

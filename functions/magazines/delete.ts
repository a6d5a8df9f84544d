import { deleteOperation } from '../../shared/http/crud.js';
import { createHandler } from '../../shared/http/handler.js';
import { requestLimits } from '../../shared/http/rate-limiter.js';
import { magazines } from '../../shared/domain/taxonomy.js';
import { routes } from './routes.js';

export const handler = createHandler(routes.delete, deleteOperation(magazines), { rateLimits: requestLimits });

import { createOperation } from '../../shared/http/crud.js';
import { createHandler } from '../../shared/http/handler.js';
import { requestLimits } from '../../shared/http/rate-limiter.js';
import { genres } from '../../shared/domain/taxonomy.js';
import { crud } from './crud.route.js';

export const handler = createHandler(crud.create, createOperation(genres), { rateLimits: requestLimits });

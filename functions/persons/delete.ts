import { deleteTitle } from '../../shared/http/titles.js';
import { createHandler } from '../../shared/http/handler.js';
import { requestLimits } from '../../shared/http/rate-limiter.js';
import { persons } from '../../shared/domain/persons.js';
import { crud } from './crud.route.js';

export const handler = createHandler(crud.delete, deleteTitle(persons), { rateLimits: requestLimits });

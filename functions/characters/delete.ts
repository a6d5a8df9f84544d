import { deleteTitle } from '../../shared/http/titles.js';
import { createHandler } from '../../shared/http/handler.js';
import { requestLimits } from '../../shared/http/rate-limiter.js';
import { characters } from '../../shared/domain/characters.js';
import { crud } from './crud.route.js';

export const handler = createHandler(crud.delete, deleteTitle(characters), { rateLimits: requestLimits });

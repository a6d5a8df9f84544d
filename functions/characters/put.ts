import { updateTitle } from '../../shared/http/titles.js';
import { createHandler } from '../../shared/http/handler.js';
import { requestLimits } from '../../shared/http/rate-limiter.js';
import { characters } from '../../shared/domain/characters.js';
import { crud } from './crud.route.js';

export const handler = createHandler(crud.put, updateTitle(characters, 'replace'), { rateLimits: requestLimits });

import { createTitle } from '../../shared/http/titles.js';
import { createHandler } from '../../shared/http/handler.js';
import { requestLimits } from '../../shared/http/rate-limiter.js';
import { mangas } from '../../shared/domain/mangas.js';
import { crud } from './crud.route.js';

export const handler = createHandler(crud.create, createTitle(mangas), { rateLimits: requestLimits });

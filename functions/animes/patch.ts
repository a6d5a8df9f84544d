import { updateTitle } from '../../shared/http/titles.js';
import { createHandler } from '../../shared/http/handler.js';
import { requestLimits } from '../../shared/http/rate-limiter.js';
import { animes } from '../../shared/domain/animes.js';
import { crud } from './crud.route.js';

export const handler = createHandler(crud.patch, updateTitle(animes, 'merge'), { rateLimits: requestLimits });

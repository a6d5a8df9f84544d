import { animeTitle } from '../../shared/db/animes.js';
import { staffOf } from '../../shared/domain/casts.js';
import { castList } from '../../shared/http/casts.js';
import { createHandler } from '../../shared/http/handler.js';
import { routes } from './routes.js';

export const handler = createHandler(routes.staff, castList(staffOf(animeTitle as never, 'anime')));

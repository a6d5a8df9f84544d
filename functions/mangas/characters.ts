import { mangaTitle } from '../../shared/db/mangas.js';
import { castOf } from '../../shared/domain/casts.js';
import { castList } from '../../shared/http/casts.js';
import { createHandler } from '../../shared/http/handler.js';
import { routes } from './routes.js';

export const handler = createHandler(routes.characters, castList(castOf(mangaTitle as never, 'manga')));

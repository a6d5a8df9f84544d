import { genreMangas } from '../../shared/domain/mangas.js';
import { createHandler } from '../../shared/http/handler.js';
import { linkedTitles } from '../../shared/http/linked-titles.js';
import { routes } from './routes.js';

export const handler = createHandler(routes.mangas, linkedTitles(genreMangas));

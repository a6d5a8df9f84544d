import { genreAnimes } from '../../shared/domain/linked-animes.js';
import { createHandler } from '../../shared/http/handler.js';
import { linkedTitles } from '../../shared/http/linked-titles.js';
import { routes } from './routes.js';

export const handler = createHandler(routes.animes, linkedTitles(genreAnimes));

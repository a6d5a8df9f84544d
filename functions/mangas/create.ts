import { createTitle } from '../../shared/http/titles.js';
import { createHandler } from '../../shared/http/handler.js';
import { mangas } from '../../shared/domain/mangas.js';
import { routes } from './routes.js';

export const handler = createHandler(routes.create, createTitle(mangas));

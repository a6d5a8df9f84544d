import { updateTitle } from '../../shared/http/titles.js';
import { createHandler } from '../../shared/http/handler.js';
import { animes } from '../../shared/domain/animes.js';
import { routes } from './routes.js';

export const handler = createHandler(routes.put, updateTitle(animes, 'replace'));

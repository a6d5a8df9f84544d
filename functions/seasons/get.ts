import { createHandler } from '../../shared/http/handler.js';
import { seasonList } from '../../shared/http/seasons.js';
import { routes } from './routes.js';

export const handler = createHandler(routes.get, seasonList('path'));

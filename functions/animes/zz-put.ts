import { updateTitle } from '../../shared/http/titles.js';
import { createHandler } from '../../shared/http/handler.js';
import { animes } from '../../shared/domain/animes.js';
import { crudRoutes } from '../../shared/http/crud-routes.js';
import { TITLE_KEYS } from '../../shared/domain/title-resource.js';
export const handler = createHandler(crudRoutes({ ...animes, keys: TITLE_KEYS.anime }).put, updateTitle(animes, 'replace'));

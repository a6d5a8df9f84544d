import { ANIME_LIST } from '../../shared/domain/playlists.js';
import { createHandler } from '../../shared/http/handler.js';
import { listItemsOperation } from '../../shared/http/playlists.js';
import { routes } from './routes.js';

export const handler = createHandler(routes['animelist-items'], listItemsOperation(ANIME_LIST));

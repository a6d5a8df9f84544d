import { ANIME_LIST } from '../../shared/domain/playlists.js';
import { createHandler } from '../../shared/http/handler.js';
import { deleteItemOperation } from '../../shared/http/playlists.js';
import { routes } from './routes.js';

export const handler = createHandler(routes['animelist-item-delete'], deleteItemOperation(ANIME_LIST));

import { MANGA_LIST } from '../../shared/domain/playlists.js';
import { createHandler } from '../../shared/http/handler.js';
import { createItemOperation } from '../../shared/http/playlists.js';
import { routes } from './routes.js';

export const handler = createHandler(routes['mangalist-add'], createItemOperation(MANGA_LIST));

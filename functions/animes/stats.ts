import { ANIME_LIST } from '../../shared/domain/playlists.js';
import { createHandler } from '../../shared/http/handler.js';
import { statsOperation } from '../../shared/http/playlists.js';
import { route } from './stats.route.js';
import { tokenVerification } from '../../shared/auth/verification.js';

export const handler = createHandler(route, statsOperation(ANIME_LIST), { tokens: tokenVerification });

import { animeTitle } from '../../shared/db/animes.js';
import { videosOf } from '../../shared/domain/media.js';
import { createHandler } from '../../shared/http/handler.js';
import { relationList } from '../../shared/http/relations.js';
import { route } from './videos.route.js';
import { tokenVerification } from '../../shared/auth/verification.js';

export const handler = createHandler(route, relationList(videosOf(animeTitle, 'anime')), { tokens: tokenVerification });

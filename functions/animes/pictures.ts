import { animeTitle } from '../../shared/db/animes.js';
import { picturesOf } from '../../shared/domain/media.js';
import { createHandler } from '../../shared/http/handler.js';
import { relationList } from '../../shared/http/relations.js';
import { route } from './pictures.route.js';
import { tokenVerification } from '../../shared/auth/verification.js';

export const handler = createHandler(route, relationList(picturesOf(animeTitle, 'anime')), { tokens: tokenVerification });

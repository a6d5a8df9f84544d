import { animeTitle } from '../../shared/db/animes.js';
import { castOf } from '../../shared/domain/casts.js';
import { castList } from '../../shared/http/casts.js';
import { createHandler } from '../../shared/http/handler.js';
import { route } from './characters.route.js';
import { tokenVerification } from '../../shared/auth/verification.js';

export const handler = createHandler(route, castList(castOf(animeTitle as never, 'anime')), { tokens: tokenVerification });

import { animeTitle } from '../../shared/db/animes.js';
import { staffOf } from '../../shared/domain/casts.js';
import { castList } from '../../shared/http/casts.js';
import { createHandler } from '../../shared/http/handler.js';
import { route } from './staff.route.js';
import { tokenVerification } from '../../shared/auth/verification.js';

export const handler = createHandler(route, castList(staffOf(animeTitle as never, 'anime')), { tokens: tokenVerification });

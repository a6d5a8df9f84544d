import { voiceCards } from '../../shared/domain/voices.js';
import { voicesList } from '../../shared/http/casts.js';
import { createHandler } from '../../shared/http/handler.js';
import { route } from './voices.route.js';
import { tokenVerification } from '../../shared/auth/verification.js';

export const handler = createHandler(route, voicesList(voiceCards), { tokens: tokenVerification });

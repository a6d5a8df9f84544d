import { voiceCards } from '../../shared/domain/casts.js';
import { voicesList } from '../../shared/http/casts.js';
import { createHandler } from '../../shared/http/handler.js';
import { routes } from './routes.js';

export const handler = createHandler(routes.voices, voicesList(voiceCards));

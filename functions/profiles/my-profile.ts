import { createHandler } from '../../shared/http/handler.js';
import { myProfile } from '../../shared/http/profiles.js';
import { routes } from './routes.js';

export const handler = createHandler(routes['my-profile'], myProfile);

import { createHandler } from '../../shared/http/handler.js';
import { updateMyProfile } from '../../shared/http/profiles.js';
import { routes } from './routes.js';

export const handler = createHandler(routes['update-profile'], updateMyProfile);

import { createHandler } from '../../shared/http/handler.js';
import { requestLimits } from '../../shared/http/rate-limiter.js';
import { parseMultipart } from '../../shared/http/multipart-parser.js';
import { uploadPicture } from '../../shared/http/uploads.js';
import { persons } from '../../shared/domain/persons.js';
import { route } from './create-picture.route.js';

export const handler = createHandler(route, uploadPicture(persons), { parseMultipart, rateLimits: requestLimits });

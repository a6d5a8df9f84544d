import { createHandler } from '../../shared/http/handler.js';
import { randomTitle } from '../../shared/http/titles.js';
import { persons } from '../../shared/domain/persons.js';
import { routes } from './routes.js';
import { tokenVerification } from '../../shared/auth/verification.js';

export const handler = createHandler(routes.person, randomTitle(persons), { tokens: tokenVerification });

import { createHandler } from '../../shared/http/handler.js';
import { randomTitle } from '../../shared/http/titles.js';
import { persons } from '../../shared/domain/persons.js';
import { route } from './person.route.js';
import { tokenVerification } from '../../shared/auth/verification.js';

export const handler = createHandler(route, randomTitle(persons), { tokens: tokenVerification });

import { getTitle } from '../../shared/http/titles.js';
import { createHandler } from '../../shared/http/handler.js';
import { persons } from '../../shared/domain/persons.js';
import { crud } from './crud.route.js';
import { tokenVerification } from '../../shared/auth/verification.js';

export const handler = createHandler(crud.get, getTitle(persons), { tokens: tokenVerification });

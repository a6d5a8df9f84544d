import { persons } from '../../shared/domain/persons.js';
import { createHandler } from '../../shared/http/handler.js';
import { topOperation } from '../../shared/http/top.js';
import { route } from './artists.route.js';
import { tokenVerification } from '../../shared/auth/verification.js';

export const handler = createHandler(
  route,
  topOperation(persons, (q) => ({ list: 'PERSON#favorite', equals: typeof q.category === 'string' ? { category: q.category } : ({} as Record<string, string>) })),
  { tokens: tokenVerification },
);

/** The declaration of `random.person` (its function: person.ts). */
import { persons } from '../../shared/domain/persons.js';
import { randomRoute } from './random-route.js';

export const route = randomRoute('person', persons.read, 'person');

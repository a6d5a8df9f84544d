/** The declaration of `random.character` (its function: character.ts). */
import { characters } from '../../shared/domain/characters.js';
import { randomRoute } from './random-route.js';

export const route = randomRoute('character', characters.read, 'character');

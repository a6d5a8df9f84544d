/** The declaration of `random.anime` (its function: anime.ts). */
import { animes } from '../../shared/domain/animes.js';
import { randomRoute } from './random-route.js';

export const route = randomRoute('anime', animes.read, 'anime');

/** The declaration of `random.manga` (its function: manga.ts). */
import { mangas } from '../../shared/domain/mangas.js';
import { randomRoute } from './random-route.js';

export const route = randomRoute('manga', mangas.read, 'manga');

import { mangas } from '../../shared/domain/mangas.js';
import { genres } from '../../shared/domain/taxonomy.js';
import { createHandler } from '../../shared/http/handler.js';
import { linkedTitles } from '../../shared/http/linked-titles.js';
import { routes } from './routes.js';

export const handler = createHandler(routes.mangas, linkedTitles({ titles: mangas, parent: genres, filter: 'genre', count: (g) => g.manga_count }));

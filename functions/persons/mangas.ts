import { mangaIndex } from '../../shared/db/mangas.js';
import { authoredItem } from '../../shared/domain/casts.js';
import { mangas } from '../../shared/domain/mangas.js';
import { authoredList } from '../../shared/http/casts.js';
import { createHandler } from '../../shared/http/handler.js';
import { withoutDeleted } from '../../shared/domain/title-writes.js';
import { routes } from './routes.js';

export const handler = createHandler(
  routes.mangas,
  authoredList({ index: mangaIndex as never, shape: Object.keys(authoredItem.shape).filter((k) => k !== 'author_role'), embedded: (m, deleted) => withoutDeleted(mangas as never, m as never, deleted) }),
);

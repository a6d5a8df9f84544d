import { mangaIndex } from '../../shared/db/mangas.js';
import { authoredItem } from '../../shared/domain/authored.js';
import { mangas } from '../../shared/domain/mangas.js';
import { authoredList } from '../../shared/http/casts.js';
import { createHandler } from '../../shared/http/handler.js';
import { withoutDeleted } from '../../shared/domain/title-writes.js';
import { route } from './mangas.route.js';
import { tokenVerification } from '../../shared/auth/verification.js';

export const handler = createHandler(
  route,
  authoredList({ index: mangaIndex as never, shape: Object.keys(authoredItem.shape).filter((k) => k !== 'author_role'), embedded: (m, deleted) => withoutDeleted(mangas as never, m as never, deleted) }),
  { tokens: tokenVerification },
);

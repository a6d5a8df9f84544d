/**
 * `GET /api/persons/{id}/mangas/` (API.md §4.9) as a linked-title list (linked-titles.ts).
 */
import { authorRole, mangaIndex, type MangaRecord } from '../db/mangas.js';
import { AuthorRole } from '../domain/enums.js';
import { mangas } from '../domain/mangas.js';
import { countedByParam, type LinkedTitles } from './linked-titles.js';

/**
 * `GET /api/persons/{id}/mangas/` (API.md §4.9): the mangas crediting the person as author, with
 * the person's `author_role` — the manga planner's page with the `author` equality (and, with
 * `role`, `author_role`, evaluated on the `author` list), so a page reads what a filtered
 * `GET /api/mangas/?author=…` page reads whatever the person's number of mangas. `count` is
 * exact: the index's exact counts of `author_role` (one per role, summed without `role`).
 */
export const authoredList: LinkedTitles<MangaRecord> = {
  titles: mangas,
  parent: { kind: 'PERSON', noun: 'person' },
  ...countedByParam(mangaIndex, { link: 'author', param: 'role', counted: 'author_role', values: AuthorRole, equals: (id, role) => ({ author_role: authorRole(id, role) }) }),
  extra: (m, id) => ({ author_role: m.authors.find((a) => a.id === id)!.role }),
};

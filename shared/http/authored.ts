/**
 * `GET /api/persons/{id}/mangas/` (API.md §4.9) as a linked-title list (linked-titles.ts).
 */
import { authorRole, type MangaRecord } from '../db/mangas.js';
import { mangas } from '../domain/mangas.js';
import type { LinkedTitles } from '../domain/listings.js';
import { filteredByParam } from './linked-titles.js';

/**
 * `GET /api/persons/{id}/mangas/` (API.md §4.9): the mangas crediting the person as author, with
 * the person's `author_role` — the manga index's page with the `author` equality (and, with
 * `role`, `author_role`), so a page reads what a filtered `GET /api/mangas/?author=…` page reads
 * whatever the person's number of mangas. `count` is the index's exact count of that query.
 */
export const authoredList: LinkedTitles<MangaRecord> = {
  titles: mangas,
  parent: { kind: 'PERSON', noun: 'person' },
  ...filteredByParam({ link: 'author', param: 'role', equals: (id, role) => ({ author_role: authorRole(id, role) }) }),
  extra: (m, id) => ({ author_role: m.authors.find((a) => a.id === id)!.role }),
};

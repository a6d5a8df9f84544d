/** The mangas a person is credited as author of (API.md §4.9 `GET /api/persons/{id}/mangas/`): item shape and query options. */
import * as z from 'zod/mini';
import { enumParam } from './params.js';
import { AuthorRole } from './enums.js';
import { mangaRead } from './mangas.js';

/** An entry of `GET /api/persons/{id}/mangas/` (§4.9): the manga and the person's role in it. */
export const authoredItem = z.extend(mangaRead, { author_role: z.enum(AuthorRole) });
export const authoredOrderings = ['published_from', 'name', 'members'] as const;
export const authoredFilters = { role: enumParam(AuthorRole) };

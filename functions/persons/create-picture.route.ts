/** The declaration of `persons.create-picture` (its function: create-picture.ts). */
import { FEED_WRITES } from '../../shared/db/feed.js';
import { pictureRead } from '../../shared/domain/media.js';
import { persons } from '../../shared/domain/persons.js';
import { pictureUploadBody } from '../../shared/domain/pictures.js';
import { FILE_KEYS } from '../../shared/db/files.js';
import { grant, grants } from '../../shared/db/key-patterns.js';
import { TITLE_ITEMS } from '../../shared/domain/title-resource.js';
import { CATALOGUE_WRITE } from '../../shared/http/crud-routes.js';
import { defineRoute } from '../../shared/http/route.js';

export const route = defineRoute({
  name: 'persons.create-picture', method: 'POST', path: '/api/persons/{id}/create-picture/', access: persons.writer,
  summary: 'Upload a picture of a person',
  description: 'A multipart/form-data body: `image` (JPEG, PNG or WebP by content, at most 2 MiB, 1–3,000 pixels each side, a single frame) and an optional `name`. The image is stored without its metadata (EXIF, XMP, text chunks, comments; a colour profile stays) and without bytes after its end, and its Picture appended to the person’s pictures (at most 100).',
  bodyType: 'multipart', body: pictureUploadBody, uses: ['picture-storage'], rateLimit: [{ policy: 'upload' }, CATALOGUE_WRITE],
  response: { status: 201, schema: pictureRead, etag: false }, errors: ['not-found', 'validation-error', 'service-unavailable'],
  // The person's items as a person write touches them (its response is the Picture, not the
  // detail: no tombstones), and the upload's guard: put first, deleted with the write (files.ts).
  // The person's items, the upload guard, and the write's change-feed change (§8.5).
  keys: grants(grant(TITLE_ITEMS.person.own, 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'), grant(FILE_KEYS, 'PutItem', 'DeleteItem'), FEED_WRITES),
});

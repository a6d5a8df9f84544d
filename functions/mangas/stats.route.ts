/** The declaration of `mangas.stats` (its function: stats.ts). */
import { mangaTitle } from '../../shared/db/mangas.js';
import { titleKeys } from '../../shared/db/titles.js';
import { grant, grants } from '../../shared/db/key-patterns.js';
import { TOMBSTONE_READS } from '../../shared/db/tombstones.js';
import { defineRoute } from '../../shared/http/route.js';
import { MANGA_LIST, statsRead } from '../../shared/domain/playlists.js';

export const route = defineRoute({
  name: 'mangas.stats', method: 'GET', path: '/api/mangas/{id}/stats/', access: 'public',
  summary: 'Retrieve its statistics', description: 'Counts of list items per status and score (§3.13, §5.1), exact after every list change.',
  response: { status: 200, schema: statsRead(MANGA_LIST) }, errors: ['not-found'], keys: grants(grant(titleKeys(mangaTitle), 'BatchGetItem'), TOMBSTONE_READS),
});

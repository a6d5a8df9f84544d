/** The declaration of `animes.stats` (its function: stats.ts). */
import { animeTitle } from '../../shared/db/animes.js';
import { titleKeys } from '../../shared/db/titles.js';
import { grant, grants } from '../../shared/db/key-patterns.js';
import { TOMBSTONE_READS } from '../../shared/db/tombstones.js';
import { defineRoute } from '../../shared/http/route.js';
import { ANIME_LIST, statsRead } from '../../shared/domain/playlists.js';

export const route = defineRoute({
  name: 'animes.stats', method: 'GET', path: '/api/animes/{id}/stats/', access: 'public',
  summary: 'Retrieve its statistics', description: 'Counts of list items per status and score (§3.13, §5.1), exact after every list change.',
  response: { status: 200, schema: statsRead(ANIME_LIST) }, errors: ['not-found'], keys: grants(grant(titleKeys(animeTitle), 'BatchGetItem'), TOMBSTONE_READS),
});

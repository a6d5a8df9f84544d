/** The declaration of `characters.members` (its function: members.ts). */
import { characterTitle } from '../../shared/db/characters.js';
import { titleKeys } from '../../shared/db/titles.js';
import { defineRoute } from '../../shared/http/route.js';
import { characters } from '../../shared/domain/characters.js';
import { rankedKeys, rankedResponse } from '../../shared/http/top-routes.js';

// §4.2: a literal segment, never read as an id (the router tries literals first).
export const route = defineRoute({
  name: 'characters.members', method: 'GET', path: '/api/characters/members/', access: 'public',
  summary: 'List character members',
  description: 'Characters with `members` ≥ 1 (distinct users with a title featuring them on their lists) by `members` desc, `favorites` desc, `name`, then `id`, as the last rankings run made it. `count` is null.',
  response: rankedResponse(characters),
  keys: rankedKeys(titleKeys(characterTitle)),
});

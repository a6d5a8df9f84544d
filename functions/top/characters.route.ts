/** The declaration of `top.characters` (its function: characters.ts). */
import { characterTitle } from '../../shared/db/characters.js';
import { titleKeys } from '../../shared/db/titles.js';
import { characters } from '../../shared/domain/characters.js';
import { defineRoute } from '../../shared/http/route.js';
import { rankedKeys, rankedResponse } from '../../shared/http/top-routes.js';

export const route = defineRoute({
  name: 'top.characters', method: 'GET', path: '/api/top/characters/', access: 'public',
  summary: 'Top characters',
  description: 'Characters with `favorites` ≥ 1 by `favorites` desc, `members` desc, then `name`, as the last rankings run made it. `count` is null.',
  response: rankedResponse(characters),
  keys: rankedKeys(titleKeys(characterTitle)),
});

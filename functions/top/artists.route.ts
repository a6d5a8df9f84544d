/** The declaration of `top.artists` (its function: artists.ts). */
import * as z from 'zod/mini';
import { personTitle } from '../../shared/db/persons.js';
import { titleKeys } from '../../shared/db/titles.js';
import { PersonCategory } from '../../shared/domain/enums.js';
import { persons } from '../../shared/domain/persons.js';
import { defineRoute } from '../../shared/http/route.js';
import { enumParam } from '../../shared/domain/params.js';
import { rankedKeys, rankedResponse } from '../../shared/http/top-routes.js';

export const route = defineRoute({
  name: 'top.artists', method: 'GET', path: '/api/top/artists/', access: 'public',
  summary: 'Top artists',
  description: 'Persons with `favorites` ≥ 1 by `favorites` desc, then `name`, as the last rankings run made it; `category` as of that run. `count` is null.',
  query: z.object({ category: enumParam(PersonCategory) }),
  response: rankedResponse(persons),
  keys: rankedKeys(titleKeys(personTitle)),
});

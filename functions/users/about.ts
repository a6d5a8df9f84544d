/**
 * `GET /api/users/{username}/about/` (anyone, API.md §4.21.4): the UserAbout view of an active
 * user, `{username}` matched case-insensitively. Profile fields come from the profile (empty
 * values when it was removed). Reviews and lists do not exist yet: `review_count` is 0 and both
 * lists are null until those features fill them (docs/decisions.md).
 */
import { getProfileOfUser } from '../../shared/db/profiles.js';
import { userByUsernameKey } from '../../shared/db/users.js';
import { createHandler, type ApiRequest, type Operation } from '../../shared/http/handler.js';
import { activeUserNamed } from '../../shared/http/accounts.js';
import { routes } from './routes.js';

const username = (req: ApiRequest) => (req.params as { username: string }).username;

const about: Operation = async (req) => {
  const user = (await activeUserNamed(req, username(req))).record;
  const profile = (await getProfileOfUser(user.id))?.record;
  return {
    status: 200,
    body: {
      id: user.id,
      username: user.username,
      bio: profile?.bio ?? '',
      image: profile?.image ?? null,
      cover: profile?.cover ?? null,
      location: profile?.location ?? '',
      website: profile?.website ?? null,
      gender: profile?.gender ?? null,
      joined_at: user.created_at,
      review_count: 0,
      anime_list: null,
      manga_list: null,
    },
  };
};
// With a token, the user is read together with the caller's auth state.
about.prefetch = (req) => [userByUsernameKey(username(req))];

export const handler = createHandler(routes.about, about);

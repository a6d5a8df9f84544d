/**
 * `GET /api/users/{username}/about/` (anyone, API.md §4.21.4): the UserAbout view of an active
 * user, `{username}` matched case-insensitively. Profile fields come from the profile (empty
 * values when it was removed). `review_count` is the user's count item, kept by every review
 * creation and deletion (exact immediately). `anime_list` / `manga_list` are the list's counts
 * (kept by every item's transaction: exact immediately) without the items of titles deleted since
 * (§5.1: read with a tombstone shard, shared/db/playlists.ts countsWithoutDeleted), `null` when the
 * list does not exist or is not public (§3.12). One BatchGetItem reads the three count-bearing
 * items and the tombstone shard with the profile's.
 */
import { getItems } from '../../shared/db/batch.js';
import { listCounts, PLAYLISTS, type PlaylistKind } from '../../shared/domain/playlists.js';
import { countsWithoutDeleted, listKey, storedList } from '../../shared/db/playlists.js';
import { Deleted, tombstoneKey } from '../../shared/db/tombstones.js';
import { getProfileOfUser } from '../../shared/db/profiles.js';
import { reviewCountKey, reviewCountOf } from '../../shared/db/review-counts.js';
import { userByUsernameKey } from '../../shared/db/users.js';
import { createHandler, type ApiRequest, type Operation } from '../../shared/http/handler.js';
import { activeUserNamed } from '../../shared/http/accounts.js';
import { routes } from './routes.js';
import { tokenVerification } from '../../shared/auth/verification.js';

const username = (req: ApiRequest) => (req.params as { username: string }).username;

const about: Operation = async (req) => {
  const user = (await activeUserNamed(req, username(req))).record;
  const [stored, [count, tomb, ...lists]] = await Promise.all([
    getProfileOfUser(user.id),
    getItems([reviewCountKey(user.id), tombstoneKey(req.requestId), ...PLAYLISTS.map((kind) => listKey(kind, user.id))]),
  ]);
  const profile = stored?.record;
  const deleted = new Deleted(tomb);
  const publicCounts = async (kind: PlaylistKind, item: (typeof lists)[number] | undefined) => {
    const list = storedList(kind, item);
    return list?.record.is_public ? listCounts(kind, await countsWithoutDeleted(kind, user.id, list.counts, deleted)) : null;
  };
  const [animeList, mangaList] = await Promise.all([publicCounts(PLAYLISTS[0], lists[0]), publicCounts(PLAYLISTS[1], lists[1])]);
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
      review_count: reviewCountOf(count),
      anime_list: animeList,
      manga_list: mangaList,
    },
  };
};
// With a token, the user is read together with the caller's auth state.
about.prefetch = (req) => [userByUsernameKey(username(req))];

export const handler = createHandler(routes.about, about, { tokens: tokenVerification });

/** A user named in a public path (`{username}`): the lists, profiles and reviews of a user. */
import type { Stored } from '../db/records.js';
import { getUserByUsername, userByUsernameFromItem, userByUsernameKey, type UserRecord } from '../db/users.js';
import type { ApiRequest } from './handler.js';
import { notFound } from '../problem.js';

/**
 * The active user a public view names (`{username}`, case-insensitive), read from its username
 * claim (no private attributes), with the caller's auth state when a token was sent (the
 * operation's prefetch: `userByUsernameKey`): 404 when there is no such user or it is not active.
 */
export async function activeUserNamed(req: ApiRequest, username: string): Promise<Stored<UserRecord>> {
  const fetched = req.prefetched(userByUsernameKey(username));
  const user = fetched !== undefined ? userByUsernameFromItem(fetched) : await getUserByUsername(username);
  if (!user || !user.record.is_active) throw notFound('No user with this username.');
  return user;
}

/**
 * `GET /api/users/{username}/reviews/` (anyone, API.md §4.21.4): the reviews of an active user.
 * Reviews do not exist yet, so the page is empty and `count` is 0 (docs/decisions.md); the query
 * parameters are validated as documented, and unknown or inactive users are 404.
 */
import { userByUsernameKey } from '../../shared/db/users.js';
import { activeUserNamed } from '../../shared/http/accounts.js';
import { createHandler, type ApiRequest, type Operation } from '../../shared/http/handler.js';
import { pageReply } from '../../shared/http/page.js';
import { routes } from './routes.js';

const username = (req: ApiRequest) => (req.params as { username: string }).username;

const reviews: Operation = async (req) => {
  await activeUserNamed(req, username(req));
  // A page reached through a cursor has a `previous` link (§1.5), even when nothing precedes.
  return pageReply(req, { items: [], next: null, previous: req.query.cursor ?? null }, 0);
};
reviews.prefetch = (req) => [userByUsernameKey(username(req))];

export const handler = createHandler(routes.reviews, reviews);

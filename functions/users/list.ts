/**
 * `GET /api/users/` (administrators, API.md §4.21.1): `q` (every term a word prefix of the
 * username, or the whole value a prefix of the e-mail), `role`, `is_active`; `count` is exact
 * without `q` and filters.
 */
import { countRecords } from '../../shared/db/records.js';
import { listUsers, users } from '../../shared/db/users.js';
import { userView } from '../../shared/http/accounts.js';
import { createHandler, type Operation } from '../../shared/http/handler.js';
import { pageLimit, pageReply } from '../../shared/http/page.js';
import { routes } from './routes.js';

interface Query {
  ordering: { key: string; descending: boolean };
  q?: { terms: string[]; text: string };
  role?: string;
  is_active?: boolean;
}

const list: Operation = async (req) => {
  const { ordering, q, role, is_active } = req.query as unknown as Query;
  const terms = q?.terms ?? [];
  const equals: Record<string, string | boolean> = {};
  if (role !== undefined) equals.role = role;
  if (is_active !== undefined) equals.is_active = is_active;
  const exactCount = terms.length === 0 && Object.keys(equals).length === 0;
  const [page, count] = await Promise.all([
    listUsers({
      ordering: ordering.key,
      descending: ordering.descending,
      limit: pageLimit(req),
      cursor: req.query.cursor ?? null,
      terms,
      equals,
      ...(terms.length > 0 ? { emailPrefix: q!.text } : {}),
    }),
    exactCount ? countRecords(users) : null,
  ]);
  return pageReply(req, { ...page, items: page.items.map((i) => userView(i.value)) }, count);
};

export const handler = createHandler(routes.list, list);

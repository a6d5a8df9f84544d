/**
 * `POST /api/users/` — registration (API.md §4.21.1). Ignores `Authorization`.
 *
 * 1. Every field is validated (formats, username and password rules, `re_password`): one 400.
 * 2. A taken username → 409 (`errors.username`), before the e-mail is looked at.
 * 3. An e-mail that already has an account → the same 201 as a success, with a fresh id that
 *    names nothing, and E2 to that address; nothing is created. When that account was never
 *    activated, E2 says so and how the address's owner takes the address over (a password
 *    reset replaces the registration; docs/decisions.md, squatting).
 * 4. Otherwise an inactive member, its empty profile and E1 (activation) in one transaction. The
 *    outbox holds the activation token's grant, not the token (the mailer makes it).
 * 5. With an Idempotency-Key (API.md §8.7), the answer of 3 or 4 is stored in that transaction:
 *    a retry gets the same answer, and no second e-mail goes out.

 *
 * The password is hashed in every case that reaches 2–4 (at the same time as the two reads), so
 * the answers take the same time whether or not the address has an account.
 */
import { newGrant } from '../../shared/auth/email-tokens.js';
import { hashPassword } from '../../shared/auth/passwords.js';
import { commit } from '../../shared/db/records.js';
import { getUserByEmail, getUserByUsername, isPendingRegistration, type StoredUser } from '../../shared/db/users.js';
import { newAccount } from '../../shared/domain/accounts.js';
import { commitAccount, mail } from '../../shared/http/accounts.js';
import { createHandler, type Operation, type Reply } from '../../shared/http/handler.js';
import { requestLimits } from '../../shared/http/rate-limiter.js';
import { conflict, HttpError } from '../../shared/problem.js';
import { newId } from '../../shared/ids.js';
import { routes } from './routes.js';

const USERNAME_TAKEN = 'A user with that username already exists.';

const register: Operation<typeof routes.create> = async (req) => {
  const { email, username, password } = req.body();
  const [passwordHash, byUsername, byEmail] = await Promise.all([hashPassword(password), getUserByUsername(username), getUserByEmail(email)]);
  if (byUsername) throw conflict('username', USERNAME_TAKEN);
  const answer = (id: string): Reply => ({
    status: 201,
    body: { id, email, username },
    headers: { location: `${req.baseUrl}/api/users/${id}/` },
  });
  const alreadyRegistered = async (other: StoredUser | null) => {
    const pending = other !== null && isPendingRegistration(other.record, other.priv);
    const reply = answer(newId());
    await commit(mail({ template: 'E2', to: email, data: pending ? { pending } : {} }), req.idempotent(reply));
    return reply;
  };
  if (byEmail) return alreadyRegistered(byEmail);

  const id = newId();
  const grant = newGrant();
  const account = newAccount({ id, email, username, passwordHash, active: false, nonces: { activation: grant.nonce } });
  const reply = answer(id);
  try {
    await commitAccount([...account.plans, mail({ template: 'E1', to: email, data: { username, uid: id, grant } }), req.idempotent(reply)], false);
  } catch (err) {
    // Registered meanwhile with this address: answered as above. A username taken meanwhile stays a 409.
    if (err instanceof HttpError && err.type === 'conflict' && err.extras.errors?.email) return alreadyRegistered(await getUserByEmail(email));
    throw err;
  }
  return reply;
};

export const handler = createHandler(routes.create, register, { rateLimits: requestLimits });

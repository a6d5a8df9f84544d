/**
 * E-mail + password sign-in checks (API.md §4.19, also used by `reset_email`, §4.21.3): the
 * account by e-mail (trimmed, case-insensitive), its password, its active state. An unknown
 * e-mail and a wrong password get the same 401 after the same work: a password is verified
 * in both cases (a decoy hash when there is no account, see passwords.ts), so neither the
 * body nor the timing tells whether an address has an account.
 */
import { getUserByEmail, type StoredUser } from '../db/users.js';
import { accountInactive, invalidCredentials } from '../problem.js';
import { verifyPassword } from './passwords.js';

export { accountInactive, invalidCredentials } from '../problem.js';

/** The account whose e-mail and password these are: 401 invalid-credentials or account-inactive otherwise. */
export async function checkCredentials(email: string, password: string): Promise<StoredUser> {
  const user = await getUserByEmail(email.normalize('NFC'));
  const matches = await verifyPassword(password, user?.priv.password_hash);
  if (!user || !matches) throw invalidCredentials();
  if (!user.record.is_active) throw accountInactive();
  return user;
}

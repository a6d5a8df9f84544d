/**
 * `npm run dev-token -- --role ROLE`: creates an active user with that role in the local store of
 * the running `npm start` (same DATA_DIR) and prints an access token for it, the token alone on
 * the last line. Local only: it refuses to run unless every engine it would use is on loopback.
 */
import { ROLES, isRole, isStaff } from '../../shared/auth/roles.js';
import { signToken } from '../../shared/auth/tokens.js';
import { createUser } from '../../shared/db/users.js';
import { newId } from '../../shared/ids.js';
import { attachToLocal, fail } from './attach.js';

const args = process.argv.slice(2);
const roleAt = args.indexOf('--role');
const role = roleAt >= 0 ? args[roleAt + 1] : undefined;
if (args.length !== 2 || !isRole(role)) fail('dev-token', `usage: npm run dev-token -- --role ROLE   (ROLE: ${ROLES.join(', ')})`);

attachToLocal('dev-token');

const id = newId();
const username = `dev_${role}_${id.slice(0, 8).replace(/[^A-Za-z0-9]/g, 'x')}`.toLowerCase();
const now = new Date().toISOString();
await createUser(
  { id, username, email: `${username}@dev.localhost`, role, is_active: true, is_staff: isStaff(role), last_login: null, created_at: now, updated_at: now },
  { token_version: 0, password_hash: null, activated_at: now },
  );
const { token } = await signToken('access', { id, token_version: 0 });
console.log(`created ${role} ${username} (${id}); access token valid for 15 minutes:`);
console.log(token);

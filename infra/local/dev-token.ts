/**
 * `npm run dev-token -- --role ROLE`: creates an active user with that role in the local store of
 * the running `npm start` (same DATA_DIR) and prints an access token for it, the token alone on
 * the last line. Local only: it refuses to run unless every engine it would use is on loopback.
 */
import { resolve } from 'node:path';
import { ROLES, isRole, isStaff } from '../../shared/auth/roles.js';
import { signToken } from '../../shared/auth/tokens.js';
import { createUser } from '../../shared/db/users.js';
import { newId } from '../../shared/ids.js';
import { SECRET_NAMES } from '../api-config.js';
import { readState } from './runtime.js';

function fail(message: string): never {
  console.error(`dev-token: ${message}`);
  process.exit(1);
}

const args = process.argv.slice(2);
const roleAt = args.indexOf('--role');
const role = roleAt >= 0 ? args[roleAt + 1] : undefined;
if (args.length !== 2 || !isRole(role)) fail(`usage: npm run dev-token -- --role ROLE   (ROLE: ${ROLES.join(', ')})`);

const dataDir = resolve(process.env.DATA_DIR ?? '.data');
const state = readState(dataDir);
if (!state) fail(`no running local service found in ${dataDir}: start it with \`npm start\` (same DATA_DIR) first`);
try {
  process.kill(state.pid, 0);
} catch {
  fail(`the local service recorded in ${dataDir} (pid ${state.pid}) is not running: start it with \`npm start\``);
}
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);
for (const url of [state.url, state.dynamodb, state.secrets]) {
  if (!LOOPBACK.has(new URL(url).hostname)) fail(`refusing to use a non-local engine (${url})`);
}

Object.assign(process.env, {
  AWS_ACCESS_KEY_ID: 'local',
  AWS_SECRET_ACCESS_KEY: 'local',
  AWS_REGION: 'us-east-1',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  AWS_ENDPOINT_URL_DYNAMODB: state.dynamodb,
  AWS_ENDPOINT_URL_SECRETS_MANAGER: state.secrets,
  TABLE_NAME: state.table,
  PUBLIC_BASE_URL: state.url,
  JWT_PUBLIC_SECRET_ID: SECRET_NAMES.jwtPublic,
  JWT_PRIVATE_SECRET_ID: SECRET_NAMES.jwtPrivate,
});

const id = newId();
const username = `dev_${role}_${id.slice(0, 8).replace(/[^A-Za-z0-9]/g, 'x')}`.toLowerCase();
const now = new Date().toISOString();
await createUser(
  { id, username, email: `${username}@dev.localhost`, role, is_active: true, is_staff: isStaff(role), last_login: null, created_at: now, updated_at: now },
  { token_version: 0 },
);
const { token } = await signToken('access', { id, token_version: 0 });
console.log(`created ${role} ${username} (${id}); access token valid for 15 minutes:`);
console.log(token);

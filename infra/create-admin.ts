/**
 * `npm run create-admin -- --email E --password P [--username U] [--stage S]`: creates the first
 * administrator (infra/admin-account.ts).
 *
 * - Without `--stage`: in the local store of the running `npm start` (same DATA_DIR), like
 *   dev-token (local engines on loopback only).
 * - With `--stage S`: in the table of the deployed stage S, found through the outputs of the
 *   CloudFormation stack `catalogue-api-S`, with the caller's AWS credentials and region
 *   (the usual AWS_PROFILE / AWS_REGION / … settings).
 */
import { parseArgs } from 'node:util';
import { AdminError, createAdministrator, stageTableName } from './admin-account.js';
import { attachToLocal, fail } from './local/attach.js';

const TOOL = 'create-admin';
const USAGE = 'usage: npm run create-admin -- --email EMAIL --password PASSWORD [--username USERNAME] [--stage STAGE]';

let values: { email?: string; password?: string; username?: string; stage?: string };
try {
  ({ values } = parseArgs({
    options: { email: { type: 'string' }, password: { type: 'string' }, username: { type: 'string' }, stage: { type: 'string' } },
    strict: true,
    allowPositionals: false,
  }));
} catch (err) {
  fail(TOOL, `${(err as Error).message}\n${USAGE}`);
}
if (values.email === undefined || values.password === undefined) fail(TOOL, USAGE);

try {
  let where: string;
  if (values.stage === undefined) {
    const state = attachToLocal(TOOL);
    where = `the local service at ${state.url}`;
  } else {
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
    process.env.TABLE_NAME = await stageTableName(values.stage);
    where = `stage ${values.stage} (table ${process.env.TABLE_NAME})`;
  }
  const admin = await createAdministrator({ email: values.email, password: values.password, ...(values.username === undefined ? {} : { username: values.username }) });
  process.stdout.write(`created administrator ${admin.username} <${admin.email}> (${admin.id}) in ${where}\n`);
} catch (err) {
  if (err instanceof AdminError) fail(TOOL, err.message);
  throw err;
}

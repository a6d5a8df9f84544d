/**
 * `npm run create-admin -- --email E (--password-stdin | --password P) [--username U] [--stage S]`,
 * or the password in ADMIN_PASSWORD: creates the first administrator (infra/admin-account.ts).
 * The password is read from standard input (one line) or the environment so that it stays out
 * of the shell history and the process list; `--password` still works, with a warning.
 *
 * - Without `--stage`: in the local store of the running `npm start` (same DATA_DIR), like
 *   dev-token (local engines on loopback only).
 * - With `--stage S`: in the table of the deployed stage S, found through the outputs of the
 *   CloudFormation stack `catalogue-api-S`, with the caller's AWS credentials and region
 *   (the usual AWS_PROFILE / AWS_REGION / … settings).
 */
import { commandLine } from './admin-command.js';
import { AdminError, adminPassword, createAdministrator, firstLine, PASSWORD_ENV, useTarget } from './admin-account.js';
import { fail } from './local/attach.js';

const TOOL = 'create-admin';
const USAGE = `usage: npm run create-admin -- --email EMAIL --password-stdin [--username USERNAME] [--stage STAGE]   (the password as one line on standard input)
       ${PASSWORD_ENV}=… npm run create-admin -- --email EMAIL [--username USERNAME] [--stage STAGE]`;

const args = commandLine(TOOL, USAGE, { strings: ['email', 'password', 'username'], flags: ['password-stdin'] });
const email = args.string('email');
const username = args.string('username');
if (email === undefined) fail(TOOL, USAGE);

try {
  const stdin = args.flag('password-stdin');
  if (stdin && process.stdin.isTTY) process.stderr.write('password (one line; pipe it in to keep it off the screen): ');
  const { password, warning } = await adminPassword({ option: args.string('password'), stdin, env: process.env[PASSWORD_ENV] }, () => firstLine(process.stdin));
  if (warning) process.stderr.write(`${warning}\n`);
  const where = await useTarget(TOOL, args.string('stage'));
  const admin = await createAdministrator({ email, password, ...(username === undefined ? {} : { username }) });
  process.stdout.write(`created administrator ${admin.username} <${admin.email}> (${admin.id}) in ${where}\n`);
} catch (err) {
  if (err instanceof AdminError) fail(TOOL, err.message);
  throw err;
}

/**
 * The first administrator (API.md §2.3: created by a deployment-time bootstrap, not through the
 * API): checks and creation, used by `npm run create-admin` (infra/create-admin.ts). An active
 * account with the role `administrator`, a password under the rules of API.md §3.12 (hashed as
 * every password is) and an empty profile, written in one transaction.
 */
import { createInterface } from 'node:readline';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { hashPassword, passwordProblems } from '../shared/auth/passwords.js';
import { newAccount } from '../shared/domain/accounts.js';
import { email as emailField } from '../shared/domain/fields.js';
import { usernameFrom } from '../shared/domain/usernames.js';
import { attachToLocal } from './local/attach.js';
import { username as usernameField } from '../shared/domain/username-rules.js';
import { commit } from '../shared/db/records.js';
import { getUserByEmail, getUserByUsername } from '../shared/db/users.js';
import { HttpError } from '../shared/problem.js';
import { SERVICE } from './aws/config.js';

/** A refusal to show as it is (no stack trace). */
export class AdminError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AdminError';
  }
}

export interface AdminInput {
  email: string;
  password: string;
  /** Default: the e-mail's local part made valid. */
  username?: string;
}

/** The checked e-mail and username, or every problem with the input. */
export function checkAdminInput(input: AdminInput): { email: string; username: string } {
  const problems: string[] = [];
  const email = emailField().safeParse(input.email);
  if (!email.success) problems.push(`--email: ${email.error.issues.map((i) => i.message).join(' ')}`);
  const wanted = input.username ?? usernameFrom((email.success ? email.data : input.email).split('@')[0] ?? '');
  const username = usernameField().safeParse(wanted);
  if (!username.success) problems.push(`--username "${wanted}": ${username.error.issues.map((i) => i.message).join(' ')}`);
  const passwordIssues = passwordProblems(input.password, { username: username.success ? username.data : wanted, email: email.success ? email.data : input.email });
  if (passwordIssues.length > 0) problems.push(`--password: ${passwordIssues.join(' ')}`);
  if (problems.length > 0 || !email.success || !username.success) throw new AdminError(problems.join('\n'));
  return { email: email.data, username: username.data };
}

/** Creates the administrator in the table of TABLE_NAME; refuses a taken e-mail or username. */
export async function createAdministrator(input: AdminInput): Promise<{ id: string; username: string; email: string }> {
  const { email, username } = checkAdminInput(input);
  const [byEmail, byUsername] = await Promise.all([getUserByEmail(email), getUserByUsername(username)]);
  if (byEmail) throw new AdminError(`the e-mail ${email} is already used by the account "${byEmail.record.username}" (${byEmail.record.id})`);
  if (byUsername) throw new AdminError(`the username "${byUsername.record.username}" is taken (${byUsername.record.id}); choose another with --username`);
  const { user, plans } = newAccount({ email, username, passwordHash: await hashPassword(input.password), active: true, role: 'administrator' });
  try {
    await commit(...plans);
  } catch (err) {
    // Taken between the check and the write.
    if (err instanceof HttpError && err.type === 'conflict') throw new AdminError(`${err.message} (${Object.keys(err.extras.errors ?? {}).join(', ')})`);
    throw err;
  }
  return { id: user.id, username: user.username, email: user.email };
}

/** The table of a deployed stage: output `TableName` of the stack `catalogue-api-<stage>`. */
export async function stageTableName(stage: string, client = new CloudFormationClient({})): Promise<string> {
  return (await stageOutputs(stage, client)).table;
}

/** The deployed stage's table and index bucket (the stack's TableName and IndexBucket outputs). */
export async function stageOutputs(stage: string, client = new CloudFormationClient({})): Promise<{ table: string; indexBucket: string | undefined }> {
  if (!/^[a-z][a-z0-9-]{0,19}$/.test(stage)) throw new AdminError(`--stage "${stage}" must match [a-z][a-z0-9-]{0,19}`);
  const stackName = `${SERVICE}-${stage}`;
  let outputs;
  try {
    outputs = (await client.send(new DescribeStacksCommand({ StackName: stackName }))).Stacks?.[0]?.Outputs;
  } catch (err) {
    const e = err as { name?: string; message?: string };
    if (e.name === 'ValidationError') throw new AdminError(`no stack ${stackName} in this account and region (${e.message ?? ''})`);
    throw new AdminError(`cannot read the stack ${stackName}: ${e.name ?? 'error'}: ${e.message ?? ''}`);
  }
  const table = outputs?.find((o) => o.OutputKey === 'TableName')?.OutputValue;
  if (!table) throw new AdminError(`the stack ${stackName} has no TableName output (is it deployed completely?)`);
  return { table, indexBucket: outputs?.find((o) => o.OutputKey === 'IndexBucket')?.OutputValue };
}

/** The environment variable `create-admin` reads the password from. */
export const PASSWORD_ENV = 'ADMIN_PASSWORD';

/** Printed (on standard error) when the password comes from the command line. */
export const PASSWORD_OPTION_WARNING = `warning: --password puts the password into your shell history and the process list; use --password-stdin or ${PASSWORD_ENV} instead`;

/** Where `create-admin` may take the password from; exactly one of them must be given. */
export interface PasswordSources {
  /** `--password P`: still accepted, with PASSWORD_OPTION_WARNING. */
  option?: string;
  /** `--password-stdin`: the first line of standard input. */
  stdin: boolean;
  /** The value of PASSWORD_ENV (empty counts as unset). */
  env?: string;
}

/**
 * The password from its one source, and the warning to print for `--password`. Two sources are
 * refused rather than ranked: a forgotten ADMIN_PASSWORD in the shell must not silently win (or
 * lose) against what the operator typed. No message ever contains the password.
 */
export async function adminPassword(sources: PasswordSources, readLine: () => Promise<string | null>): Promise<{ password: string; warning?: string }> {
  const env = sources.env === '' ? undefined : sources.env;
  const given = [sources.option !== undefined && '--password', sources.stdin && '--password-stdin', env !== undefined && PASSWORD_ENV].filter(
    (g): g is string => g !== false,
  );
  if (given.length === 0) throw new AdminError(`no password: give it with --password-stdin (one line on standard input) or in ${PASSWORD_ENV}`);
  if (given.length > 1) throw new AdminError(`the password is given more than one way (${given.join(', ')}): give it one way`);
  if (sources.stdin) {
    const line = await readLine();
    if (!line) throw new AdminError('--password-stdin: no password on standard input (its first line is empty or missing)');
    return { password: line };
  }
  if (sources.option !== undefined) return { password: sources.option, warning: PASSWORD_OPTION_WARNING };
  return { password: env! };
}

/**
 * The first line of a stream without its line break (`\n` or `\r\n`), or null when the stream
 * ends before any character. The rest of the stream is not read.
 */
export async function firstLine(input: NodeJS.ReadableStream): Promise<string | null> {
  const lines = createInterface({ input, crlfDelay: Infinity, terminal: false });
  try {
    for await (const line of lines) return line;
    return null;
  } finally {
    lines.close();
  }
}

/**
 * Points this process at the table a command writes to: a deployed stage's (`--stage`), else the
 * running local service's (attachToLocal). Returns where, for the command's last line.
 */
export async function useTarget(tool: string, stage: string | undefined): Promise<string> {
  if (stage === undefined) return `the local service at ${attachToLocal(tool).url}`;
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const outputs = await stageOutputs(stage);
  process.env.TABLE_NAME = outputs.table;
  // The migration to version 3 and the catalogue import publish the titles' indexes there.
  if (outputs.indexBucket) process.env.INDEX_BUCKET = outputs.indexBucket;
  return `stage ${stage} (table ${process.env.TABLE_NAME})`;
}

/**
 * `npm run create-admin` (infra/admin-account.ts): the input rules, where the password comes
 * from, and the table of a deployed stage read from the CloudFormation stack's outputs (client
 * mocked).
 */
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { mockClient } from 'aws-sdk-client-mock';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { AdminError, adminPassword, checkAdminInput, firstLine, PASSWORD_OPTION_WARNING, stageOutputs, stageTableName } from '../../infra/admin-account.js';

const cfn = mockClient(CloudFormationClient);
beforeEach(() => cfn.reset());
afterAll(() => cfn.restore());

describe('checkAdminInput', () => {
  it('defaults the username to the e-mail’s local part, made valid; the e-mail is stored in lower case', () => {
    expect(checkAdminInput({ email: ' Root.Admin@Example.org ', password: 'a sturdy admin passphrase' })).toEqual({ email: 'root.admin@example.org', username: 'root.admin' });
    expect(checkAdminInput({ email: 'admin@example.org', password: 'a sturdy chief passphrase' }).username).toBe('admin_user');
    expect(checkAdminInput({ email: 'x@example.org', password: 'a sturdy admin passphrase', username: 'Chief' }).username).toBe('Chief');
  });

  it('reports every problem at once, per option', () => {
    const err = (() => {
      try {
        checkAdminInput({ email: 'not-an-address', password: '1234567890', username: 'admin' });
      } catch (e) {
        return e as AdminError;
      }
      throw new Error('accepted');
    })();
    expect(err).toBeInstanceOf(AdminError);
    expect(err.message).toMatch(/--email/);
    expect(err.message).toMatch(/--username "admin": This username is reserved/);
    expect(err.message).toMatch(/--password: .*too common|--password: .*entirely numeric/);
    expect(() => checkAdminInput({ email: 'chief@example.org', password: 'chief@example' })).toThrow(/too similar/);
  });
});

describe('stageTableName', () => {
  it('reads the TableName output of catalogue-api-<stage>', async () => {
    cfn.on(DescribeStacksCommand, { StackName: 'catalogue-api-dev' }).resolves({
      Stacks: [{ StackName: 'catalogue-api-dev', CreationTime: new Date(), StackStatus: 'UPDATE_COMPLETE', Outputs: [{ OutputKey: 'ApiUrl', OutputValue: 'https://x' }, { OutputKey: 'TableName', OutputValue: 'catalogue-api-dev-DataTable-ABC' }] }],
    });
    expect(await stageTableName('dev', new CloudFormationClient({ region: 'us-east-1' }))).toBe('catalogue-api-dev-DataTable-ABC');
  });

  it('reads the IndexBucket output with it (where the migration and the import publish the titles\' indexes)', async () => {
    cfn.on(DescribeStacksCommand, { StackName: 'catalogue-api-dev' }).resolves({
      Stacks: [{ StackName: 'catalogue-api-dev', CreationTime: new Date(), StackStatus: 'UPDATE_COMPLETE', Outputs: [{ OutputKey: 'TableName', OutputValue: 'T' }, { OutputKey: 'IndexBucket', OutputValue: 'catalogue-api-dev-index-xyz' }] }],
    });
    expect(await stageOutputs('dev', new CloudFormationClient({ region: 'us-east-1' }))).toEqual({ table: 'T', indexBucket: 'catalogue-api-dev-index-xyz' });
  });

  it('says clearly when there is no such stack, no output, or a bad stage name', async () => {
    const client = new CloudFormationClient({ region: 'us-east-1' });
    cfn.on(DescribeStacksCommand).rejects(Object.assign(new Error('Stack with id catalogue-api-qa does not exist'), { name: 'ValidationError' }));
    await expect(stageTableName('qa', client)).rejects.toThrow(/no stack catalogue-api-qa/);
    cfn.reset();
    cfn.on(DescribeStacksCommand).resolves({ Stacks: [{ StackName: 'catalogue-api-qa', CreationTime: new Date(), StackStatus: 'CREATE_IN_PROGRESS', Outputs: [] }] });
    await expect(stageTableName('qa', client)).rejects.toThrow(/no TableName output/);
    cfn.reset();
    cfn.on(DescribeStacksCommand).rejects(Object.assign(new Error('not authorized'), { name: 'AccessDenied' }));
    await expect(stageTableName('qa', client)).rejects.toThrow(/cannot read the stack catalogue-api-qa: AccessDenied/);
    await expect(stageTableName('Prod!', client)).rejects.toThrow(/--stage/);
  });
});

describe('adminPassword: one source of the password', () => {
  const SECRET = 'a sturdy admin passphrase';
  const noStdin = () => Promise.reject(new Error('standard input must not be read'));

  it('--password-stdin: the first line of standard input, nothing else', async () => {
    const read = vi.fn(() => Promise.resolve(SECRET));
    expect(await adminPassword({ stdin: true }, read)).toEqual({ password: SECRET });
    expect(read).toHaveBeenCalledOnce();
  });

  it('ADMIN_PASSWORD: the variable, standard input untouched', async () => {
    expect(await adminPassword({ stdin: false, env: SECRET }, noStdin)).toEqual({ password: SECRET });
  });

  it('--password still works, with a warning that names the other ways and not the password', async () => {
    const out = await adminPassword({ option: SECRET, stdin: false }, noStdin);
    expect(out).toEqual({ password: SECRET, warning: PASSWORD_OPTION_WARNING });
    expect(out.warning).toMatch(/shell history.*process list.*--password-stdin.*ADMIN_PASSWORD/);
    expect(out.warning).not.toContain(SECRET);
  });

  it('none, or more than one, is refused (an empty ADMIN_PASSWORD counts as unset)', async () => {
    await expect(adminPassword({ stdin: false }, noStdin)).rejects.toThrow(/no password: .*--password-stdin.*ADMIN_PASSWORD/);
    await expect(adminPassword({ stdin: false, env: '' }, noStdin)).rejects.toThrow(AdminError);
    expect(await adminPassword({ option: SECRET, stdin: false, env: '' }, noStdin)).toMatchObject({ password: SECRET });
    await expect(adminPassword({ option: SECRET, stdin: true }, noStdin)).rejects.toThrow(/more than one way \(--password, --password-stdin\)/);
    await expect(adminPassword({ stdin: true, env: SECRET }, noStdin)).rejects.toThrow(/more than one way \(--password-stdin, ADMIN_PASSWORD\)/);
    await expect(adminPassword({ option: 'other', stdin: false, env: SECRET }, noStdin)).rejects.not.toThrow(new RegExp(SECRET));
  });

  it('--password-stdin with an empty first line or nothing at all is refused', async () => {
    await expect(adminPassword({ stdin: true }, () => Promise.resolve(''))).rejects.toThrow(/--password-stdin: no password/);
    await expect(adminPassword({ stdin: true }, () => Promise.resolve(null))).rejects.toThrow(/--password-stdin: no password/);
  });
});

describe('firstLine', () => {
  it('the first line without its line break (\\n or \\r\\n); spaces are part of the password', async () => {
    expect(await firstLine(Readable.from(['  two words \nsecond line\n']))).toBe('  two words ');
    expect(await firstLine(Readable.from(['pass', 'phrase\r\nrest']))).toBe('passphrase');
    expect(await firstLine(Readable.from(['no line break']))).toBe('no line break');
  });

  it('an empty stream → null; an empty first line → ""', async () => {
    expect(await firstLine(Readable.from([]))).toBeNull();
    expect(await firstLine(Readable.from(['\nsecret']))).toBe('');
  });

  it('returns at the first line break without waiting for the end of the stream', async () => {
    const input = new PassThrough();
    input.write('secret\n');
    expect(await firstLine(input)).toBe('secret');
  });
});

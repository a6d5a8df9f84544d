/**
 * `npm run create-admin` (infra/admin-account.ts): the input rules, and the table of a deployed
 * stage read from the CloudFormation stack's outputs (client mocked).
 */
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { AdminError, checkAdminInput, stageTableName } from '../../infra/admin-account.js';

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

/**
 * The deployment-time handler that fills the signing-key secrets (infra/aws/handlers): keys are
 * generated only into empty secrets, on Create (or for replaced secrets on Update), never over
 * existing keys; the public set is written first.
 */
import { GetSecretValueCommand, PutSecretValueCommand, ResourceNotFoundException, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { handler } from '../../infra/aws/handlers/signing-keys.js';
import { generateSigningKeys } from '../../shared/auth/keygen.js';
import { publicKeySet } from '../../shared/auth/keys.js';

const sm = mockClient(SecretsManagerClient);
const PRIVATE = 'arn:aws:secretsmanager:eu-west-1:111111111111:secret:dev/catalogue/jwt-private-AbCdEf';
const PUBLIC = 'arn:aws:secretsmanager:eu-west-1:111111111111:secret:dev/catalogue/jwt-public-GhIjKl';
let stored: Map<string, string>;

const base = {
  ServiceToken: 'arn:aws:lambda:eu-west-1:111111111111:function:provider',
  ResponseURL: 'https://example.org/response',
  StackId: 'arn:aws:cloudformation:eu-west-1:111111111111:stack/catalogue-api-dev/x',
  RequestId: 'r1',
  LogicalResourceId: 'SigningKeys',
  ResourceType: 'Custom::SigningKeys',
  ResourceProperties: { ServiceToken: 'x', PrivateSecretId: PRIVATE, PublicSecretId: PUBLIC },
};
const create = { ...base, RequestType: 'Create' } as CloudFormationCustomResourceEvent;
const update = (old = base.ResourceProperties) =>
  ({ ...base, RequestType: 'Update', PhysicalResourceId: 'signing-keys', OldResourceProperties: old }) as CloudFormationCustomResourceEvent;

beforeEach(() => {
  stored = new Map();
  sm.reset();
  sm.on(GetSecretValueCommand).callsFake((input: { SecretId: string }) => {
    const value = stored.get(input.SecretId);
    if (value === undefined) throw new ResourceNotFoundException({ message: "Secrets Manager can't find the specified secret value for staging label: AWSCURRENT", $metadata: {} });
    return { SecretString: value };
  });
  sm.on(PutSecretValueCommand).callsFake((input: { SecretId: string; SecretString: string }) => {
    stored.set(input.SecretId, input.SecretString);
    return {};
  });
});
afterEach(() => sm.reset());

const puts = () => sm.commandCalls(PutSecretValueCommand).map((c) => c.args[0].input.SecretId);

describe('signing keys custom resource', () => {
  it('Create with empty secrets: a key pair, public set first, in the formats of shared/auth/keys.ts', async () => {
    const out = await handler(create);
    expect(out).toEqual({ PhysicalResourceId: 'signing-keys', Data: { Outcome: 'created' } });
    expect(puts()).toEqual([PUBLIC, PRIVATE]);
    const priv = JSON.parse(stored.get(PRIVATE)!) as { active: string; keys: { kid: string; d?: string }[] };
    const pub = JSON.parse(stored.get(PUBLIC)!) as { keys: { kid: string; d?: string }[] };
    expect(priv.keys.map((k) => k.kid)).toEqual([priv.active]);
    expect(typeof priv.keys[0]!.d).toBe('string');
    expect(pub.keys.map((k) => k.kid)).toEqual([priv.active]);
    expect(pub.keys[0]!.d).toBeUndefined();
  });

  it('Create with keys already there: nothing is written', async () => {
    const { privateSet, publicSet } = await generateSigningKeys();
    stored.set(PRIVATE, JSON.stringify(privateSet));
    stored.set(PUBLIC, JSON.stringify(publicSet));
    expect((await handler(create)).Data.Outcome).toBe('kept');
    expect(puts()).toEqual([]);
  });

  it('a placeholder value that is no key set counts as empty', async () => {
    stored.set(PRIVATE, 'placeholder');
    stored.set(PUBLIC, '{}');
    expect((await handler(create)).Data.Outcome).toBe('created');
    expect(puts()).toEqual([PUBLIC, PRIVATE]);
  });

  it('a private set without its public set gets the public set derived from it', async () => {
    const { privateSet, publicSet } = await generateSigningKeys();
    stored.set(PRIVATE, JSON.stringify(privateSet));
    expect((await handler(create)).Data.Outcome).toBe('published');
    expect(puts()).toEqual([PUBLIC]);
    expect(JSON.parse(stored.get(PUBLIC)!)).toEqual(publicSet);
    expect(publicKeySet(privateSet.keys)).toEqual(publicSet);
  });

  it('a public set derived from a private set carries its public members only', async () => {
    const { privateSet } = await generateSigningKeys();
    const key = { ...privateSet.keys[0]!, ext: true, key_ops: ['sign'], x5c: ['MIIB…'] };
    stored.set(PRIVATE, JSON.stringify({ ...privateSet, keys: [key] }));
    expect((await handler(create)).Data.Outcome).toBe('published');
    const published = JSON.parse(stored.get(PUBLIC)!) as { keys: Record<string, unknown>[] };
    expect(Object.keys(published.keys[0]!).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x']);
  });

  it('Update of the same secrets never generates keys, even if they are empty', async () => {
    const out = await handler(update());
    expect(out).toEqual({ PhysicalResourceId: 'signing-keys', Data: { Outcome: 'unchanged' } });
    expect(sm.calls()).toHaveLength(0);
  });

  it('Update to other (replaced, empty) secrets fills them', async () => {
    const out = await handler(update({ ...base.ResourceProperties, PrivateSecretId: 'old-private' }));
    expect(out.Data.Outcome).toBe('created');
    expect(puts()).toEqual([PUBLIC, PRIVATE]);
  });

  it('Delete does nothing', async () => {
    const out = await handler({ ...base, RequestType: 'Delete', PhysicalResourceId: 'signing-keys' } as CloudFormationCustomResourceEvent);
    expect(out.Data.Outcome).toBe('unchanged');
    expect(sm.calls()).toHaveLength(0);
  });

  it('other Secrets Manager errors fail the deployment', async () => {
    sm.on(GetSecretValueCommand).rejects(new Error('AccessDenied'));
    await expect(handler(create)).rejects.toThrow('AccessDenied');
    expect(puts()).toEqual([]);
  });
});

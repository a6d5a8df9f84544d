/**
 * Deployment-time custom resource (the onEvent handler of a CDK Provider): puts the first token
 * signing key pair into the two signing-key secrets, which the stack creates empty (API.md §2.2,
 * shared/auth/keys.ts for the formats).
 *
 * - Create: fills the secrets only while they are empty (or hold no key set), so keys that
 *   already exist are never replaced.
 * - Update: never generates keys for the same secrets. Only when the secrets themselves changed
 *   (e.g. they were replaced and are empty) are the new ones filled the same way as on Create.
 * - Delete: nothing (the secrets are resources of the stack).
 *
 * The public key set is written before the private one, so no key can sign a token before it
 * is published. A private set without its public set (a half-finished earlier run) gets its
 * public set derived from it.
 */
import { GetSecretValueCommand, PutSecretValueCommand, ResourceNotFoundException, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import type { JSONWebKeySet } from 'jose';
import { generateSigningKeys } from '../../../shared/auth/keygen.js';
import { publicKeySet, type PrivateKeySet } from '../../../shared/auth/keys.js';
import { logger } from '../../../shared/log.js';

export interface SigningKeysProperties {
  PrivateSecretId: string;
  PublicSecretId: string;
}

export type Outcome = 'created' | 'kept' | 'published' | 'unchanged';

const PHYSICAL_ID = 'signing-keys';
let client: SecretsManagerClient | undefined;
const secrets = () => (client ??= new SecretsManagerClient({ maxAttempts: 5 }));

/** The secret's current string value; null while the secret has no value yet. */
async function read(secretId: string): Promise<string | null> {
  try {
    const out = await secrets().send(new GetSecretValueCommand({ SecretId: secretId }));
    return out.SecretString ?? null;
  } catch (err) {
    if (err instanceof ResourceNotFoundException) return null;
    throw err;
  }
}

function parse(raw: string | null): unknown {
  if (raw === null) return null;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return null;
  }
}

function isPrivateSet(value: unknown): value is PrivateKeySet {
  const v = value as Partial<PrivateKeySet> | null;
  return !!v && typeof v.active === 'string' && Array.isArray(v.keys) && v.keys.some((k) => k.kid === v.active && typeof k.d === 'string');
}

function isPublicSet(value: unknown): value is JSONWebKeySet {
  const v = value as Partial<JSONWebKeySet> | null;
  return !!v && Array.isArray(v.keys) && v.keys.length > 0;
}

async function put(secretId: string, value: unknown): Promise<void> {
  await secrets().send(new PutSecretValueCommand({ SecretId: secretId, SecretString: JSON.stringify(value) }));
}

/** Fills the two secrets if they hold no keys yet; never replaces existing keys. */
export async function ensureSigningKeys(props: SigningKeysProperties): Promise<Outcome> {
  const [privateRaw, publicRaw] = await Promise.all([read(props.PrivateSecretId), read(props.PublicSecretId)]);
  const existing = parse(privateRaw);
  if (isPrivateSet(existing)) {
    if (isPublicSet(parse(publicRaw))) return 'kept';
    await put(props.PublicSecretId, publicKeySet(existing.keys));
    return 'published';
  }
  const { privateSet, publicSet } = await generateSigningKeys();
  await put(props.PublicSecretId, publicSet);
  await put(props.PrivateSecretId, privateSet);
  return 'created';
}

export async function handler(event: CloudFormationCustomResourceEvent): Promise<{ PhysicalResourceId: string; Data: { Outcome: Outcome } }> {
  const props = event.ResourceProperties as unknown as SigningKeysProperties;
  let outcome: Outcome = 'unchanged';
  if (event.RequestType === 'Create') {
    outcome = await ensureSigningKeys(props);
  } else if (event.RequestType === 'Update') {
    const old = event.OldResourceProperties as unknown as SigningKeysProperties;
    if (old.PrivateSecretId !== props.PrivateSecretId || old.PublicSecretId !== props.PublicSecretId) outcome = await ensureSigningKeys(props);
  }
  logger.info('signing keys', { request: event.RequestType, outcome });
  return { PhysicalResourceId: event.RequestType === 'Create' ? PHYSICAL_ID : event.PhysicalResourceId, Data: { Outcome: outcome } };
}

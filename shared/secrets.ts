/**
 * Secrets from AWS Secrets Manager (locally: the emulator of infra/local, reached through
 * AWS_ENDPOINT_URL_SECRETS_MANAGER). Read once per container and kept for `maxAgeMs`, so a
 * rotated secret is picked up without a deployment.
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

let client: SecretsManagerClient | undefined;
const cache = new Map<string, { value: Promise<string>; at: number }>();

export function secretsClient(): SecretsManagerClient {
  client ??= new SecretsManagerClient({ maxAttempts: 3 });
  return client;
}

/** The secret named by the environment variable `envName` (its value is the secret id). */
export async function secretFromEnv(envName: string, maxAgeMs = 5 * 60_000): Promise<string> {
  const id = process.env[envName];
  if (!id) throw new Error(`${envName} is not set`);
  const hit = cache.get(id);
  if (hit && Date.now() - hit.at < maxAgeMs) return hit.value;
  const value = secretsClient()
    .send(new GetSecretValueCommand({ SecretId: id }))
    .then((out) => {
      if (out.SecretString === undefined) throw new Error(`secret ${id} has no string value`);
      return out.SecretString;
    });
  cache.set(id, { value, at: Date.now() });
  value.catch(() => cache.delete(id));
  return value;
}

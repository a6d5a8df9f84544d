/**
 * Secrets from AWS Secrets Manager (locally: the emulator of infra/local, reached through
 * AWS_ENDPOINT_URL_SECRETS_MANAGER). Read once per container and kept for `maxAgeMs`, so a
 * rotated secret is picked up without a deployment. GetSecretValue is a signed call of
 * aws-request.ts, which is imported with the first read (docs/decisions.md W4).
 */

const cache = new Map<string, { value: Promise<string>; at: number }>();

/** Called with the id of every secret read from Secrets Manager (the bench counts them). */
export const secretReads: { listener?: (id: string) => void } = {};

/** The AWS JSON protocol's error code: `__type`, without a namespace (`…#Name`) or suffix (`Name:…`). */
const errorCode = (body: string): string | undefined => {
  try {
    const type = (JSON.parse(body) as { __type?: unknown }).__type;
    return typeof type === 'string' ? type.split('#').pop()!.split(':')[0] : undefined;
  } catch {
    return undefined;
  }
};

async function getSecretValue(id: string): Promise<string> {
  const { awsRequest, configuredEndpoint, region } = await import('./aws-request.js');
  secretReads.listener?.(id);
  const response = await awsRequest(
    'secretsmanager',
    {
      method: 'POST',
      url: configuredEndpoint('secretsmanager') ?? new URL(`https://secretsmanager.${region()}.amazonaws.com`),
      path: '/',
      headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'secretsmanager.GetSecretValue' },
      body: JSON.stringify({ SecretId: id }),
    },
    errorCode,
  );
  const value = (JSON.parse(response.body.toString('utf8')) as { SecretString?: unknown }).SecretString;
  if (typeof value !== 'string') throw new Error(`secret ${id} has no string value`);
  return value;
}

/** The secret named by the environment variable `envName` (its value is the secret id). */
export async function secretFromEnv(envName: string, maxAgeMs = 5 * 60_000): Promise<string> {
  const id = process.env[envName];
  if (!id) throw new Error(`${envName} is not set`);
  const hit = cache.get(id);
  if (hit && Date.now() - hit.at < maxAgeMs) return hit.value;
  const value = getSecretValue(id);
  cache.set(id, { value, at: Date.now() });
  value.catch(() => cache.delete(id));
  return value;
}

/**
 * Unit tests: a Secrets Manager endpoint on localhost with the values a test sets, reached by the
 * functions' own signed GetSecretValue calls (shared/secrets.ts) through
 * AWS_ENDPOINT_URL_SECRETS_MANAGER, as the local runtime's emulator is. It counts the reads of
 * each secret and can drop the connection of a secret's reads (Secrets Manager unreachable).
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll } from 'vitest';

export interface SecretsEndpoint {
  /** The value GetSecretValue answers for `id` (any other id: ResourceNotFoundException). */
  set(id: string, value: string): void;
  /** Reads of `id` fail as a network failure does: the connection is dropped without an answer. */
  unreachable(id: string): void;
  /** How many times `id` (or any secret) was read since the start or resetReads(). */
  reads(id?: string): number;
  resetReads(): void;
}

/** Starts the endpoint for the test file (before its tests, stopped after them). */
export function useSecretsEndpoint(): SecretsEndpoint {
  const values = new Map<string, string>();
  const dropped = new Set<string>();
  const counts = new Map<string, number>();
  let server: Server | undefined;
  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const reply = (status: number, body: object) => {
          res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
          res.end(JSON.stringify(body));
        };
        if (req.headers['x-amz-target'] !== 'secretsmanager.GetSecretValue' || !String(req.headers.authorization).startsWith('AWS4-HMAC-SHA256 ')) {
          return reply(400, { __type: 'InvalidRequestException', message: 'a signed GetSecretValue was expected' });
        }
        const id = String((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { SecretId?: unknown }).SecretId);
        counts.set(id, (counts.get(id) ?? 0) + 1);
        if (dropped.has(id)) return req.socket.destroy();
        const value = values.get(id);
        if (value === undefined) return reply(400, { __type: 'ResourceNotFoundException', message: `Secrets Manager can't find the specified secret.` });
        reply(200, { ARN: `arn:aws:secretsmanager:us-east-1:000000000000:secret:${id}`, Name: id, SecretString: value, VersionId: 'v1' });
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const address = server.address() as { port: number };
    process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER = `http://127.0.0.1:${address.port}`;
  });
  afterAll(async () => {
    const closed = new Promise((resolve) => server?.close(resolve));
    server?.closeAllConnections();
    await closed;
  });
  return {
    set: (id, value) => void values.set(id, value),
    unreachable: (id) => void dropped.add(id),
    reads: (id) => (id === undefined ? [...counts.values()].reduce((a, b) => a + b, 0) : (counts.get(id) ?? 0)),
    resetReads: () => counts.clear(),
  };
}

/**
 * A Secrets Manager endpoint for local runs: answers GetSecretValue (AWS JSON 1.1 protocol)
 * from files `<dir>/<secret id>.json`, so functions read secrets with their signed call (shared/aws-request.ts) through
 * AWS_ENDPOINT_URL_SECRETS_MANAGER exactly as they do on AWS. Nothing else is implemented.
 */
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';

const NAME = /^[A-Za-z0-9/_+=.@-]{1,512}$/;

export async function startSecretsEmulator(dir: string, port = 0): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const reply = (status: number, body: object) => {
          res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
          res.end(JSON.stringify(body));
        };
        if (req.headers['x-amz-target'] !== 'secretsmanager.GetSecretValue') {
          return reply(400, { __type: 'UnknownOperationException', message: 'only GetSecretValue is emulated' });
        }
        let id = '';
        try {
          id = String((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { SecretId?: unknown }).SecretId ?? '');
        } catch {
          return reply(400, { __type: 'InvalidRequestException', message: 'bad JSON' });
        }
        if (!NAME.test(id) || id.includes('..')) return reply(400, { __type: 'InvalidParameterException', message: 'bad SecretId' });
        try {
          const value = await readFile(join(dir, `${id.replace(/\//g, '__')}.json`), 'utf8');
          reply(200, { ARN: `arn:aws:secretsmanager:local:000000000000:secret:${id}`, Name: id, SecretString: value, VersionId: 'local', CreatedDate: 0 });
        } catch {
          reply(400, { __type: 'ResourceNotFoundException', message: `Secrets Manager can't find the specified secret: ${id}` });
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  return { url: `http://127.0.0.1:${address.port}`, server };
}

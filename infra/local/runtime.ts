/**
 * The local runtime as one unit: engines, table, key material, the function environment and the
 * local API Gateway. `npm start`, the e2e tests and the benchmarks all start it through here.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateSigningKeys } from '../../shared/auth/keygen.js';
import { FUNCTION_ENV as ENV, SECRET_NAMES } from '../api-config.js';
import { ensureTable, startEngines, type Engines } from './engines.js';
import { startGateway, type Gateway } from './gateway.js';

export const LOCAL_TABLE = 'catalogue';

// Local runs may use Node 20; Lambda runs Node 22. The SDK's notice about Node 20 is noise here.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

export interface RuntimeState {
  pid: number;
  url: string;
  dynamodb: string;
  mail: string;
  s3: string;
  secrets: string;
  table: string;
}

export const stateFile = (dataDir: string) => join(dataDir, 'runtime.json');

/** Creates the signing keys and the cursor key on first start (kept in the data dir). */
export async function ensureKeyMaterial(dataDir: string): Promise<void> {
  const dir = join(dataDir, 'secrets');
  mkdirSync(dir, { recursive: true });
  const file = (name: string) => join(dir, `${name}.json`);
  if (!existsSync(file(SECRET_NAMES.jwtPrivate)) || !existsSync(file(SECRET_NAMES.jwtPublic))) {
    const { privateSet, publicSet } = await generateSigningKeys();
    writeFileSync(file(SECRET_NAMES.jwtPrivate), JSON.stringify(privateSet), { mode: 0o600 });
    writeFileSync(file(SECRET_NAMES.jwtPublic), JSON.stringify(publicSet));
  }
  if (!existsSync(file(SECRET_NAMES.cursor))) {
    writeFileSync(file(SECRET_NAMES.cursor), randomBytes(32).toString('base64url'), { mode: 0o600 });
  }
}

/** The environment of every function, as the CDK app sets it on AWS (see infra/aws). */
export function functionEnvironment(engines: Pick<Engines, 'env'>, baseUrl: string, table: string): Record<string, string> {
  return {
    ...engines.env,
    [ENV.table]: table,
    [ENV.baseUrl]: baseUrl,
    [ENV.corsOrigins]: process.env.CORS_ALLOWED_ORIGINS ?? '*',
    [ENV.jwtPublic]: SECRET_NAMES.jwtPublic,
    [ENV.jwtPrivate]: SECRET_NAMES.jwtPrivate,
    [ENV.cursor]: SECRET_NAMES.cursor,
    [ENV.logLevel]: process.env.POWERTOOLS_LOG_LEVEL ?? 'INFO',
  };
}

export interface LocalRuntime {
  gateway: Gateway;
  engines: Engines;
  env: Record<string, string>;
  stop(): Promise<void>;
}

export interface LocalOptions {
  port: number;
  dataDir: string;
  /** Empty the store first. */
  fresh?: boolean;
  /** Keep DynamoDB data on disk (npm start) rather than in memory (tests). */
  persist?: boolean;
  table?: string;
}

export async function startLocal(opts: LocalOptions): Promise<LocalRuntime> {
  mkdirSync(opts.dataDir, { recursive: true });
  if (opts.fresh) {
    for (const d of ['dynamodb', 's3']) rmSync(join(opts.dataDir, d), { recursive: true, force: true });
  }
  await ensureKeyMaterial(opts.dataDir);
  const engines = await startEngines({ dataDir: opts.dataDir, persist: opts.persist ?? true });
  try {
    const table = opts.table ?? LOCAL_TABLE;
    await ensureTable(engines.dynamodb, table);
    // The functions run in this process: their environment is this process's environment.
    const gateway = await startGateway(opts.port);
    const env = functionEnvironment(engines, gateway.url, table);
    Object.assign(process.env, env);
    return {
      gateway,
      engines,
      env,
      stop: async () => {
        await gateway.close();
        await engines.stop();
      },
    };
  } catch (err) {
    await engines.stop();
    throw err;
  }
}

export function writeState(dataDir: string, state: RuntimeState): void {
  writeFileSync(stateFile(dataDir), JSON.stringify(state, null, 2));
}

export function readState(dataDir: string): RuntimeState | null {
  try {
    return JSON.parse(readFileSync(stateFile(dataDir), 'utf8')) as RuntimeState;
  } catch {
    return null;
  }
}

export function removeState(dataDir: string): void {
  rmSync(stateFile(dataDir), { force: true });
}

/**
 * The local runtime as one unit: engines, table, key material, the function environment and the
 * local API Gateway. `npm start`, the e2e tests and the benchmarks all start it through here.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateSigningKeys } from '../../shared/auth/keygen.js';
import { FUNCTION_ENV as ENV, SECRET_NAMES } from '../api-config.js';
import { ensureTable, LOCAL_INDEX_BUCKET, LOCAL_PICTURES_BUCKET, startEngines, type Engines } from './engines.js';
import { advanceStatuses } from '../../shared/domain/catalogue-import.js';
import { indexesToRebuild, rebuildIndexes } from '../../shared/domain/index-rebuild.js';
import { migrateStore, type MigrateOptions, type MigrationReport } from '../../shared/domain/migrations.js';
import { ensureCatalogueFile, ensureTableWithCatalogue, progressBar, type FileStartOptions, type FirstImport, type FirstStartOptions } from './first-start.js';
import { startGateway, type Gateway } from './gateway.js';
import { startScheduler, type Scheduler } from './scheduler.js';
import { startStreamPoller, type StreamPoller } from './streams.js';

export const LOCAL_TABLE = 'catalogue';
/** Sender of the local e-mails (the SES emulator accepts any). */
export const LOCAL_MAIL_FROM = 'no-reply@catalogue.localhost';
/** Where local e-mail links point: a front-end dev server's usual address. */
export const LOCAL_FRONTEND_URL = 'http://localhost:5173';

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
/** Where the stream poller keeps its read position between runs of `npm start`. */
export const streamCheckpointFile = (dataDir: string) => join(dataDir, 'streams.json');
/** Where the stream poller appends the records a consumer gave up (what a failure queue holds on AWS). */
export const streamDeadLetterFile = (dataDir: string) => join(dataDir, 'stream-dead-letters.jsonl');

/** Creates the signing keys, the cursor key and the e-mailed-token key on first start (kept in the data dir). */
export async function ensureKeyMaterial(dataDir: string): Promise<void> {
  const dir = join(dataDir, 'secrets');
  mkdirSync(dir, { recursive: true });
  const file = (name: string) => join(dir, `${name}.json`);
  if (!existsSync(file(SECRET_NAMES.jwtPrivate)) || !existsSync(file(SECRET_NAMES.jwtPublic))) {
    const { privateSet, publicSet } = await generateSigningKeys();
    writeFileSync(file(SECRET_NAMES.jwtPrivate), JSON.stringify(privateSet), { mode: 0o600 });
    writeFileSync(file(SECRET_NAMES.jwtPublic), JSON.stringify(publicSet));
  }
  if (!existsSync(file(SECRET_NAMES.social))) writeFileSync(file(SECRET_NAMES.social), '{}', { mode: 0o600 });
  if (!existsSync(file(SECRET_NAMES.cursor))) {
    writeFileSync(file(SECRET_NAMES.cursor), randomBytes(32).toString('base64url'), { mode: 0o600 });
  }
  if (!existsSync(file(SECRET_NAMES.emailToken))) {
    writeFileSync(file(SECRET_NAMES.emailToken), randomBytes(32).toString('base64url'), { mode: 0o600 });
  }
}

/**
 * Where the local functions store uploaded pictures: the emulator's bucket, served by the
 * emulator itself at http://127.0.0.1:<port>/<bucket>/<key> (plain http on loopback; on AWS the
 * URLs are the pictures distribution's https URLs).
 */
export function picturesEnvironment(s3Endpoint: string): Record<string, string> {
  return { [ENV.picturesBucket]: LOCAL_PICTURES_BUCKET, [ENV.picturesBaseUrl]: `${s3Endpoint}/${LOCAL_PICTURES_BUCKET}` };
}

/** Where the local functions keep the in-memory index's objects: the emulator's index bucket (never served). */
export function indexEnvironment(): Record<string, string> {
  return { [ENV.indexBucket]: LOCAL_INDEX_BUCKET };
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
    [ENV.emailTokenKey]: SECRET_NAMES.emailToken,
    [ENV.logLevel]: process.env.POWERTOOLS_LOG_LEVEL ?? 'INFO',
    [ENV.mailFrom]: process.env.MAIL_FROM ?? LOCAL_MAIL_FROM,
    [ENV.frontendUrl]: (process.env.FRONTEND_URL ?? LOCAL_FRONTEND_URL).replace(/\/+$/, ''),
    // `RATE_LIMITS=off npm start` switches the specific rate limits off (e.g. for test suites that register many users).
    [ENV.rateLimits]: process.env.RATE_LIMITS ?? 'on',
    // `SOCIAL_PROVIDERS='[…]' npm start` configures social sign-in; client secrets go into
    // <data dir>/secrets/social-secrets.json (README, "Social sign-in").
    [ENV.socialProviders]: process.env.SOCIAL_PROVIDERS ?? '',
    [ENV.socialSecrets]: SECRET_NAMES.social,
    ...picturesEnvironment(engines.env.AWS_ENDPOINT_URL_S3 ?? ''),
    ...indexEnvironment(),
  };
}

export interface LocalRuntime {
  gateway: Gateway;
  engines: Engines;
  env: Record<string, string>;
  /** The stream poller and the job scheduler (absent with `background: false`). */
  streams?: StreamPoller;
  scheduler?: Scheduler;
  /** What the first start imported (`importCatalogue`), or null. */
  imported: FirstImport | null;
  /** What migrating a store of an earlier schema version did before serving (null: the store was at this version). */
  migrated: MigrationReport | null;
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
  /**
   * Run the stream consumers (stream poller) and the scheduled jobs (scheduler), as on AWS
   * (default true). Benchmarks switch them off so that only the measured requests run.
   */
  background?: boolean;
  /**
   * Load the real catalogue into a new table before serving (`npm start` without `--fresh`;
   * infra/local/first-start.ts). `true`, or the options of that import (tests: a small data set).
   */
  importCatalogue?: boolean | (Pick<FirstStartOptions, 'data' | 'now' | 'onProgress'> & Pick<FileStartOptions, 'stagingRoots'>);
  /**
   * How a store of an earlier schema version is migrated before serving (shared/domain/migrations.ts;
   * it always is): by default with a progress bar on standard error, or these options (tests).
   */
  migrate?: Pick<MigrateOptions, 'onStart' | 'onProgress' | 'concurrency'>;
}

export async function startLocal(opts: LocalOptions): Promise<LocalRuntime> {
  mkdirSync(opts.dataDir, { recursive: true });
  if (opts.fresh) {
    for (const d of ['dynamodb', 's3']) rmSync(join(opts.dataDir, d), { recursive: true, force: true });
    rmSync(streamCheckpointFile(opts.dataDir), { force: true });
    rmSync(streamDeadLetterFile(opts.dataDir), { force: true });
  }
  await ensureKeyMaterial(opts.dataDir);
  const table = opts.table ?? LOCAL_TABLE;
  const persist = opts.persist ?? true;
  const extra = opts.importCatalogue === true || !opts.importCatalogue ? {} : opts.importCatalogue;
  // A new data dir gets its catalogue as a whole database file before its engine starts (first-start.ts).
  let imported: FirstImport | null = opts.importCatalogue && persist ? await ensureCatalogueFile({ dataDir: opts.dataDir, table, ...extra }) : null;
  const engines = await startEngines({ dataDir: opts.dataDir, persist });
  try {
    // The import, the migration and the status job write with the functions' client: it reads the same environment.
    Object.assign(process.env, engines.env, { [ENV.table]: table }, indexEnvironment());
    if (opts.importCatalogue) {
      const { stagingRoots: _, ...inPlace } = extra;
      imported ??= await ensureTableWithCatalogue({ endpoint: engines.dynamodb, table, ...inPlace });
    } else await ensureTable(engines.dynamodb, table);
    // A kept store written by an earlier version is brought to this one before anything reads it.
    const migrated = await migrateLocal(opts.dataDir, opts.migrate);
    // A title kind without a snapshot (the first start's bulk import writes none: its staging
    // engine has no index bucket) or whose objects are gone gets one from its records.
    const rebuilt = await rebuildIndexes(await indexesToRebuild());
    if (rebuilt.some((r) => r.version !== null)) process.stderr.write(`indexed ${rebuilt.map((r) => `${r.records} ${r.kind.toLowerCase()}s`).join(', ')}\n`);
    // A cached catalogue was imported at another time: its statuses move to now, as the airing status job would move them.
    if (imported?.via === 'cached' && !extra.now) await advanceStatuses({ now: new Date() });
    // The functions run in this process: their environment is this process's environment.
    const gateway = await startGateway(opts.port);
    const env = functionEnvironment(engines, gateway.url, table);
    Object.assign(process.env, env);
    let streams: StreamPoller | undefined;
    let scheduler: Scheduler | undefined;
    if (opts.background ?? true) {
      try {
        // Resumes where the previous run stopped when data is kept (see streams.ts).
        streams = await startStreamPoller({
          endpoint: engines.dynamodb,
          table,
          ...(persist ? { checkpointFile: streamCheckpointFile(opts.dataDir), deadLetterFile: streamDeadLetterFile(opts.dataDir) } : {}),
        });
        scheduler = startScheduler();
      } catch (err) {
        await streams?.stop();
        await gateway.close();
        throw err;
      }
    }
    return {
      gateway,
      engines,
      env,
      streams,
      scheduler,
      imported,
      migrated,
      stop: async () => {
        await scheduler?.stop();
        await streams?.stop();
        await gateway.close();
        await engines.stop();
      },
    };
  } catch (err) {
    await engines.stop();
    throw err;
  }
}

/**
 * Migrates the store of TABLE_NAME to this code's schema version before serving (nothing when it
 * is there): says so on standard error, with the progress bar of the first start. The lease's
 * holder is the data dir, so a start stopped half-way goes on at the next start at once.
 */
async function migrateLocal(dataDir: string, opts: LocalOptions['migrate']): Promise<MigrationReport | null> {
  let bar: ReturnType<typeof progressBar> | null = null;
  let phase = '';
  const report = await migrateStore({
    holder: `local:${dataDir}`,
    concurrency: opts?.concurrency ?? 4,
    onStart:
      opts?.onStart ??
      ((from, to, steps) => process.stderr.write(`migrating the store from schema version ${from} to ${to}: ${steps.map((s) => s.title).join('; ')}\n`)),
    onProgress:
      opts?.onProgress ??
      ((_step, p) => {
        const now = `${p.phase} ${p.pass ?? ''}`;
        if (now !== phase) {
          bar?.end();
          phase = now;
          // A walk has a total (a bar); a sweep of the table does not (a line per pass).
          bar = p.total === null ? null : progressBar(p.total, process.stderr, `migrating: ${p.phase}`);
          if (!bar) process.stderr.write(`migrating: ${p.phase}${p.pass ? `, pass ${p.pass}` : ''}\n`);
        }
        bar?.update(Math.min(p.done, p.total ?? p.done));
      }),
  });
  (bar as ReturnType<typeof progressBar> | null)?.end();
  return report.steps.length > 0 ? report : null;
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

/**
 * Per test file: the engine addresses, a DynamoDB Local of its own (in memory, stopped after the
 * file; on a data dir of its own in the `faults` project, so that a test can kill it and start it
 * again with its data: `dynamoEngine()`) and a table in it, so files never see each other's data nor slow each other down: DynamoDB
 * Local gets slower with every stream record it keeps, even those of deleted tables — after ten
 * tables of 2,000 items a put takes 22 ms instead of 5 (docs/decisions.md T1). Its index objects
 * (shared/storage/index-objects.ts) go to a bucket of its own in the run's S3 emulator, for the
 * same reason: their keys name only a kind and a version, which every file has. Functions read the
 * same environment variables as on AWS. Every item a function running in this process touches is
 * checked against its role's grants (key-trace.ts): a file fails when a function did to an item
 * what its role would not let it do on AWS.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { ensureBucket, ensureTable, startDynamoLocal } from '../../infra/local/engines.js';
import { SECRET_NAMES } from '../../infra/api-config.js';
import { picturesEnvironment } from '../../infra/local/runtime.js';
import { keyTrace, writeGrantRecord } from './key-trace.js';
import { setDynamoEngine } from './dynamo-engine.js';

// Memory-backed where the machine has it: a restart keeps the files, and writes cost no disk
// syncs (DynamoDB Local commits each write to SQLite: on a disk, 5 times slower here).
const dataDir = process.env.TEST_DYNAMO_ON_DISK === 'true' ? mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'catalogue-dynamo-')) : null;
const dynamo = await startDynamoLocal(dataDir);
setDynamoEngine(dynamo);
const env: Record<string, string> = { ...inject('engineEnv'), AWS_ENDPOINT_URL_DYNAMODB: dynamo.url };
const fileId = randomBytes(6).toString('hex');
Object.assign(process.env, env, {
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  TABLE_NAME: `test-${fileId}`,
  INDEX_BUCKET: `test-index-${fileId}`,
  PUBLIC_BASE_URL: 'http://localhost',
  CORS_ALLOWED_ORIGINS: 'https://app.example.org',
  JWT_PUBLIC_SECRET_ID: SECRET_NAMES.jwtPublic,
  JWT_PRIVATE_SECRET_ID: SECRET_NAMES.jwtPrivate,
  CURSOR_SECRET_ID: SECRET_NAMES.cursor,
  EMAIL_TOKEN_SECRET_ID: SECRET_NAMES.emailToken,
  POWERTOOLS_LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'SILENT',
  MAIL_FROM: 'no-reply@catalogue.test',
  FRONTEND_URL: 'https://app.example.org',
  // Suites register many users and sign in often: the specific rate limits are off unless a
  // file (the tests of the limits themselves) switches them on. Functions read it per request.
  RATE_LIMITS: 'off',
  // Under a full parallel run the local engine is many times slower than DynamoDB: functions get
  // two minutes instead of API Gateway's 29 s (infra/local/functions.ts); the bench measures latency.
  LOCAL_FUNCTION_DEADLINE_MS: '120000',
  // The bucket exists from the engines' start (global-setup.ts); every file shares it (keys are new ids).
  ...picturesEnvironment(env.AWS_ENDPOINT_URL_S3!),
});

const trace = keyTrace();

beforeAll(async () => {
  await Promise.all([ensureTable(env.AWS_ENDPOINT_URL_DYNAMODB!, process.env.TABLE_NAME!), ensureBucket(env.AWS_ENDPOINT_URL_S3!, process.env.INDEX_BUCKET!)]);
});

afterAll(async () => {
  // A whole run sums the files' records up: the grants no test needed (test/run.ts).
  if (process.env.KEY_GRANT_RECORDS) writeGrantRecord(process.env.KEY_GRANT_RECORDS, trace);
  await dynamo.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  expect(trace.violations(), 'items the functions touched that their roles would refuse on AWS').toEqual([]);
});

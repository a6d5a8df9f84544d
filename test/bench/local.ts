/**
 * The local runtime the benchmarks run against: DynamoDB Local and the emulators, the table and
 * the local API Gateway, all started through infra/local/runtime.ts into a temporary data dir
 * (DynamoDB in memory), or into a kept one (`dataDir`: DynamoDB's files there, so the catalogue
 * section's loaded tables survive the run; the table the other sections use is emptied at
 * start), plus signed-in callers and the SDK call recorder.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ensureTable } from '../../infra/local/engines.js';
import { LOCAL_TABLE, startLocal, type LocalRuntime } from '../../infra/local/runtime.js';
import type { Role } from '../../shared/auth/roles.js';
import { signToken } from '../../shared/auth/tokens.js';
import { db } from '../../shared/db/sdk.js';
import { commit } from '../../shared/db/records.js';
import { newAccount } from '../../shared/domain/accounts.js';
import { newId } from '../../shared/ids.js';
import { closeAwsConnections } from '../../shared/aws-request.js';
import { HttpClient } from './http.js';
import { instrumentSdk, type SdkCallRecorder } from './sdk-calls.js';

export interface BenchUser {
  id: string;
  role: Role;
  token: string;
}

export interface BenchEnv {
  runtime: LocalRuntime;
  /** The runtime's data dir (the Secrets Manager emulator's secrets are in `secrets/` there). */
  dataDir: string;
  /** Base URL of the local API Gateway (loopback IPv4). */
  url: string;
  /** The Host header the gateway's clients send. */
  host: string;
  http: HttpClient;
  sdk: SdkCallRecorder;
  /** A signed-in user of the role (one per role, created on first use) with a fresh access token. */
  user(role: Role): Promise<BenchUser>;
  stop(): Promise<void>;
}

/**
 * Function logs (JSON lines on stdout) are formatted as deployed but not printed, so the
 * console stays readable and terminal speed does not enter the measurements.
 */
let functionLogBytes = 0;
/** Bytes of the functions' log lines so far (what CloudWatch Logs would ingest of them). */
export const loggedBytes = () => functionLogBytes;

function discardFunctionLogs(): () => void {
  const original = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    const text = typeof chunk === 'string' ? chunk : '';
    if (text.startsWith('{"level":')) {
      functionLogBytes += Buffer.byteLength(text);
      const done = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
      done?.();
      return true;
    }
    return (original as (c: string | Uint8Array, ...r: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stdout.write;
  return () => {
    process.stdout.write = original;
  };
}

/** A client of the runtime's DynamoDB Local for table administration (create, delete, describe). */
export function adminClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
}

export async function startBenchEnv(opts: { dataDir?: string } = {}): Promise<BenchEnv> {
  process.env.POWERTOOLS_LOG_LEVEL = 'INFO';
  // The specific rate limits (API.md §7.2) would refuse the bench's sign-ins and registrations
  // after a few, and add their counter writes to every call count: off, as test suites run.
  process.env.RATE_LIMITS = 'off';
  const kept = opts.dataDir !== undefined;
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'catalogue-bench-'));
  const restoreStdout = discardFunctionLogs();
  let runtime: LocalRuntime;
  try {
    // No stream poller and no jobs: only the measured requests reach the engine.
    runtime = await startLocal({ port: 0, dataDir, fresh: !kept, persist: kept, background: false });
    if (kept) {
      // The other sections' table starts empty, as in memory.
      const admin = adminClient(runtime.engines.dynamodb);
      await admin.send(new DeleteTableCommand({ TableName: LOCAL_TABLE })).finally(() => admin.destroy());
      await ensureTable(runtime.engines.dynamodb, LOCAL_TABLE);
    }
  } catch (err) {
    restoreStdout();
    if (!kept) rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  const url = `http://127.0.0.1:${runtime.gateway.port}`;
  const http = new HttpClient(url);
  const users = new Map<Role, Promise<string>>();
  let stopped = false;
  return {
    runtime,
    dataDir,
    url,
    host: `localhost:${runtime.gateway.port}`,
    http,
    sdk: instrumentSdk(),
    async user(role) {
      let created = users.get(role);
      if (!created) {
        created = createBenchUser(role);
        users.set(role, created);
      }
      const id = await created;
      // Access tokens live 15 minutes and a full run takes longer: sign one per use.
      const { token } = await signToken('access', { id, token_version: 0 });
      return { id, role, token };
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      http.close();
      try {
        await runtime.stop();
      } finally {
        db().destroy();
        closeAwsConnections();
        restoreStdout();
        if (!kept) rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
}

/** An active account of the role with its profile, as registration and activation leave it (no password). */
/** A new active user of the role in the current table (TABLE_NAME): its id. */
export async function createBenchUser(role: Role): Promise<string> {
  const id = newId();
  const username = `bench_${role}_${id.slice(0, 8).replace(/[^A-Za-z0-9]/g, 'x')}`;
  const account = newAccount({ id, email: `${username.toLowerCase()}@example.org`, username, passwordHash: null, active: true, role });
  await commit(...account.plans);
  return id;
}

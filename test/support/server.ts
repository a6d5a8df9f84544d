/**
 * End-to-end helpers: the local API Gateway of infra/local on an ephemeral port (functions run
 * in this test process against the real engines), the stream poller and the job scheduler for the
 * file's table (so e-mails are delivered to the SES emulator, see mail.ts), and signed-in callers
 * of any role.
 */
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { ensureTable } from '../../infra/local/engines.js';
import { startGateway, type Gateway } from '../../infra/local/gateway.js';
import { startScheduler, type Scheduler } from '../../infra/local/scheduler.js';
import { startStreamPoller, type StreamPoller } from '../../infra/local/streams.js';
import { isStaff, type Role } from '../../shared/auth/roles.js';
import { signToken } from '../../shared/auth/tokens.js';
import { createUser } from '../../shared/db/users.js';
import { newId } from '../../shared/ids.js';
import type { Server } from './http.js';

import { sendChecked, writeFileRecord } from './prism.js';

export { emailsTo, emailToken, waitForEmail, type ReceivedEmail } from './mail.js';
export { call, type Res } from './http.js';

export interface TestServer extends Server {
  /** The file's stream poller and scheduler (useServer, unless `background: false`). */
  background?: Background;
  /** A new active user of this role and an access token for it. */
  user(role: Role): Promise<{ id: string; username: string; token: string; auth: Record<string, string> }>;
}

export async function createTestUser(role: Role, opts: { active?: boolean } = {}) {
  const id = newId();
  const username = `u_${id.slice(0, 10).replace(/[^A-Za-z0-9]/g, 'x')}`;
  const now = new Date().toISOString();
  await createUser(
    { id, username, email: `${username.toLowerCase()}@example.org`, role, is_active: opts.active ?? true, is_staff: isStaff(role), last_login: null, created_at: now, updated_at: now },
    { token_version: 0, password_hash: null, activated_at: now },
  );
  const { token } = await signToken('access', { id, token_version: 0 });
  return { id, username, token, auth: { authorization: `Bearer ${token}` } };
}

export interface Background {
  streams?: StreamPoller;
  scheduler?: Scheduler;
}

/**
 * Runs the stream consumers (stream poller, from the oldest record of the file's table) and the
 * scheduled jobs (scheduler) for the test file, as `npm start` does; stopped after the file.
 */
export function useBackground(): Background {
  const background: Background = {};
  beforeAll(async () => {
    const endpoint = process.env.AWS_ENDPOINT_URL_DYNAMODB!;
    const table = process.env.TABLE_NAME!;
    await ensureTable(endpoint, table);
    background.streams = await startStreamPoller({ endpoint, table });
    background.scheduler = startScheduler();
  });
  afterAll(async () => {
    await background.scheduler?.stop();
    await background.streams?.stop();
  });
  return background;
}

/**
 * Starts a local gateway for the test file (closed after the file), with the stream poller and
 * the scheduler unless `background: false` (a file that watches the table's stream itself, so
 * that only its requests write: the fuzz test). Requests reach it through the run's contract
 * proxy (prism.ts: every response checked against the OpenAPI document) unless `contract: false`
 * (the fuzz test, whose deliberately broken requests are checked by its own rules).
 */
export function useServer(opts: { background?: boolean; contract?: boolean } = {}): TestServer {
  let gateway: Gateway | undefined;
  const server: TestServer = {
    url: '',
    user: (role) => createTestUser(role),
  };
  if (opts.contract !== false) server.transport = (req) => sendChecked(server.url, inject('contractProxy') ?? null, req);
  if (opts.background !== false) server.background = useBackground();
  beforeAll(async () => {
    gateway = await startGateway(0);
    server.url = gateway.url;
    process.env.PUBLIC_BASE_URL = gateway.url;
  });
  afterAll(async () => {
    await gateway?.close();
    writeFileRecord(inject('contractRecords'), expect.getState().testPath ?? 'unknown');
  });
  return server;
}

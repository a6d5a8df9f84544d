/**
 * Starts the real local engines once per test run (the SES and S3 emulators — the S3 emulator
 * with the pictures and index buckets created —, the Secrets Manager endpoint with fresh key material) and
 * hands their addresses to the test files; for the e2e project also Prism, which validates the
 * responses against the OpenAPI document (prism.ts). DynamoDB Local is not among them: each file starts its
 * own (setup.ts), because one engine shared by the whole run slows down with every stream record
 * the earlier files wrote (docs/decisions.md T1).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEngines, type Engines } from '../../infra/local/engines.js';
import { ensureKeyMaterial } from '../../infra/local/runtime.js';
import { startContractProxy, type ContractProxy } from './prism.js';

declare module 'vitest' {
  export interface ProvidedContext {
    engineEnv: Record<string, string>;
    mailUrl: string;
    dataDir: string;
    /** Prism in front of the gateways (e2e only; prism.ts), or null. */
    contractProxy: { url: string; relay: string } | null;
    /** Where each file writes what Prism validated (prism.ts writeFileRecord). */
    contractRecords: string;
  }
}

let engines: Engines | undefined;
let dataDir: string | undefined;
let proxy: ContractProxy | undefined;

export async function setup(project: TestProject): Promise<void> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  dataDir = mkdtempSync(join(tmpdir(), 'catalogue-test-'));
  await ensureKeyMaterial(dataDir);
  // The e2e files' responses are validated by Prism against the OpenAPI document (prism.ts);
  // CONTRACT_PROXY=off sends them straight to the gateways.
  const withProxy = project.name === 'e2e' && process.env.CONTRACT_PROXY !== 'off';
  [engines, proxy] = await Promise.all([startEngines({ dataDir, persist: false, dynamo: false }), withProxy ? startContractProxy(dataDir) : undefined]);
  project.provide('contractProxy', proxy ? { url: proxy.url, relay: proxy.relay } : null);
  project.provide('contractRecords', process.env.CONTRACT_RECORDS ?? join(dataDir, 'contract'));
  project.provide('engineEnv', engines.env);
  project.provide('mailUrl', engines.mail);
  project.provide('dataDir', dataDir);
}

export async function teardown(): Promise<void> {
  await proxy?.stop();
  await engines?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}

/**
 * Starts the real local engines once per test run (the SES and S3 emulators — the S3 emulator
 * with the pictures bucket created —, the Secrets Manager endpoint with fresh key material) and
 * hands their addresses to the test files. DynamoDB Local is not among them: each file starts its
 * own (setup.ts), because one engine shared by the whole run slows down with every stream record
 * the earlier files wrote (docs/decisions.md T1).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEngines, type Engines } from '../../infra/local/engines.js';
import { ensureKeyMaterial } from '../../infra/local/runtime.js';

declare module 'vitest' {
  export interface ProvidedContext {
    engineEnv: Record<string, string>;
    mailUrl: string;
    dataDir: string;
  }
}

let engines: Engines | undefined;
let dataDir: string | undefined;

export async function setup(project: TestProject): Promise<void> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  dataDir = mkdtempSync(join(tmpdir(), 'catalogue-test-'));
  await ensureKeyMaterial(dataDir);
  engines = await startEngines({ dataDir, persist: false, dynamo: false });
  project.provide('engineEnv', engines.env);
  project.provide('mailUrl', engines.mail);
  project.provide('dataDir', dataDir);
}

export async function teardown(): Promise<void> {
  await engines?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}

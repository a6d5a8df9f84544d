/**
 * For the tools that work against a running `npm start` (dev-token, invoke): find it through the
 * state file in DATA_DIR (default ./.data), check that it is still running and that every engine
 * it uses listens on loopback, and give this process the environment its functions have, so the
 * same SDK clients reach the same engines. Local only: anything else is refused.
 */
import { resolve } from 'node:path';
import { engineEnvironment } from './engines.js';
import { functionEnvironment, readState, type RuntimeState } from './runtime.js';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

export function fail(tool: string, message: string): never {
  console.error(`${tool}: ${message}`);
  process.exit(1);
}

/** True when the URL names this machine (loopback), so a tool can never write to a real stage. */
export function isLoopback(url: string): boolean {
  try {
    return LOOPBACK.has(new URL(url).hostname);
  } catch {
    return false;
  }
}

/** The running local service, with this process's environment set as its functions' is. */
export function attachToLocal(tool: string): RuntimeState {
  const dataDir = resolve(process.env.DATA_DIR ?? '.data');
  const state = readState(dataDir);
  if (!state) fail(tool, `no running local service found in ${dataDir}: start it with \`npm start\` (same DATA_DIR) first`);
  try {
    process.kill(state.pid, 0);
  } catch {
    fail(tool, `the local service recorded in ${dataDir} (pid ${state.pid}) is not running: start it with \`npm start\``);
  }
  for (const url of [state.url, state.dynamodb, state.secrets, state.mail, state.s3]) {
    if (!isLoopback(url)) fail(tool, `refusing to use a non-local engine (${url})`);
  }
  // POWERTOOLS_LOG_LEVEL and CORS_ALLOWED_ORIGINS, when set by the caller, are kept.
  const env = functionEnvironment({ env: engineEnvironment(state) }, state.url, state.table);
  Object.assign(process.env, env, { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' });
  return state;
}

/**
 * The admin tools' command line (infra/admin-command.ts): a mistake ends the tool with its message
 * and usage, exit code 1, before it looks for a table or writes anything.
 */
import { spawnSync } from 'node:child_process';
import { expect, it } from 'vitest';

const run = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', ...args], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, DATA_DIR: '/nonexistent-admin-command' } });

it.each([
  [['infra/migrate.ts', '--concurrency', '0'], 'migrate: --concurrency must be an integer from 1 to 64', 'usage: npm run migrate'],
  [['infra/migrate.ts', '--segments', '2.5'], 'migrate: --segments must be an integer from 1 to 64', 'usage: npm run migrate'],
  [['infra/import-catalogue.ts', '--bogus'], "import-catalogue: Unknown option '--bogus'", 'usage: npm run import-catalogue'],
  [['infra/import-catalogue.ts', 'extra'], 'import-catalogue: ', 'usage: npm run import-catalogue'],
  [['infra/create-admin.ts', '--stage', 'dev'], 'create-admin: usage: npm run create-admin', 'ADMIN_PASSWORD=…'],
])('%j is refused with its usage', (args, message, usage) => {
  const r = run(...args);
  expect(r.status, r.stderr).toBe(1);
  expect(r.stderr).toContain(message);
  expect(r.stderr).toContain(usage);
}, 90_000);

it('without a running local service a valid command says so (it never writes elsewhere)', () => {
  const r = run('infra/migrate.ts', '--concurrency', '2');
  expect(r.status, r.stderr).toBe(1);
  expect(r.stderr).toContain('migrate: no running local service found in /nonexistent-admin-command');
}, 90_000);

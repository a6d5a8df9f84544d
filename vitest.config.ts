import { defineConfig } from 'vitest/config';

/**
 * Test projects. Integration and e2e tests use the real local engines: the emulators started by
 * test/support/global-setup.ts (once per project in a run), and a DynamoDB Local and a table per
 * test file (test/support/setup.ts). Unit and infra tests need no engine.
 *
 * The functions' logger (shared/log.ts) takes its level when it is first imported, which for
 * these projects is while setup.ts's own imports load, before its body runs: the level is set
 * here, before any file loads (TEST_LOG_LEVEL=INFO npm test shows the functions' logs).
 */
const engineEnv = { POWERTOOLS_LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'SILENT' };
export default defineConfig({
  test: {
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 120_000,
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'], setupFiles: ['test/support/unit-env.ts'] } },
      {
        extends: true,
        test: { name: 'integration', include: ['test/integration/**/*.test.ts'], env: engineEnv, globalSetup: ['test/support/global-setup.ts'], setupFiles: ['test/support/setup.ts'] },
      },
      {
        extends: true,
        test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'], env: engineEnv, globalSetup: ['test/support/global-setup.ts'], setupFiles: ['test/support/setup.ts'] },
      },
      {
        extends: true,
        test: {
          name: 'faults',
          include: ['test/faults/**/*.test.ts'],
          env: { ...engineEnv, TEST_DYNAMO_ON_DISK: 'true' },
          globalSetup: ['test/support/global-setup.ts'],
          setupFiles: ['test/support/setup.ts'],
        },
      },
      { extends: true, test: { name: 'infra', include: ['test/infra/**/*.test.ts'] } },
    ],
  },
});

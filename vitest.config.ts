import { defineConfig } from 'vitest/config';

/**
 * Test projects. Integration and e2e tests use the real local engines, started by
 * test/support/global-setup.ts (once per project in a run); each test file gets its own table
 * (test/support/setup.ts). Unit and infra tests need no engine.
 */
export default defineConfig({
  test: {
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 120_000,
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'], setupFiles: ['test/support/unit-env.ts'] } },
      {
        extends: true,
        test: { name: 'integration', include: ['test/integration/**/*.test.ts'], globalSetup: ['test/support/global-setup.ts'], setupFiles: ['test/support/setup.ts'] },
      },
      {
        extends: true,
        test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'], globalSetup: ['test/support/global-setup.ts'], setupFiles: ['test/support/setup.ts'] },
      },
      { extends: true, test: { name: 'infra', include: ['test/infra/**/*.test.ts'] } },
    ],
  },
});

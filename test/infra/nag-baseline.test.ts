/**
 * The acknowledgements of infra/aws are not vacuous: with `acknowledge` switched off, the
 * AwsSolutions checks report exactly the rules the acknowledgements name, and nothing else.
 */
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it, vi } from 'vitest';
import type * as Nag from '../../infra/aws/nag.js';
import { synth } from './synth.js';

vi.mock('../../infra/aws/nag.js', async (importOriginal) => ({
  ...(await importOriginal<typeof Nag>()),
  acknowledge: () => undefined,
}));

describe('cdk-nag without acknowledgements', () => {
  it('reports only the acknowledged rules', { timeout: 120_000 }, () => {
    const s = synth();
    try {
      const report = new AwsSolutionsChecks().validateScope(s.app);
      const rules = new Set(report.violations.map((v) => v.ruleName.replace(/\[.*$/, '')));
      expect([...rules].sort()).toEqual(['AwsSolutions-APIG4', 'AwsSolutions-IAM5', 'AwsSolutions-L1', 'AwsSolutions-S1', 'AwsSolutions-SMG4']);
    } finally {
      s.dispose();
    }
  });
});

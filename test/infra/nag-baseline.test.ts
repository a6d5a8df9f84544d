/**
 * The acknowledgements of infra/aws are not vacuous: with `acknowledge` switched off, the
 * AwsSolutions checks report exactly the rules the acknowledgements name, and nothing else
 * (by default, and with every optional part: the mailer's failure queue, the edge).
 */
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it, vi } from 'vitest';
import type * as Nag from '../../infra/aws/nag.js';
import { BASE_RULES, FULL, synth } from './synth.js';

vi.mock('../../infra/aws/nag.js', async (importOriginal) => ({
  ...(await importOriginal<typeof Nag>()),
  acknowledge: () => undefined,
}));

describe('cdk-nag without acknowledgements', () => {
  for (const [title, context, extra] of [
    // The failure queues of the stream consumers (the catalogue consumer's always; the mailer's
    // with a sender). The pictures' distribution is always there: its CFR rules are in the base.
    ['default', {}, ['AwsSolutions-SQS3']],
    ['every optional part', FULL, ['AwsSolutions-SQS3']],
  ] as const) {
    it(`reports only the acknowledged rules (${title})`, { timeout: 120_000 }, () => {
      const s = synth({ context });
      try {
        const report = new AwsSolutionsChecks().validateScope(s.app);
        const rules = new Set(report.violations.map((v) => v.ruleName.replace(/\[.*$/, '')));
        expect([...rules].sort()).toEqual([...BASE_RULES, ...extra].sort());
      } finally {
        s.dispose();
      }
    });
  }
});

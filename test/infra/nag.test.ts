/**
 * cdk-nag, AwsSolutions pack (DESIGN.md §6): no unacknowledged error or warning in any stack,
 * root, nested or edge, for a dev and a prod stage with every optional part switched on (the
 * sender, and on prod also without and with the edge). Each acknowledgement in infra/aws names
 * one resource and a specific reason (infra/aws/nag.ts).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { JOBS, type JobDecl } from '../../functions/jobs/registry.js';
import { stageConfig } from '../../infra/aws/config.js';
import { addNagChecks, REASONS } from '../../infra/aws/nag.js';
import { addStage, CatalogueStack } from '../../infra/aws/stack.js';
import { BASE_RULES, FULL, synth } from './synth.js';

const job: JobDecl = { name: 'nag-demo', entry: 'functions/genres/list.ts', schedule: 'cron(0 3 * * ? *)', keys: { 'DEMO#*': ['GetItem', 'PutItem'] } };

function findings(root: IConstruct): string[] {
  const report = new AwsSolutionsChecks().validateScope(root);
  return report.violations.map((v) => `${v.severity} ${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`);
}

/** Every acknowledgement recorded on the construct tree: [path, rule id, reason]. */
function acknowledgements(root: IConstruct): [string, string, string][] {
  const out: [string, string, string][] = [];
  for (const c of root.node.findAll()) {
    for (const entry of c.node.metadata) {
      if (entry.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY) continue;
      for (const [id, reason] of Object.entries(entry.data as Record<string, string>)) out.push([c.node.path, id, reason]);
    }
  }
  return out;
}

const mail = { mailFrom: 'noreply@example.org', frontendUrl: 'https://app.example.org' };

describe('cdk-nag AwsSolutions', () => {
  for (const [title, context] of [
    ['dev', { stage: 'dev', ...mail }],
    ['prod', { stage: 'prod', ...mail }],
    ['prod with the edge', FULL],
  ] as const) {
    it(`${title}: no unacknowledged finding in the root, any nested stack or the edge stack`, { timeout: 120_000 }, () => {
      const s = synth({ context, jobs: [...JOBS, job] });
      try {
        expect(findings(s.app)).toEqual([]);
        // Sanity: the checks do run, and the acknowledgements are what silences them.
        expect(acknowledgements(s.app).length).toBeGreaterThan(0);
      } finally {
        s.dispose();
      }
    });
  }

  for (const [title, context, expected] of [
    // The failure queues of the stream consumers (the catalogue consumer's always; the mailer's
    // with a sender). The pictures' distribution is always there: its CFR rules are in the base.
    ['default', {}, ['AwsSolutions-SQS3']],
    ['every optional part', FULL, ['AwsSolutions-SQS3']],
  ] as const) {
    it(`acknowledgements are per resource, with one of the written reasons (${title})`, () => {
      const s = synth({ context });
      try {
        const reasons = new Set<string>(Object.values(REASONS));
        const acks = acknowledgements(s.app);
        for (const [path, id, reason] of acks) {
          expect(reasons.has(reason), `${path} ${id}`).toBe(true);
          // Never on a whole stack.
          expect(s.stacks.map((x) => x.node.path), `${path} ${id}`).not.toContain(path);
        }
        const rules = new Set(acks.map(([, id]) => id.replace(/^annotation::/i, '').replace(/\[.*$/, '')));
        expect([...rules].sort()).toEqual([...BASE_RULES, ...expected].sort());
      } finally {
        s.dispose();
      }
    });
  }

  it('with -c nag=true (addNagChecks) synthesis passes, and fails on an unacknowledged finding', { timeout: 120_000 }, () => {
    const context = (JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as { context: object }).context;
    for (const extra of [false, true]) {
      const outdir = mkdtempSync(join(tmpdir(), 'cdk-nag-'));
      try {
        const app = new App({ outdir, context: { ...context, 'aws:cdk:bundling-stacks': [] } });
        const stack = new CatalogueStack(app, 'nag-cli', { config: stageConfig(app.node) });
        if (extra) new Bucket(stack, 'Unacknowledged');
        addNagChecks(app);
        if (extra) expect(() => app.synth()).toThrow(/AwsSolutions-S1/);
        else expect(() => app.synth()).not.toThrow();
      } finally {
        rmSync(outdir, { recursive: true, force: true });
      }
    }
  });

  it('the app as infra/aws/app.ts builds it, with -c nag=true -c edge=true and a sender: synthesis passes', { timeout: 120_000 }, () => {
    const context = (JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as { context: object }).context;
    const outdir = mkdtempSync(join(tmpdir(), 'cdk-nag-'));
    try {
      const app = new App({ outdir, context: { ...context, ...FULL, nag: 'true', 'aws:cdk:bundling-stacks': [] } });
      const config = stageConfig(app.node);
      expect(config).toMatchObject({ edge: true, nag: true });
      const { edge } = addStage(app, config);
      expect(edge).toBeDefined();
      addNagChecks(app);
      expect(() => app.synth()).not.toThrow();
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  });
});

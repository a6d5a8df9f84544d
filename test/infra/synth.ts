/**
 * Synthesis for the infra tests: the CDK app of infra/aws with cdk.json's context (feature
 * flags) and bundling skipped, so no esbuild run happens and dozens of functions synthesize in
 * seconds. Templates of the root, of every nested stack and (with `edge`) of the edge stack are
 * read back for the assertions.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { JobDecl } from '../../functions/jobs/registry.js';
import type { RouteDecl } from '../../shared/http/route.js';
import { stageConfig } from '../../infra/aws/config.js';
import type { EdgeStack } from '../../infra/aws/edge.js';
import { addStage, type CatalogueStack } from '../../infra/aws/stack.js';

const CDK_CONTEXT = (JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as { context: Record<string, unknown> }).context;

export interface Synthesized {
  app: App;
  stack: CatalogueStack;
  /** The edge stack (us-east-1), with `-c edge=true`. */
  edge?: EdgeStack;
  /** Root first, then each nested stack, then the edge stack if there is one. */
  stacks: Stack[];
  templates: Map<Stack, Template>;
  /** Every template's resources, with the stack they are in. */
  resources: { stack: Stack; logicalId: string; type: string; properties: Record<string, any> }[];
  dispose(): void;
}

/** Context with every optional part switched on: the sender, the edge and the region it needs. */
export const FULL = { stage: 'prod', mailFrom: 'noreply@example.org', frontendUrl: 'https://app.example.org', edge: 'true', region: 'eu-west-1' } as const;

/**
 * The cdk-nag rules acknowledged in every configuration (infra/aws/nag.ts); the CFR rules are
 * the pictures' distribution's (infra/aws/storage.ts).
 */
export const BASE_RULES = [
  'AwsSolutions-APIG4',
  'AwsSolutions-CFR1',
  'AwsSolutions-CFR2',
  'AwsSolutions-CFR3',
  'AwsSolutions-CFR4',
  'AwsSolutions-IAM5',
  'AwsSolutions-L1',
  'AwsSolutions-S1',
  'AwsSolutions-SMG4',
] as const;

export interface SynthOptions {
  context?: Record<string, unknown>;
  routes?: readonly RouteDecl[];
  jobs?: readonly JobDecl[];
  entry?: (route: RouteDecl) => string;
}

export function synth(options: SynthOptions = {}): Synthesized {
  const outdir = mkdtempSync(join(tmpdir(), 'cdk-test-'));
  const app = new App({
    outdir,
    // An empty list of stacks to bundle: asset bundling (esbuild) is skipped for every stack.
    context: { ...CDK_CONTEXT, 'aws:cdk:bundling-stacks': [], ...options.context },
  });
  let stack: CatalogueStack;
  let edge: EdgeStack | undefined;
  try {
    const config = stageConfig(app.node);
    ({ stack, edge } = addStage(app, config, { routes: options.routes, jobs: options.jobs, entry: options.entry }));
    app.synth();
  } catch (err) {
    rmSync(outdir, { recursive: true, force: true });
    throw err;
  }
  const stacks: Stack[] = [stack, ...stack.groups.values(), ...(edge ? [edge] : [])];
  const templates = new Map(stacks.map((s) => [s, Template.fromStack(s)]));
  const resources: Synthesized['resources'] = [];
  for (const [s, t] of templates) {
    for (const [logicalId, r] of Object.entries(t.toJSON().Resources as Record<string, { Type: string; Properties?: Record<string, any> }>)) {
      resources.push({ stack: s, logicalId, type: r.Type, properties: r.Properties ?? {} });
    }
  }
  return { app, stack, edge, stacks, templates, resources, dispose: () => rmSync(outdir, { recursive: true, force: true }) };
}

type Json = any;

export interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: Json;
}

export interface FunctionInfo {
  stack: Stack;
  logicalId: string;
  /** The `component` tag (route name, `authorizer`, …); undefined for CDK's own helper functions. */
  component: string | undefined;
  properties: Json;
  env: Record<string, Json>;
  /** Every statement of every policy of the function's role. */
  statements: Statement[];
  /** The policy documents of the function's role: its inline policies and the policies attached to it (each an inline policy on AWS). */
  policyDocuments: Json[];
}

export const asList = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** The CloudFormation logical id of a construct's resource, as written in its template. */
export function logicalIdOf(element: { node: { defaultChild?: unknown } } | object): string {
  const cfn = ('node' in element && (element as { node: { defaultChild?: unknown } }).node.defaultChild) || element;
  const stack = (cfn as { stack: Stack }).stack;
  return stack.resolve(stack.getLogicalId(cfn as never)) as string;
}

/**
 * A value as the root stack sees it: a nested stack's `{Ref: <parameter>}` is replaced by what
 * its parent passes for that parameter (references to root resources keep their root form).
 */
export function rootValue(s: Synthesized, stack: Stack, value: Json): Json {
  if (!stack.nested || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => rootValue(s, stack, v));
  const keys = Object.keys(value);
  if (keys.length === 1 && keys[0] === 'Ref') {
    const params = (s.templates.get(stack)!.toJSON().Parameters ?? {}) as Record<string, unknown>;
    if (value.Ref in params) {
      const resourceId = logicalIdOf(stack.nestedStackResource!);
      const parent = s.templates.get(s.stack)!.toJSON().Resources[resourceId];
      return parent.Properties.Parameters[value.Ref];
    }
    return value;
  }
  return Object.fromEntries(keys.map((k) => [k, rootValue(s, stack, value[k])]));
}

export function functionsOf(s: Synthesized): FunctionInfo[] {
  const out: FunctionInfo[] = [];
  for (const [stack, template] of s.templates) {
    const resources = template.toJSON().Resources as Record<string, { Type: string; Properties: Json }>;
    for (const [logicalId, r] of Object.entries(resources)) {
      if (r.Type !== 'AWS::Lambda::Function') continue;
      const props = r.Properties;
      const tags = asList<{ Key: string; Value: string }>(props.Tags);
      const roleId: string | undefined = props.Role?.['Fn::GetAtt']?.[0];
      const policyDocuments: Json[] = [];
      for (const [, other] of Object.entries(resources)) {
        if (other.Type === 'AWS::IAM::Role' && roleId && other === resources[roleId]) {
          for (const p of asList<Json>(other.Properties.Policies)) policyDocuments.push(p.PolicyDocument);
        }
        if (other.Type === 'AWS::IAM::Policy' && asList<Json>(other.Properties.Roles).some((ref) => ref?.Ref === roleId)) {
          policyDocuments.push(other.Properties.PolicyDocument);
        }
      }
      const statements = policyDocuments.flatMap((d) => asList<Statement>(d.Statement));
      out.push({
        stack,
        logicalId,
        component: tags.find((t) => t.Key === 'component')?.Value,
        properties: props,
        env: props.Environment?.Variables ?? {},
        statements,
        policyDocuments,
      });
    }
  }
  return out;
}

/** The actions of the statements, with the given prefix (e.g. `dynamodb:`). */
export function actionsOf(statements: Statement[], prefix: string): string[] {
  return [...new Set(statements.flatMap((st) => asList(st.Action)).filter((a) => a.startsWith(prefix)))].sort();
}

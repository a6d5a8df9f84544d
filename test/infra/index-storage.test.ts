/**
 * The index bucket on AWS (infra/aws/index-storage.ts, shared/storage/index-objects.ts): private
 * (public access blocked, TLS only, S3-managed encryption, owner enforced, not versioned, no
 * distribution, incomplete uploads aborted), kept on prod and emptied with the stack on dev.
 * A function granted index reads — a route that `uses: ['index-read']`, a job with `index:
 * 'read'` — has exactly s3:GetObject on `<bucket>/index/*`, and s3:ListBucket on the bucket so
 * that a missing key is a 404 (docs/decisions.md, "The index bucket" J3); the compactor (`index:
 * 'compact'`) also puts and deletes there. Each gets INDEX_BUCKET; no other function has anything
 * of the bucket. cdk-nag stays clean with such declarations (no route or job declares them yet:
 * this file adds them).
 */
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOBS, type JobDecl } from '../../functions/jobs/registry.js';
import { STREAM_CONSUMERS } from '../../functions/streams/registry.js';
import { ROUTES } from '../../functions/registry.js';
import { ENV } from '../../infra/aws/function.js';
import type { RouteDecl } from '../../shared/http/route.js';
import { asList, functionsOf, logicalIdOf, rootValue, synth, type FunctionInfo, type Statement, type Synthesized } from './synth.js';

/** A list route that reads the index (every title list does). */
const reader = ROUTES.find((r) => r.uses?.includes('index-read'))!;
const routes: RouteDecl[] = [...ROUTES];
const jobs: JobDecl[] = [
  ...JOBS,
  { name: 'index-compact-demo', entry: 'functions/jobs/cleanup.ts', schedule: 'rate(1 hour)', keys: {}, index: 'compact' },
  { name: 'index-read-demo', entry: 'functions/jobs/cleanup.ts', schedule: 'rate(1 hour)', keys: {}, index: 'read' },
];
/** Who is declared to use the index: the routes with `index-read`, the jobs and consumers with `index`. */
const DECLARED: Record<string, 'read' | 'compact'> = {
  ...Object.fromEntries(ROUTES.filter((r) => r.uses?.includes('index-read')).map((r) => [r.name, 'read' as const])),
  ...Object.fromEntries(jobs.filter((j) => j.index).map((j) => [`job.${j.name}`, j.index!])),
  ...Object.fromEntries(STREAM_CONSUMERS.filter((c) => c.index).map((c) => [`stream.${c.name}`, c.index!])),
};
const GRANTED: Record<string, string[]> = Object.fromEntries(
  Object.entries(DECLARED).map(([name, access]) => [name, access === 'read' ? ['s3:GetObject'] : ['s3:DeleteObject', 's3:GetObject', 's3:PutObject']]),
);

let dev: Synthesized;
let prod: Synthesized;
let fns: FunctionInfo[];

const bucketId = (s: Synthesized) => logicalIdOf(s.stack.index.bucket);
const bucketOf = (s: Synthesized) => s.resources.find((r) => r.logicalId === bucketId(s) && r.stack === s.stack)!;
const policyOf = (s: Synthesized) => s.resources.find((r) => r.type === 'AWS::S3::BucketPolicy' && JSON.stringify(r.properties.Bucket) === JSON.stringify({ Ref: bucketId(s) }))!;
const arn = () => ({ 'Fn::GetAtt': [bucketId(dev), 'Arn'] });
/** The statements of a function that name the index bucket (as the root stack sees them). */
const indexStatements = (f: FunctionInfo): Statement[] =>
  f.statements.map((st) => ({ ...st, Resource: rootValue(dev, f.stack, st.Resource) })).filter((st) => JSON.stringify(st.Resource).includes(`"${bucketId(dev)}"`));

beforeAll(() => {
  dev = synth({ context: { stage: 'dev' }, routes, jobs });
  prod = synth({ context: { stage: 'prod', allowedOrigins: 'https://app.example.org' } });
  fns = functionsOf(dev);
});
afterAll(() => {
  dev?.dispose();
  prod?.dispose();
});

describe('the bucket', () => {
  it('private: public access blocked, S3-managed encryption, owner enforced, not versioned; incomplete uploads aborted after a day', () => {
    for (const s of [dev, prod]) {
      const bucket = bucketOf(s).properties;
      expect(bucket.PublicAccessBlockConfiguration).toEqual({ BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true });
      expect(bucket.BucketEncryption).toEqual({ ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] });
      expect(bucket.OwnershipControls).toEqual({ Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] });
      expect(bucket.VersioningConfiguration).toBeUndefined();
      expect(bucket.WebsiteConfiguration).toBeUndefined();
      expect(bucket.LifecycleConfiguration).toEqual({ Rules: [{ Id: 'abort-incomplete-uploads', AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 }, Status: 'Enabled' }] });
    }
  });

  it('its policy refuses plain HTTP and allows no one (on dev: only CDK’s helper that empties it with the stack)', () => {
    const statements = (s: Synthesized) => asList<any>(policyOf(s).properties.PolicyDocument.Statement);
    for (const s of [dev, prod]) {
      const deny = statements(s).filter((st) => st.Effect === 'Deny');
      expect(deny).toHaveLength(1);
      expect(deny[0]).toMatchObject({ Action: 's3:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } });
    }
    expect(statements(prod).filter((st) => st.Effect === 'Allow')).toEqual([]);
    const allows = statements(dev).filter((st) => st.Effect === 'Allow');
    expect(allows.map((st) => st.Principal.AWS['Fn::GetAtt'][0])).toEqual([expect.stringMatching(/^CustomS3AutoDeleteObjectsCustomResourceProviderRole/)]);
  });

  it('no distribution serves it', () => {
    for (const d of dev.resources.filter((r) => r.type === 'AWS::CloudFront::Distribution')) expect(JSON.stringify(d.properties)).not.toContain(bucketId(dev));
  });

  it('prod keeps it; dev deletes it with the stack, emptied first', () => {
    const resource = (s: Synthesized) => s.templates.get(s.stack)!.toJSON().Resources[bucketId(s)];
    expect(resource(prod)).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    expect(resource(dev)).toMatchObject({ DeletionPolicy: 'Delete', UpdateReplacePolicy: 'Delete' });
    const autoDelete = dev.resources.filter((r) => r.type === 'Custom::S3AutoDeleteObjects').map((r) => r.properties.BucketName);
    expect(autoDelete).toContainEqual({ Ref: bucketId(dev) });
    expect(prod.resources.filter((r) => r.type === 'Custom::S3AutoDeleteObjects')).toEqual([]);
  });

  it('its name is an output', () => {
    const outputs = dev.templates.get(dev.stack)!.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(outputs.IndexBucket!.Value).toEqual({ Ref: bucketId(dev) });
  });
});

describe('who may read, write and delete', () => {
  it('a function granted index reads: exactly s3:GetObject on <bucket>/index/*, s3:ListBucket on the bucket, and INDEX_BUCKET', () => {
    for (const component of [reader.name, 'job.index-read-demo']) {
      const f = fns.find((x) => x.component === component)!;
      expect(indexStatements(f), component).toEqual([
        { Effect: 'Allow', Action: 's3:GetObject', Resource: { 'Fn::Join': ['', [arn(), '/index/*']] } },
        { Effect: 'Allow', Action: 's3:ListBucket', Resource: arn() },
      ]);
      // Nothing else of S3 at all (the pictures bucket neither).
      expect(f.statements.filter((st) => asList(st.Action).some((a) => a.startsWith('s3:'))), component).toHaveLength(2);
      expect(rootValue(dev, f.stack, f.env[ENV.indexBucket]), component).toEqual({ Ref: bucketId(dev) });
    }
  });

  it('the compactor (index: compact): s3:GetObject, s3:PutObject, s3:DeleteObject on <bucket>/index/*, s3:ListBucket on the bucket', () => {
    const f = fns.find((x) => x.component === 'job.index-compact-demo')!;
    expect(indexStatements(f)).toEqual([
      { Effect: 'Allow', Action: ['s3:DeleteObject', 's3:GetObject', 's3:PutObject'], Resource: { 'Fn::Join': ['', [arn(), '/index/*']] } },
      { Effect: 'Allow', Action: 's3:ListBucket', Resource: arn() },
    ]);
    expect(f.env[ENV.indexBucket]).toEqual({ Ref: bucketId(dev) });
  });

  it('no other function has any permission on the bucket, or its name', () => {
    const others = fns.filter((f) => f.component !== undefined && !(f.component in GRANTED));
    expect(others.length).toBeGreaterThan(100);
    for (const f of others) {
      expect(indexStatements(f), f.component).toEqual([]);
      expect(f.env[ENV.indexBucket], f.component).toBeUndefined();
    }
    // As declared (prod, without the demo jobs): the list functions and the jobs and consumers that read or compact the index.
    const naming = functionsOf(prod).filter((x) => x.component !== undefined && JSON.stringify(x.statements.map((st) => rootValue(prod, x.stack, st.Resource))).includes(`"${bucketId(prod)}"`));
    expect(naming.map((f) => f.component).sort()).toEqual(Object.keys(DECLARED).filter((n) => !n.includes('-demo')).sort());
    expect(naming.length).toBeGreaterThan(15);
  });

  it('cdk-nag: no unacknowledged finding with a reading route and both kinds of job declared', { timeout: 120_000 }, () => {
    const report = new AwsSolutionsChecks().validateScope(dev.app);
    expect(report.violations.map((v) => `${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`)).toEqual([]);
  });
});

/**
 * Uploaded pictures on AWS (infra/aws/storage.ts, API.md §4.9): the bucket stays private and is
 * read only by its own CloudFront distribution (Origin Access Control, HTTPS only, GET and HEAD),
 * whose URL is the pictures' base URL; only a function whose route declares `picture-storage`
 * may put objects, under `pictures/` only, and the cleanup job may delete them there and do
 * nothing else with the bucket; cdk-nag stays clean with such a route (the declared
 * `persons.create-picture`).
 */
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOBS } from '../../functions/jobs/registry.js';
import { ROUTES } from '../../functions/registry.js';
import { ENV } from '../../infra/aws/function.js';
import { CachePolicy, ResponseHeadersPolicy } from 'aws-cdk-lib/aws-cloudfront';
import { routeEntry, type RouteDecl } from '../../shared/http/route.js';
import { actionsOf, asList, functionsOf, logicalIdOf, rootValue, synth, type FunctionInfo, type Synthesized } from './synth.js';

const upload = ROUTES.find((r) => r.path === '/api/persons/{id}/create-picture/' && r.method === 'POST')!;
const routes: RouteDecl[] = [...ROUTES];
const entry = routeEntry;

let s: Synthesized;
let fns: FunctionInfo[];
let distribution: Record<string, any>;
const bucketArn = () => ({ 'Fn::GetAtt': [logicalIdOf(s.stack.pictures.bucket), 'Arn'] });
const domain = () => ({ 'Fn::GetAtt': [logicalIdOf(s.stack.pictures.distribution), 'DomainName'] });
/** A function's statements of S3 actions on the pictures bucket (the index bucket is test/infra/index-storage.test.ts's). */
const s3Statements = (f: FunctionInfo) =>
  f.statements.filter((st) => asList(st.Action).some((a) => a.startsWith('s3:')) && !JSON.stringify(rootValue(s, f.stack, st.Resource)).includes(`"${logicalIdOf(s.stack.index.bucket)}"`));

beforeAll(() => {
  s = synth({ context: { stage: 'prod', allowedOrigins: 'https://app.example.org' }, routes, entry });
  fns = functionsOf(s);
  distribution = s.resources.find((r) => r.logicalId === logicalIdOf(s.stack.pictures.distribution))!.properties.DistributionConfig;
});
afterAll(() => s?.dispose());

describe('the public read path', () => {
  it('a distribution of its own reads the bucket through Origin Access Control', () => {
    expect(distribution.Origins).toHaveLength(1);
    const [origin] = distribution.Origins;
    expect(origin.DomainName).toEqual({ 'Fn::GetAtt': [logicalIdOf(s.stack.pictures.bucket), 'RegionalDomainName'] });
    expect(origin.S3OriginConfig).toEqual({ OriginAccessIdentity: '' });
    const oac = s.resources.filter((r) => r.type === 'AWS::CloudFront::OriginAccessControl');
    expect(oac).toHaveLength(1);
    expect(origin.OriginAccessControlId).toEqual({ 'Fn::GetAtt': [oac[0]!.logicalId, 'Id'] });
    expect(oac[0]!.properties.OriginAccessControlConfig).toMatchObject({ OriginAccessControlOriginType: 's3', SigningBehavior: 'always', SigningProtocol: 'sigv4' });
  });

  it('read-only, HTTPS only, cached, with the security headers (nosniff); no web ACL', () => {
    const behavior = distribution.DefaultCacheBehavior;
    expect(behavior.ViewerProtocolPolicy).toBe('https-only');
    expect(behavior.AllowedMethods).toEqual(['GET', 'HEAD']);
    expect(behavior.CachePolicyId).toBe(CachePolicy.CACHING_OPTIMIZED_FOR_UNCOMPRESSED_OBJECTS.cachePolicyId);
    expect(behavior.ResponseHeadersPolicyId).toBe(ResponseHeadersPolicy.SECURITY_HEADERS.responseHeadersPolicyId);
    expect(distribution.CacheBehaviors).toBeUndefined();
    expect(distribution.WebACLId).toBeUndefined();
  });

  it('the bucket stays private: its policy lets only this distribution get objects, and refuses plain HTTP', () => {
    const policy = s.resources.find((r) => r.type === 'AWS::S3::BucketPolicy' && r.properties.Bucket?.Ref === logicalIdOf(s.stack.pictures.bucket))!.properties.PolicyDocument;
    const allows = asList<any>(policy.Statement).filter((st) => st.Effect === 'Allow');
    expect(allows).toEqual([
      {
        Effect: 'Allow',
        Principal: { Service: 'cloudfront.amazonaws.com' },
        Action: 's3:GetObject',
        Resource: { 'Fn::Join': ['', [bucketArn(), '/*']] },
        Condition: {
          StringEquals: {
            'AWS:SourceArn': { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':cloudfront::', { Ref: 'AWS::AccountId' }, ':distribution/', { Ref: logicalIdOf(s.stack.pictures.distribution) }]] },
          },
        },
      },
    ]);
    expect(JSON.stringify(policy)).toContain('aws:SecureTransport');
    const bucket = s.resources.find((r) => r.logicalId === logicalIdOf(s.stack.pictures.bucket))!.properties;
    expect(bucket.PublicAccessBlockConfiguration).toEqual({ BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true });
  });

  it('the pictures’ base URL is an output: the distribution’s https URL', () => {
    const outputs = s.templates.get(s.stack)!.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(outputs.PicturesBaseUrl!.Value).toEqual({ 'Fn::Join': ['', ['https://', domain()]] });
  });
});

describe('who may write and delete', () => {
  it('the route that declares picture-storage: s3:PutObject under pictures/ only, the bucket and the base URL', () => {
    const f = fns.find((x) => x.component === upload.name)!;
    const statements = s3Statements(f);
    expect(statements).toHaveLength(1);
    expect(actionsOf(statements, 's3:')).toEqual(['s3:PutObject']);
    expect(rootValue(s, f.stack, statements[0]!.Resource)).toEqual({ 'Fn::Join': ['', [bucketArn(), '/pictures/*']] });
    expect(rootValue(s, f.stack, f.env[ENV.picturesBucket])).toEqual({ Ref: logicalIdOf(s.stack.pictures.bucket) });
    expect(rootValue(s, f.stack, f.env[ENV.picturesBaseUrl])).toEqual({ 'Fn::Join': ['', ['https://', domain()]] });
  });

  it('the cleanup job: s3:DeleteObject under pictures/ only, and the bucket’s name', () => {
    const f = fns.find((x) => x.component === 'job.cleanup')!;
    const statements = s3Statements(f);
    expect(actionsOf(statements, 's3:')).toEqual(['s3:DeleteObject']);
    expect(statements.map((st) => st.Resource)).toEqual([{ 'Fn::Join': ['', [bucketArn(), '/pictures/*']] }]);
    expect(f.env[ENV.picturesBucket]).toEqual({ Ref: logicalIdOf(s.stack.pictures.bucket) });
    expect(f.env[ENV.picturesBaseUrl]).toBeUndefined();
    expect(JOBS.filter((j) => j.deletesFiles).map((j) => j.name)).toEqual(['cleanup']);
  });

  it('no other function has any permission on the bucket, or its settings', () => {
    for (const f of fns.filter((x) => x.component !== undefined && x.component !== upload.name && x.component !== 'job.cleanup')) {
      expect(s3Statements(f), f.component).toEqual([]);
      expect(f.env[ENV.picturesBucket], f.component).toBeUndefined();
      expect(f.env[ENV.picturesBaseUrl], f.component).toBeUndefined();
    }
  });

  it('cdk-nag: no unacknowledged finding with the upload route declared', { timeout: 120_000 }, () => {
    const report = new AwsSolutionsChecks().validateScope(s.app);
    expect(report.violations.map((v) => `${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`)).toEqual([]);
  });
});

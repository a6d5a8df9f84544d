/**
 * The edge (`-c edge=true`, infra/aws/edge.ts): the general rate limits of API.md §7.2 as AWS
 * WAF rate-based rules on a CloudFront distribution in front of the HTTP API. The web ACL lives
 * in the stage's edge stack in us-east-1; the distribution in the stage's stack, which reads the
 * web ACL's ARN across regions.
 */
import { CachePolicy, OriginRequestPolicy } from 'aws-cdk-lib/aws-cloudfront';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EDGE_LIMITS, EDGE_RETRY_AFTER } from '../../infra/api-config.js';
import { edgeCorsHeaders, edgeStackName, rateLimitedBody } from '../../infra/aws/edge.js';
import { ENV } from '../../infra/aws/function.js';
import { PROBLEMS } from '../../shared/http/problem.js';
import { asList, functionsOf, logicalIdOf, rootValue, synth, type Synthesized } from './synth.js';

const REGION = 'eu-west-1';
let s: Synthesized;
let acl: Record<string, any>;
let distribution: Record<string, any>;

beforeAll(() => {
  s = synth({
    context: { stage: 'prod', edge: 'true', region: REGION, allowedOrigins: 'https://app.example.org', mailFrom: 'no-reply@example.org', frontendUrl: 'https://app.example.org' },
  });
  acl = s.resources.find((r) => r.type === 'AWS::WAFv2::WebACL')!.properties;
  distribution = s.resources.find((r) => r.type === 'AWS::CloudFront::Distribution')!.properties.DistributionConfig;
});
afterAll(() => s?.dispose());

const rule = (name: string) => asList<any>(acl.Rules).find((r) => r.Name === name);
const hasAuthorization = {
  SizeConstraintStatement: {
    FieldToMatch: { SingleHeader: { Name: 'authorization' } },
    ComparisonOperator: 'GT',
    Size: 0,
    TextTransformations: [{ Priority: 0, Type: 'NONE' }],
  },
};

describe('stacks', () => {
  it('the web ACL is in `catalogue-api-<stage>-edge` in us-east-1; the distribution in the stage’s stack, which depends on it', () => {
    expect(s.edge!.stackName).toBe(edgeStackName('prod'));
    expect(s.edge!.stackName).toBe('catalogue-api-prod-edge');
    expect(s.edge!.region).toBe('us-east-1');
    expect(s.stack.region).toBe(REGION);
    expect(s.resources.filter((r) => r.type === 'AWS::WAFv2::WebACL').map((r) => r.stack)).toEqual([s.edge]);
    expect(s.resources.filter((r) => r.type === 'AWS::CloudFront::Distribution').map((r) => r.stack)).toEqual([s.stack]);
    expect(s.stack.dependencies).toContain(s.edge);
  });

  it('the web ACL’s ARN crosses regions as a weak reference (Fn::GetStackOutput): no custom resource, no SSM parameter', () => {
    const ref = distribution.WebACLId['Fn::GetStackOutput'];
    expect(ref).toMatchObject({ StackName: 'catalogue-api-prod-edge', Region: 'us-east-1' });
    const outputs = s.templates.get(s.edge!)!.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(outputs[ref.OutputName]!.Value).toEqual({ 'Fn::GetAtt': [logicalIdOf(s.edge!.webAcl), 'Arn'] });
    expect(s.resources.filter((r) => /^Custom::|SSM::Parameter/.test(r.type)).map((r) => r.type)).toEqual(['Custom::SigningKeys']);
    // Only CDK's own provider framework (for the signing keys) is a function the app does not declare.
    expect(functionsOf(s).filter((f) => f.component === undefined)).toHaveLength(1);
  });

  it('without a region (context or the CLI’s) the edge is refused', () => {
    vi.stubEnv('CDK_DEFAULT_REGION', '');
    try {
      expect(() => synth({ context: { edge: 'true' } })).toThrow(/region/);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});

describe('web ACL', () => {
  it('scope CLOUDFRONT, allows by default, metrics and sampled requests on the ACL and every rule', () => {
    expect(acl).toMatchObject({ Scope: 'CLOUDFRONT', DefaultAction: { Allow: {} }, Name: 'catalogue-api-prod' });
    for (const v of [acl.VisibilityConfig, ...asList<any>(acl.Rules).map((r) => r.VisibilityConfig)]) {
      expect(v).toMatchObject({ CloudWatchMetricsEnabled: true, SampledRequestsEnabled: true });
      expect(v.MetricName).toMatch(/^catalogue-api-prod-/);
    }
    expect(asList<any>(acl.Rules).map((r) => [r.Priority, r.Name])).toEqual([
      [0, 'anonymous-per-address'],
      [1, 'signed-in-per-token'],
      [2, 'every-request-per-address'],
    ]);
  });

  it('anonymous: requests without an Authorization header, per client address, 120 per minute', () => {
    expect(rule('anonymous-per-address').Statement).toEqual({
      RateBasedStatement: { AggregateKeyType: 'IP', Limit: 120, EvaluationWindowSec: 60, ScopeDownStatement: { NotStatement: { Statement: hasAuthorization } } },
    });
    expect(EDGE_LIMITS.anonymous).toBe(120);
  });

  it('signed in: requests with an Authorization header, per header value, 1,200 per minute (the trusted limit)', () => {
    expect(rule('signed-in-per-token').Statement).toEqual({
      RateBasedStatement: {
        AggregateKeyType: 'CUSTOM_KEYS',
        CustomKeys: [{ Header: { Name: 'authorization', TextTransformations: [{ Priority: 0, Type: 'NONE' }] } }],
        Limit: 1200,
        EvaluationWindowSec: 60,
        ScopeDownStatement: hasAuthorization,
      },
    });
    expect(EDGE_LIMITS.signedIn).toBe(1200);
  });

  it('every request per client address, 2,400 per minute: made-up headers do not escape both', () => {
    expect(rule('every-request-per-address').Statement).toEqual({ RateBasedStatement: { AggregateKeyType: 'IP', Limit: 2400, EvaluationWindowSec: 60 } });
  });

  it('a blocked request gets 429, the problem body, Retry-After: 60 and the CORS headers of the single allowed origin', () => {
    for (const r of asList<any>(acl.Rules)) {
      expect(r.Action).toEqual({
        Block: {
          CustomResponse: {
            ResponseCode: 429,
            CustomResponseBodyKey: 'rate-limited',
            ResponseHeaders: [
              { Name: 'Retry-After', Value: '60' },
              { Name: 'Access-Control-Allow-Origin', Value: 'https://app.example.org' },
              { Name: 'Access-Control-Expose-Headers', Value: 'Retry-After' },
              { Name: 'Vary', Value: 'Origin' },
            ],
          },
        },
      });
    }
    const body = acl.CustomResponseBodies['rate-limited'];
    expect(body.ContentType).toBe('APPLICATION_JSON');
    const problem = JSON.parse(body.Content as string) as Record<string, unknown>;
    expect(problem).toEqual(rateLimitedBody());
    expect(problem).toMatchObject({ type: 'urn:problem:rate-limited', title: PROBLEMS['rate-limited'].title, status: 429, retry_after: EDGE_RETRY_AFTER });
    expect(typeof problem.detail).toBe('string');
    // A fixed text: the edge knows neither the path nor a request id.
    expect(problem.instance).toBeUndefined();
    expect(problem.request_id).toBeUndefined();
    expect(EDGE_RETRY_AFTER).toBe(60);
  });

  it('CORS on the 429: `*` and a single origin can be named, a list cannot', () => {
    expect(edgeCorsHeaders('*')).toEqual([
      { name: 'Access-Control-Allow-Origin', value: '*' },
      { name: 'Access-Control-Expose-Headers', value: 'Retry-After' },
    ]);
    expect(edgeCorsHeaders('https://a.example.org, https://b.example.org')).toEqual([]);
    expect(edgeCorsHeaders('')).toEqual([]);
  });

  it('blocked requests are logged to aws-waf-logs-<service>-<stage> (30 days), nothing else', () => {
    const group = s.resources.find((r) => r.type === 'AWS::Logs::LogGroup' && r.stack === s.edge)!;
    expect(group.properties).toMatchObject({ LogGroupName: 'aws-waf-logs-catalogue-api-prod', RetentionInDays: 30 });
    const logging = s.resources.find((r) => r.type === 'AWS::WAFv2::LoggingConfiguration')!.properties;
    expect(logging.ResourceArn).toEqual({ 'Fn::GetAtt': [logicalIdOf(s.edge!.webAcl), 'Arn'] });
    // The log group's ARN without the `:*` of its Arn attribute.
    expect(JSON.stringify(logging.LogDestinationConfigs)).toContain(`{"Ref":"${group.logicalId}"}`);
    expect(JSON.stringify(logging.LogDestinationConfigs)).not.toContain(':*');
    expect(logging.LoggingFilter).toEqual({
      DefaultBehavior: 'DROP',
      Filters: [{ Behavior: 'KEEP', Requirement: 'MEETS_ANY', Conditions: [{ ActionCondition: { Action: 'BLOCK' } }] }],
    });
  });
});

describe('distribution', () => {
  it('origin: the HTTP API’s execute-api domain, HTTPS with TLS 1.2 only', () => {
    expect(distribution.Origins).toHaveLength(1);
    const [origin] = distribution.Origins;
    expect(origin.CustomOriginConfig).toMatchObject({ OriginProtocolPolicy: 'https-only', OriginSSLProtocols: ['TLSv1.2'] });
    expect(origin.DomainName).toEqual({ 'Fn::Join': ['', [{ Ref: logicalIdOf(s.stack.api) }, `.execute-api.${REGION}.`, { Ref: 'AWS::URLSuffix' }]] });
  });

  it('every method, nothing cached, every viewer header but Host (Authorization included) and every query string forwarded, HTTPS only', () => {
    const behavior = distribution.DefaultCacheBehavior;
    expect([...behavior.AllowedMethods].sort()).toEqual(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT']);
    // The managed policies CachingDisabled and AllViewerExceptHostHeader.
    expect(behavior.CachePolicyId).toBe(CachePolicy.CACHING_DISABLED.cachePolicyId);
    expect(behavior.CachePolicyId).toBe('4135ea2d-6df8-44a3-9df3-4b5a84be39ad');
    expect(behavior.OriginRequestPolicyId).toBe(OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER.originRequestPolicyId);
    expect(behavior.OriginRequestPolicyId).toBe('b689b0a8-53d0-40ab-baf2-68738e2966ac');
    expect(behavior.ViewerProtocolPolicy).toBe('https-only');
    expect(behavior.TargetOriginId).toBe(distribution.Origins[0].Id);
    expect(distribution.CacheBehaviors).toBeUndefined();
    expect(distribution.Enabled).toBe(true);
  });

  it('{base} is the distribution’s URL: PUBLIC_BASE_URL of every API function and the stage’s outputs', () => {
    const url = { 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [logicalIdOf(s.stack.edge!.distribution), 'DomainName'] }]] };
    const fns = functionsOf(s).filter((f) => f.component !== undefined && f.component !== 'signing-keys');
    expect(fns.length).toBeGreaterThan(20);
    for (const f of fns) expect(rootValue(s, f.stack, f.env[ENV.baseUrl]), f.component).toEqual(url);
    const outputs = s.templates.get(s.stack)!.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(outputs.PublicBaseUrl!.Value).toEqual(url);
    expect(outputs.EdgeUrl!.Value).toEqual(url);
  });

  it('an explicit publicBaseUrl (a custom domain) is kept', () => {
    const custom = synth({ context: { stage: 'prod', edge: 'true', region: REGION, publicBaseUrl: 'https://api.example.org' } });
    try {
      for (const f of functionsOf(custom).filter((x) => x.component !== undefined && x.component !== 'signing-keys')) {
        expect(f.env[ENV.baseUrl], f.component).toBe('https://api.example.org');
      }
      expect(custom.resources.filter((r) => r.type === 'AWS::CloudFront::Distribution')).toHaveLength(1);
    } finally {
      custom.dispose();
    }
  });
});

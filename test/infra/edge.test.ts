/**
 * The edge (`-c edge=true`, infra/aws/edge.ts): the general rate limits of API.md §7.2 as AWS
 * WAF rate-based rules on a CloudFront distribution in front of the HTTP API. The web ACL lives
 * in the stage's edge stack in us-east-1; the distribution in the stage's stack, which reads the
 * web ACL's ARN across regions. The distribution proves itself with a secret origin header that
 * every function serving the API checks (shared/http/edge.ts): the viewer address is trusted
 * only then, and the execute-api endpoint serves nothing around the web ACL.
 */
import { CachePolicy, OriginRequestPolicy } from 'aws-cdk-lib/aws-cloudfront';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import * as z from 'zod/mini';
import { ROUTES } from '../../functions/registry.js';
import { EDGE_LIMITS, EDGE_RETRY_AFTER, SECRET_NAMES } from '../../infra/api-config.js';
import { anonymousRequests, edgeCorsHeaders, edgeStackName, pathsPattern, rateLimitedBody, WAF_REGEX_MAX } from '../../infra/aws/edge.js';
import { ENV } from '../../infra/aws/function.js';
import { ORIGIN_HEADER, ORIGIN_SECRET_ENV, VIEWER_ADDRESS_HEADER } from '../../shared/http/edge.js';
import { PROBLEMS } from '../../shared/problem.js';
import { defineRoute, type Method } from '../../shared/http/route.js';
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
  // The edge's distribution (the pictures have one of their own, test/infra/pictures.test.ts).
  distribution = s.resources.find((r) => r.logicalId === logicalIdOf(s.stack.edge!.distribution))!.properties.DistributionConfig;
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
    expect(s.resources.filter((r) => r.type === 'AWS::CloudFront::Distribution').map((r) => r.stack)).toEqual([s.stack, s.stack]);
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

  it('anonymous: requests without an Authorization header, or to a credential route whatever its headers, per client address, 120 per minute', () => {
    const { RateBasedStatement: rate } = rule('anonymous-per-address').Statement;
    expect(rate).toMatchObject({ AggregateKeyType: 'IP', Limit: 120, EvaluationWindowSec: 60 });
    expect(Object.keys(rate).sort()).toEqual(['AggregateKeyType', 'EvaluationWindowSec', 'Limit', 'ScopeDownStatement']);
    const [withoutToken, ...credentialRoutes] = asList<any>(rate.ScopeDownStatement.OrStatement.Statements);
    expect(withoutToken).toEqual({ NotStatement: { Statement: hasAuthorization } });
    // The credential-route branches: method and path only, no condition on any header.
    expect(credentialRoutes.map((b) => b.AndStatement.Statements.map((st: Record<string, unknown>) => Object.keys(st)[0]))).toEqual([
      ['ByteMatchStatement', 'RegexMatchStatement'],
      ['ByteMatchStatement', 'RegexMatchStatement'],
    ]);
    expect(JSON.stringify(credentialRoutes)).not.toMatch(/authorization|SingleHeader|Headers/i);
    expect(EDGE_LIMITS.anonymous).toBe(120);
  });

  it('the credential routes are those the declarations give access `credentials`, by method and URL-decoded path', () => {
    const credentialRoutes = asList<any>(rule('anonymous-per-address').Statement.RateBasedStatement.ScopeDownStatement.OrStatement.Statements).slice(1);
    const byMethod = (m: Method) => ROUTES.filter((r) => r.access === 'credentials' && r.method === m).map((r) => r.path);
    expect(credentialRoutes.map((b) => b.AndStatement.Statements)).toEqual(
      (['GET', 'POST'] as const).map((m) => [
        { ByteMatchStatement: { FieldToMatch: { Method: {} }, PositionalConstraint: 'EXACTLY', SearchString: m.toLowerCase(), TextTransformations: [{ Priority: 0, Type: 'LOWERCASE' }] } },
        { RegexMatchStatement: { FieldToMatch: { UriPath: {} }, RegexString: pathsPattern(byMethod(m)), TextTransformations: [{ Priority: 0, Type: 'URL_DECODE' }] } },
      ]),
    );
    expect(byMethod('POST')).toEqual(
      expect.arrayContaining(['/api/tokens/jwt/create/', '/api/tokens/jwt/refresh/', '/api/tokens/jwt/verify/', '/api/users/', '/api/users/activation/', '/api/users/reset_password/', '/api/socials/o/{provider}/']),
    );
    expect(byMethod('GET')).toEqual(expect.arrayContaining(['/api/socials/o/{provider}/', '/.well-known/jwks.json']));
  });

  it('which requests the rules count: a made-up Authorization header no longer lifts the anonymous limit from a credential route', () => {
    const anonymous = rule('anonymous-per-address').Statement.RateBasedStatement.ScopeDownStatement;
    const signedIn = rule('signed-in-per-token').Statement.RateBasedStatement.ScopeDownStatement;
    const sample = (path: string) => path.replace(/\{[a-z_]+\}/g, 'google-oauth2');
    const junk = { authorization: 'Bearer made-up' };
    for (const route of ROUTES) {
      const request = { method: route.method, path: sample(route.path), headers: junk };
      expect(matches(anonymous, request), `${route.method} ${route.path}`).toBe(route.access === 'credentials');
      expect(matches(signedIn, request), `${route.method} ${route.path}`).toBe(true);
      expect(matches(anonymous, { ...request, headers: {} }), `${route.method} ${route.path}`).toBe(true);
      expect(matches(signedIn, { ...request, headers: {} }), `${route.method} ${route.path}`).toBe(false);
    }
    // Another method on a credential path (the administrators' list), a percent-encoded path, a lower-case method.
    expect(matches(anonymous, { method: 'GET', path: '/api/users/', headers: junk })).toBe(false);
    expect(matches(anonymous, { method: 'POST', path: '/api/tokens/jwt/%63reate/', headers: junk })).toBe(true);
    expect(matches(anonymous, { method: 'post', path: '/api/users/', headers: junk })).toBe(true);
    expect(matches(anonymous, { method: 'POST', path: '/api/tokens/jwt/create/extra/', headers: junk })).toBe(false);
    expect(matches(anonymous, { method: 'GET', path: '/api/socials/o/a/b/', headers: junk })).toBe(false);
  });

  it('derived, not listed: a new credential route is counted, and without any the scope is the missing header alone', () => {
    const route = (method: Method, path: string, access: 'credentials' | 'member') =>
      defineRoute({ name: `test.${method}`, method, path, access, summary: 'x', keys: {}, response: { status: 200 }, body: method === 'GET' ? undefined : z.object({}) });
    const scope = anonymousRequests([route('PUT', '/api/things/{id}/claim/', 'credentials'), route('GET', '/api/things/', 'member')]);
    const req = (method: string, path: string) => ({ method, path, headers: { authorization: 'x' } });
    expect(matches(scope, req('PUT', '/api/things/7/claim/'))).toBe(true);
    expect(matches(scope, req('GET', '/api/things/'))).toBe(false);
    expect(anonymousRequests([route('GET', '/api/things/', 'member')])).toEqual({ notStatement: { statement: expect.anything() } });
  });

  it('a path pattern longer than AWS WAF takes is refused at synthesis', () => {
    expect(pathsPattern(['/.well-known/jwks.json', '/api/x/{id}/'])).toBe('^(?:/\\.well-known/jwks\\.json|/api/x/[^/]+/)$');
    expect(() => pathsPattern([`/${'a'.repeat(WAF_REGEX_MAX)}/`])).toThrow(/AWS WAF takes 512/);
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

  it('every origin request carries the origin secret in x-origin-verify, resolved at deployment (never in the template)', () => {
    const secret = s.stack.edge!.originSecret;
    const secretId = logicalIdOf(secret);
    expect(distribution.Origins[0].OriginCustomHeaders).toEqual([
      { HeaderName: ORIGIN_HEADER, HeaderValue: { 'Fn::Join': ['', ['{{resolve:secretsmanager:', { Ref: secretId }, ':SecretString:::}}']] } },
    ]);
    expect(ORIGIN_HEADER).toBe('x-origin-verify');
    // Generated by Secrets Manager at the first deployment; no value in any template.
    const resource = s.resources.find((r) => r.logicalId === secretId && r.stack === s.stack)!;
    expect(resource.properties).toMatchObject({ Name: `prod/catalogue/${SECRET_NAMES.origin}`, GenerateSecretString: { PasswordLength: 64, ExcludePunctuation: true } });
    expect(resource.properties.SecretString).toBeUndefined();
  });

  it('the viewer address reaches the functions: the managed AllViewerExceptHostHeader policy adds CloudFront’s headers, CloudFront-Viewer-Address among them', () => {
    // AWS documents the managed policy as forwarding every viewer header but Host plus the
    // CloudFront headers (an origin request policy of our own cannot do both: "all viewer
    // headers but Host" leaves no place for CloudFront headers, and adding them means "all
    // viewer headers", Host included, which API Gateway refuses). docs/decisions.md 58.
    expect(distribution.DefaultCacheBehavior.OriginRequestPolicyId).toBe(OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER.originRequestPolicyId);
    expect(VIEWER_ADDRESS_HEADER).toBe('cloudfront-viewer-address');
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
      // The edge's and the pictures'.
      expect(custom.resources.filter((r) => r.type === 'AWS::CloudFront::Distribution')).toHaveLength(2);
    } finally {
      custom.dispose();
    }
  });
});

describe('the direct endpoint is closed', () => {
  const apiComponents = new Set([...ROUTES.map((r) => r.name), 'authorizer', 'catch-all']);

  it('every function API Gateway invokes (each route’s, the authorizer, the catch-all) checks the origin header: ORIGIN_SECRET_ID and the permission to read it', () => {
    const secretRef = { Ref: logicalIdOf(s.stack.edge!.originSecret) };
    const fns = functionsOf(s).filter((f) => f.component !== undefined && apiComponents.has(f.component));
    expect(new Set(fns.map((f) => f.component))).toEqual(apiComponents);
    for (const f of fns) {
      expect(rootValue(s, f.stack, f.env[ORIGIN_SECRET_ENV]), f.component).toEqual(secretRef);
      const reads = f.statements.filter((st) => asList(st.Action).includes('secretsmanager:GetSecretValue')).flatMap((st) => asList(rootValue(s, f.stack, st.Resource)));
      expect(reads, f.component).toContainEqual(secretRef);
    }
    expect(ENV.originSecret).toBe(ORIGIN_SECRET_ENV);
  });

  it('functions that serve no request (jobs, stream consumers, the key bootstrap) are not given it', () => {
    const others = functionsOf(s).filter((f) => !apiComponents.has(f.component ?? ''));
    expect(others.length).toBeGreaterThanOrEqual(4);
    for (const f of others) {
      expect(f.env[ORIGIN_SECRET_ENV], f.component).toBeUndefined();
      expect(JSON.stringify(f.statements), f.component).not.toContain(logicalIdOf(s.stack.edge!.originSecret));
    }
  });
});

// ---- a small evaluator of the AWS WAF statements used here (template form) -------------------

interface WafRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
}

function transform(value: string, transformations: { Type: string }[]): string {
  return transformations.reduce((v, t) => (t.Type === 'URL_DECODE' ? decodeURIComponent(v) : t.Type === 'LOWERCASE' ? v.toLowerCase() : v), value);
}

function field(request: WafRequest, fieldToMatch: Record<string, any>): string | undefined {
  if ('Method' in fieldToMatch) return request.method;
  if ('UriPath' in fieldToMatch) return request.path;
  if ('SingleHeader' in fieldToMatch) return request.headers[String(fieldToMatch.SingleHeader.Name).toLowerCase()];
  throw new Error(`field ${JSON.stringify(fieldToMatch)} not evaluated here`);
}

/** Whether a request matches a statement (OR, AND, NOT, size constraint, byte match EXACTLY, regex match). */
function matches(statement: Record<string, any>, request: WafRequest): boolean {
  const st = pascal(statement);
  if (st.OrStatement) return asList<any>(st.OrStatement.Statements).some((x) => matches(x, request));
  if (st.AndStatement) return asList<any>(st.AndStatement.Statements).every((x) => matches(x, request));
  if (st.NotStatement) return !matches(st.NotStatement.Statement, request);
  const [kind, spec] = Object.entries(st)[0] as [string, any];
  const raw = field(request, spec.FieldToMatch);
  if (kind === 'SizeConstraintStatement') {
    if (spec.ComparisonOperator !== 'GT') throw new Error('only GT is evaluated here');
    return raw !== undefined && transform(raw, spec.TextTransformations).length > spec.Size;
  }
  if (raw === undefined) return false;
  const value = transform(raw, spec.TextTransformations);
  if (kind === 'ByteMatchStatement' && spec.PositionalConstraint === 'EXACTLY') return value === spec.SearchString;
  if (kind === 'RegexMatchStatement') return new RegExp(spec.RegexString).test(value);
  throw new Error(`${kind} not evaluated here`);
}

/** The CloudFormation (PascalCase) form of a statement built in camelCase (anonymousRequests); the template's form is kept. */
function pascal(value: any): any {
  if (Array.isArray(value)) return value.map(pascal);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k === 'Name' ? k : k[0]!.toUpperCase() + k.slice(1), pascal(v)]));
}

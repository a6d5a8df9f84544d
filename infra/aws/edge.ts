/**
 * The edge (`-c edge=true`): the general rate limits of API.md §7.2 (anonymous, member,
 * trusted) as AWS WAF rate-based rules, in front of the HTTP API. AWS WAF cannot be associated
 * with an HTTP API, so a CloudFront distribution fronts it and carries the web ACL.
 *
 * Two stacks, one reference between them, in one direction:
 * - `catalogue-api-<stage>-edge` (EdgeStack), always in us-east-1, holds the web ACL (a web ACL
 *   of scope CLOUDFRONT exists only there) and its log group;
 * - the stage's stack holds the distribution (ApiEdge): CloudFront is global and may be declared
 *   in a stack of any region. Its origin is the HTTP API of the same stack, and its domain is the
 *   `{base}` (PUBLIC_BASE_URL) of every function of that stack; only the web ACL's ARN crosses
 *   regions. Putting the distribution into the edge stack would need values both ways (the API's
 *   domain to the edge, the distribution's domain back), a cycle between the two stacks.
 *
 * The cross-region reference is weak (`Fn::GetStackOutput`, read when the stage's stack is
 * deployed): no custom resource, and the stage's stack depends on the edge stack, so a deploy of
 * the stage deploys the edge first.
 */
import { ArnFormat, CfnOutput, CrossStackReferences, ReferenceStrength, RemovalPolicy, Stack, Tags, type StackProps } from 'aws-cdk-lib';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  OriginSslPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { CfnLoggingConfiguration, CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { PROBLEMS } from '../../shared/http/problem.js';
import { EDGE_LIMITS, EDGE_RETRY_AFTER } from '../api-config.js';
import { keepsData, SERVICE, type StageConfig } from './config.js';
import { acknowledge, REASONS } from './nag.js';

/** A web ACL of scope CLOUDFRONT can only be created in this region. */
export const EDGE_REGION = 'us-east-1';

/** `<service>-<stage>-edge`: the stack name of a stage's edge. */
export const edgeStackName = (stage: string) => `${SERVICE}-${stage}-edge`;

/** The key of the 429 body in the web ACL's custom response bodies. */
export const RATE_LIMITED_BODY = 'rate-limited';

/**
 * The body of the edge's 429, in the problem format of API.md §1.4. The edge cannot fill
 * `instance` and `request_id` (a custom response is a fixed text), and AWS WAF sends it as
 * `application/json`: custom bodies are plain text, HTML or JSON, and `Content-Type` cannot be
 * set as a custom header (docs/decisions.md).
 */
export function rateLimitedBody(): Record<string, unknown> {
  const { status, title } = PROBLEMS['rate-limited'];
  return {
    type: 'urn:problem:rate-limited',
    title,
    status,
    detail: `Too many requests from this client; try again in ${EDGE_RETRY_AFTER} seconds.`,
    retry_after: EDGE_RETRY_AFTER,
  };
}

/**
 * The CORS headers the edge's 429 can carry: a fixed text cannot reflect the request's Origin as
 * the functions do, so only `*` (any origin) or a single allowed origin can be named.
 */
export function edgeCorsHeaders(allowedOrigins: string): { name: string; value: string }[] {
  const origins = allowedOrigins.split(',').map((o) => o.trim()).filter(Boolean);
  if (origins.length !== 1) return [];
  return [
    { name: 'Access-Control-Allow-Origin', value: origins[0]! },
    { name: 'Access-Control-Expose-Headers', value: 'Retry-After' },
    ...(origins[0] === '*' ? [] : [{ name: 'Vary', value: 'Origin' }]),
  ];
}

const AUTHORIZATION = 'authorization';
const noTransformation = [{ priority: 0, type: 'NONE' }];
/** Requests that carry an Authorization header (with any value but the empty one). */
const hasAuthorization: CfnWebACL.StatementProperty = {
  sizeConstraintStatement: { fieldToMatch: { singleHeader: { Name: AUTHORIZATION } }, comparisonOperator: 'GT', size: 0, textTransformations: noTransformation },
};

export interface EdgeStackProps extends StackProps {
  config: StageConfig;
}

/** The web ACL of a stage's edge (us-east-1). */
export class EdgeStack extends Stack {
  readonly webAcl: CfnWebACL;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: EdgeStackProps) {
    const { config } = props;
    super(scope, id, { description: `Anime & manga catalogue API (${config.stage}): edge rate rules`, ...props, env: { ...props.env, region: EDGE_REGION } });
    Tags.of(this).add('service', SERVICE);
    Tags.of(this).add('stage', config.stage);
    const name = `${SERVICE}-${config.stage}`;
    const visibility = (metric: string): CfnWebACL.VisibilityConfigProperty => ({
      cloudWatchMetricsEnabled: true,
      sampledRequestsEnabled: true,
      metricName: `${name}-${metric}`,
    });
    const block: CfnWebACL.RuleActionProperty = {
      block: {
        customResponse: {
          responseCode: PROBLEMS['rate-limited'].status,
          customResponseBodyKey: RATE_LIMITED_BODY,
          responseHeaders: [{ name: 'Retry-After', value: String(EDGE_RETRY_AFTER) }, ...edgeCorsHeaders(config.allowedOrigins)],
        },
      },
    };
    const window = EDGE_LIMITS.window;

    this.webAcl = new CfnWebACL(this, 'RateRules', {
      name,
      description: 'General rate limits of the API: anonymous per address, signed-in per token, every request per address',
      scope: 'CLOUDFRONT',
      defaultAction: { allow: {} },
      visibilityConfig: visibility('all'),
      customResponseBodies: { [RATE_LIMITED_BODY]: { contentType: 'APPLICATION_JSON', content: JSON.stringify(rateLimitedBody()) } },
      rules: [
        {
          // API.md §7.2 anonymous: every request without a token, per client address.
          name: 'anonymous-per-address',
          priority: 0,
          action: block,
          visibilityConfig: visibility('anonymous'),
          statement: {
            rateBasedStatement: {
              aggregateKeyType: 'IP',
              limit: EDGE_LIMITS.anonymous,
              evaluationWindowSec: window,
              scopeDownStatement: { notStatement: { statement: hasAuthorization } },
            },
          },
        },
        {
          // API.md §7.2 trusted (and member, which the edge cannot tell apart): per token.
          name: 'signed-in-per-token',
          priority: 1,
          action: block,
          visibilityConfig: visibility('signed-in'),
          statement: {
            rateBasedStatement: {
              aggregateKeyType: 'CUSTOM_KEYS',
              customKeys: [{ header: { name: AUTHORIZATION, textTransformations: noTransformation } }],
              limit: EDGE_LIMITS.signedIn,
              evaluationWindowSec: window,
              scopeDownStatement: hasAuthorization,
            },
          },
        },
        {
          // A made-up Authorization header on every request escapes both rules above; this caps it.
          name: 'every-request-per-address',
          priority: 2,
          action: block,
          visibilityConfig: visibility('per-address'),
          statement: { rateBasedStatement: { aggregateKeyType: 'IP', limit: EDGE_LIMITS.perAddress, evaluationWindowSec: window } },
        },
      ],
    });

    // Read by the stage's stack with Fn::GetStackOutput (whatever the app's default strength).
    CrossStackReferences.of(this.webAcl).produce(ReferenceStrength.WEAK);

    // Blocked requests only (allowed ones are in the HTTP API's access log). The name prefix
    // `aws-waf-logs-` is required by AWS WAF.
    this.logGroup = new LogGroup(this, 'BlockedRequests', {
      logGroupName: `aws-waf-logs-${name}`,
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: keepsData(config) ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    new CfnLoggingConfiguration(this, 'RateRulesLogging', {
      resourceArn: this.webAcl.attrArn,
      // AWS WAF takes the log group's ARN without the `:*` of its Arn attribute.
      logDestinationConfigs: [this.formatArn({ service: 'logs', resource: 'log-group', resourceName: this.logGroup.logGroupName, arnFormat: ArnFormat.COLON_RESOURCE_NAME })],
      loggingFilter: {
        DefaultBehavior: 'DROP',
        Filters: [{ Behavior: 'KEEP', Requirement: 'MEETS_ANY', Conditions: [{ ActionCondition: { Action: 'BLOCK' } }] }],
      },
    });

    new CfnOutput(this, 'WebAclArn', { description: 'The web ACL of the edge (AWS WAF, scope CLOUDFRONT)', value: this.webAcl.attrArn });
  }
}

export interface ApiEdgeProps {
  /** The HTTP API's domain (`<api id>.execute-api.<region>.amazonaws.com`). */
  apiDomain: string;
  /** The ARN of the web ACL (EdgeStack.webAcl). */
  webAclArn: string;
  stage: string;
}

/**
 * The CloudFront distribution in front of the HTTP API: every method, nothing cached (the
 * managed CachingDisabled policy; the functions' Cache-Control is for clients), every viewer
 * header but Host (API Gateway routes by its own host name), every query string and cookie
 * forwarded (the managed AllViewerExceptHostHeader policy, which with caching disabled also
 * forwards Authorization), HTTPS only on both sides.
 */
export class ApiEdge extends Construct {
  readonly distribution: Distribution;

  constructor(scope: Construct, id: string, props: ApiEdgeProps) {
    super(scope, id);
    this.distribution = new Distribution(this, 'Distribution', {
      comment: `${SERVICE}-${props.stage}: rate rules (AWS WAF) in front of the HTTP API`,
      defaultBehavior: {
        origin: new HttpOrigin(props.apiDomain, { protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY, originSslProtocols: [OriginSslPolicy.TLS_V1_2] }),
        viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
        allowedMethods: AllowedMethods.ALLOW_ALL,
        cachePolicy: CachePolicy.CACHING_DISABLED,
        originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
        compress: false,
      },
      webAclId: props.webAclArn,
      httpVersion: HttpVersion.HTTP2_AND_3,
    });
    acknowledge(this.distribution, 'AwsSolutions-CFR1', REASONS.edgeGeoRestriction);
    acknowledge(this.distribution, 'AwsSolutions-CFR3', REASONS.edgeAccessLogs);
    acknowledge(this.distribution, 'AwsSolutions-CFR4', REASONS.edgeDefaultCertificate);
  }

  /** `https://<distribution domain>`. */
  get url(): string {
    return `https://${this.distribution.distributionDomainName}`;
  }
}

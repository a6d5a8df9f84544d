/**
 * The service's stack, one per stage (DESIGN.md §2, §7). The root stack holds what everything
 * shares: the HTTP API and its stage, the Lambda authorizer, the catch-all function (default
 * route), the table, the secrets, the pictures bucket and its distribution, the index bucket, the SES identity, the scheduled jobs,
 * the stream consumers and, with `-c edge=true`, the CloudFront distribution in front of the API
 * (its web ACL is in the stage's edge stack in us-east-1, edge.ts).
 * Each route group is a nested stack (route-group.ts) so that no template comes near
 * CloudFormation's 500-resource limit as the routes grow to 151 and beyond.
 *
 * Every route, its method, path and access rule come from the declarations
 * (functions/registry.ts) through Router.gatewayRoutes(); none is written here.
 */
import { CfnOutput, Duration, RemovalPolicy, Stack, Tags, type StackProps } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  AuthorizerPayloadVersion,
  CfnIntegration,
  CfnRoute,
  type CfnStage,
  HttpApi,
  HttpAuthorizer,
  HttpAuthorizerType,
  HttpStage,
  LogGroupLogDestination,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { JOBS, type JobDecl } from '../../functions/jobs/registry.js';
import { STREAM_CONSUMERS, type StreamConsumerDecl } from '../../functions/streams/registry.js';
import { AUTHORIZER_ENTRY, CATCH_ALL_ENTRY, ROUTES } from '../../functions/registry.js';
import { Router } from '../../shared/http/router.js';
import { gatewayPath, routeEntry, type RouteDecl } from '../../shared/http/route.js';
import { AUTHORIZER, routeThrottle, THROTTLE } from '../api-config.js';
import { functionMemory } from '../function-memory.js';
import { AUTHORIZER_KEYS } from './access.js';
import { keepsData, SERVICE, type StageConfig } from './config.js';
import { ApiEdge, EdgeStack, edgeStackName, originAccess } from './edge.js';
import { MailIdentity } from './email.js';
import { CatalogueFunction, ENV, secretReadStatement, tableStatements } from './function.js';
import { ScheduledJobs } from './jobs.js';
import { StreamConsumers } from './streams.js';
import { acknowledge, REASONS } from './nag.js';
import { pascal, RouteGroupStack, type GatewayRoute } from './route-group.js';
import { CatalogueSecrets } from './secrets.js';
import { IndexStorage } from './index-storage.js';
import { PictureStorage } from './storage.js';
import { CatalogueTable } from './table.js';

export interface CatalogueStackProps extends StackProps {
  config: StageConfig;
  /** The declared routes (default: functions/registry.ts ROUTES). */
  routes?: readonly RouteDecl[];
  /** The scheduled jobs (default: functions/jobs/registry.ts JOBS). */
  jobs?: readonly JobDecl[];
  /** The stream consumers (default: functions/streams/registry.ts STREAM_CONSUMERS). */
  streams?: readonly StreamConsumerDecl[];
  /**
   * The entry module of a route's function (default: routeEntry, `functions/<group>/<op>.ts`).
   * Only tests that synthesize declarations without handler modules set it.
   */
  entry?: (route: RouteDecl) => string;
  /** The stage's edge stack (`-c edge=true`): a CloudFront distribution with its web ACL fronts the API. */
  edge?: EdgeStack;
}

/** `<service>-<stage>`: the stack name of a stage. */
export const stackName = (stage: string) => `${SERVICE}-${stage}`;

/** The access log line: one JSON object per request (HTTP API $context variables). */
const ACCESS_LOG_FORMAT = AccessLogFormat.custom(
  JSON.stringify({
    requestId: '$context.requestId',
    time: '$context.requestTime',
    ip: '$context.identity.sourceIp',
    method: '$context.httpMethod',
    path: '$context.path',
    routeKey: '$context.routeKey',
    status: '$context.status',
    protocol: '$context.protocol',
    responseLength: '$context.responseLength',
    responseLatency: '$context.responseLatency',
    integrationLatency: '$context.integrationLatency',
    integrationError: '$context.integrationErrorMessage',
    authorizerError: '$context.authorizer.error',
    userAgent: '$context.identity.userAgent',
  }),
);

export class CatalogueStack extends Stack {
  readonly api: HttpApi;
  readonly stage: HttpStage;
  readonly authorizer: HttpAuthorizer;
  readonly authorizerFunction: CatalogueFunction;
  readonly catchAll: CatalogueFunction;
  readonly table: CatalogueTable;
  readonly secrets: CatalogueSecrets;
  readonly pictures: PictureStorage;
  /** The in-memory index's objects (index-storage.ts). */
  readonly index: IndexStorage;
  readonly jobs: ScheduledJobs;
  readonly streams: StreamConsumers;
  /** The sender of account e-mails (only with `-c mailFrom=…`). */
  readonly mail?: MailIdentity;
  /** The CloudFront distribution in front of the API (only with `-c edge=true`). */
  readonly edge?: ApiEdge;
  /** The stricter throttling of single routes, by route key (`POST /api/tokens/jwt/create/`). */
  readonly routeThrottles: Record<string, { ThrottlingRateLimit: number; ThrottlingBurstLimit: number }> = {};
  /** The nested stack of each route group, by group name. */
  readonly groups = new Map<string, RouteGroupStack>();

  constructor(scope: Construct, id: string, props: CatalogueStackProps) {
    super(scope, id, { description: `Anime & manga catalogue API (${props.config.stage})`, crossRegionReferences: props.edge !== undefined, ...props });
    const { config } = props;
    const keep = keepsData(config);
    const logRemovalPolicy = keep ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
    Tags.of(this).add('service', SERVICE);
    Tags.of(this).add('stage', config.stage);

    this.table = new CatalogueTable(this, 'Data', { keepData: keep });
    this.secrets = new CatalogueSecrets(this, 'Secrets', { stage: config.stage, logRemovalPolicy });
    this.pictures = new PictureStorage(this, 'Pictures', { keepData: keep, stage: config.stage });
    this.index = new IndexStorage(this, 'Index', { keepData: keep });
    // E-mail: only with a sender configured (`-c mailFrom=… -c frontendUrl=…`): an identity needs
    // a verified address or domain. Without one, the functions that send (the mailer and the
    // outbox job) are not created; e-mails stay queued in the outbox until a sender exists.
    if (config.mailFrom) this.mail = new MailIdentity(this, 'Mail', { mailFrom: config.mailFrom, frontendUrl: config.frontendUrl!, tokenKey: this.secrets.emailToken });

    // The HTTP API. No API Gateway CORS configuration on purpose: CORS headers, including the
    // OPTIONS preflights, are answered by the functions (preflights by the catch-all function),
    // so they follow the contract path by path (API.md §1.1: allowed methods of the path,
    // 204, Vary: Origin) and behave the same locally and on AWS.
    this.api = new HttpApi(this, 'Api', {
      apiName: stackName(config.stage),
      description: `Anime & manga catalogue API (${config.stage})`,
      createDefaultStage: false,
    });
    const accessLogs = new LogGroup(this, 'AccessLogs', { retention: RetentionDays.ONE_MONTH, removalPolicy: logRemovalPolicy });
    this.stage = new HttpStage(this, 'Stage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      // The general rate limits of API.md §7.2 are enforced at the edge.
      throttle: { rateLimit: THROTTLE.rateLimit, burstLimit: THROTTLE.burstLimit },
      accessLogSettings: { destination: new LogGroupLogDestination(accessLogs), format: ACCESS_LOG_FORMAT },
    });

    // The edge: CloudFront with the web ACL of the stage's edge stack (edge.ts); its URL is `{base}`.
    if (props.edge) {
      this.edge = new ApiEdge(this, 'Edge', {
        apiDomain: `${this.api.apiId}.execute-api.${this.region}.${this.urlSuffix}`,
        webAclArn: props.edge.webAcl.attrArn,
        stage: config.stage,
      });
    }
    const baseUrl = config.publicBaseUrl ?? this.edge?.url ?? this.api.apiEndpoint;
    const common = {
      [ENV.baseUrl]: baseUrl,
      [ENV.corsOrigins]: config.allowedOrigins,
    };
    // With the edge, every function API Gateway invokes checks the origin header first
    // (shared/http/edge.ts): the execute-api endpoint serves nothing around the web ACL.
    const origin = originAccess(this.edge?.originSecret);
    const invokedByApi = new ServicePrincipal('apigateway.amazonaws.com');

    // The Lambda authorizer: verifies the token and the user's auth state (one GetItem), never denies
    // (functions/authorizer/handler.ts); settings from infra/api-config.ts.
    this.authorizerFunction = new CatalogueFunction(this, 'AuthorizerFunction', {
      entry: AUTHORIZER_ENTRY,
      component: 'authorizer',
      description: 'Lambda authorizer of the protected routes',
      memorySize: functionMemory('authorizer', 'read'),
      logRemovalPolicy,
      environment: {
        [ENV.baseUrl]: baseUrl,
        [ENV.table]: this.table.table.tableName,
        [ENV.jwtPublic]: this.secrets.jwtPublic.secretArn,
        ...origin.environment,
      },
      statements: [...tableStatements(this.table.table, AUTHORIZER_KEYS), secretReadStatement(this.secrets.jwtPublic), ...origin.statements],
    });
    this.authorizer = new HttpAuthorizer(this, 'Authorizer', {
      httpApi: this.api,
      authorizerName: 'caller',
      type: HttpAuthorizerType.LAMBDA,
      authorizerUri: `arn:${this.partition}:apigateway:${this.region}:lambda:path/2015-03-31/functions/${this.authorizerFunction.function.functionArn}/invocations`,
      enableSimpleResponses: true,
      payloadFormatVersion: AuthorizerPayloadVersion.VERSION_2_0,
      identitySource: AUTHORIZER.identitySource,
      resultsCacheTtl: Duration.seconds(AUTHORIZER.resultsCacheTtlSeconds),
    });
    this.authorizerFunction.function.addPermission('ApiInvoke', {
      principal: invokedByApi,
      sourceArn: this.formatArn({ service: 'execute-api', resource: this.api.apiId, resourceName: `authorizers/${this.authorizer.authorizerId}` }),
    });

    // The catch-all function: the $default route and the extra routes that keep literal paths
    // from being read as ids. It reads no data and no secret (but the edge's origin secret).
    this.catchAll = new CatalogueFunction(this, 'CatchAllFunction', {
      entry: CATCH_ALL_ENTRY,
      component: 'catch-all',
      description: 'Default route: 404, 405, 308 and CORS preflights',
      memorySize: functionMemory('catch-all', 'read'),
      logRemovalPolicy,
      environment: { ...common, ...origin.environment },
      statements: origin.statements,
    });
    const catchAllIntegration = new CfnIntegration(this, 'CatchAllIntegration', {
      apiId: this.api.apiId,
      integrationType: 'AWS_PROXY',
      integrationUri: this.catchAll.function.functionArn,
      payloadFormatVersion: '2.0',
    });
    const defaultRoute = new CfnRoute(this, 'DefaultRoute', {
      apiId: this.api.apiId,
      routeKey: '$default',
      target: `integrations/${catchAllIntegration.ref}`,
      authorizationType: 'NONE',
    });
    acknowledge(defaultRoute, 'AwsSolutions-APIG4', REASONS.catchAllRoute);
    this.catchAll.function.addPermission('ApiInvoke', {
      principal: invokedByApi,
      sourceArn: this.formatArn({ service: 'execute-api', resource: this.api.apiId, resourceName: '*' }),
    });

    // One nested stack per route group.
    const routes = props.routes ?? ROUTES;
    for (const [group, entries] of groupRoutes(routes)) {
      const nested = new RouteGroupStack(this, `${pascal(group)}Routes`, {
        group,
        routes: entries,
        entry: props.entry ?? routeEntry,
        shared: {
          apiId: this.api.apiId,
          authorizerId: this.authorizer.authorizerId,
          catchAllIntegrationId: catchAllIntegration.ref,
          table: this.table.table,
          secrets: this.secrets,
          originSecret: this.edge?.originSecret,
          socialProviders: config.socialProviders,
          pictures: this.pictures,
          index: this.index,
          environment: config.rateLimits === undefined ? common : { ...common, [ENV.rateLimits]: config.rateLimits },
          logRemovalPolicy,
        },
      });
      // Functions that verify tokens must not serve before the signing keys exist.
      nested.node.addDependency(this.secrets.signingKeys);
      this.groups.set(group, nested);
      // Stricter throttling of the routes anyone may call with credentials (api-config.ts). A
      // stage's route settings may only name routes that exist: the stage waits for the group.
      let throttled = false;
      for (const entry of entries) {
        const throttle = entry.route && routeThrottle(entry.route);
        if (!throttle) continue;
        this.routeThrottles[`${entry.method} ${entry.path}`] = { ThrottlingRateLimit: throttle.rateLimit, ThrottlingBurstLimit: throttle.burstLimit };
        throttled = true;
      }
      if (throttled) this.stage.node.addDependency(nested);
    }
    if (Object.keys(this.routeThrottles).length > 0) (this.stage.node.defaultChild as CfnStage).routeSettings = this.routeThrottles;

    this.jobs = new ScheduledJobs(this, 'Jobs', {
      jobs: props.jobs ?? JOBS,
      table: this.table.table,
      environment: { [ENV.baseUrl]: baseUrl },
      logRemovalPolicy,
      mail: this.mail,
      pictures: this.pictures,
      index: this.index,
    });
    this.streams = new StreamConsumers(this, 'Streams', {
      consumers: props.streams ?? STREAM_CONSUMERS,
      table: this.table.table,
      environment: { [ENV.baseUrl]: baseUrl },
      logRemovalPolicy,
      mail: this.mail,
      index: this.index,
    });

    new CfnOutput(this, 'ApiUrl', {
      description: this.edge ? 'Stage URL (the execute-api endpoint; it refuses every request that does not come through the edge)' : 'Stage URL (the execute-api endpoint)',
      value: this.stage.url,
    });
    new CfnOutput(this, 'PublicBaseUrl', { description: '{base} of the API (PUBLIC_BASE_URL)', value: baseUrl });
    if (this.edge) new CfnOutput(this, 'EdgeUrl', { description: 'The CloudFront distribution in front of the API (AWS WAF rate rules)', value: this.edge.url });
    new CfnOutput(this, 'TableName', { value: this.table.table.tableName });
    new CfnOutput(this, 'PicturesBucket', { value: this.pictures.bucket.bucketName });
    new CfnOutput(this, 'PicturesBaseUrl', { description: 'Public base URL of uploaded pictures (PICTURES_BASE_URL): the pictures distribution', value: this.pictures.baseUrl });
    new CfnOutput(this, 'IndexBucket', { description: 'The in-memory index’s snapshots (INDEX_BUCKET)', value: this.index.bucket.bucketName });
  }
}

/**
 * The gateway routes by group: a declared route's group is the `<group>` of its name; an extra
 * catch-all route belongs to the group that declares its path.
 */
export function groupRoutes(routes: readonly RouteDecl[]): Map<string, GatewayRoute[]> {
  const groupOfPath = new Map<string, string>();
  for (const route of routes) groupOfPath.set(gatewayPath(route.path), groupOf(route));
  const groups = new Map<string, GatewayRoute[]>();
  for (const entry of new Router(routes).gatewayRoutes()) {
    const group = entry.route ? groupOf(entry.route) : groupOfPath.get(entry.path);
    if (!group) throw new Error(`no group declares ${entry.path}`);
    let list = groups.get(group);
    if (!list) groups.set(group, (list = []));
    list.push(entry);
  }
  return groups;
}

export const groupOf = (route: Pick<RouteDecl, 'name'>) => route.name.split('.')[0]!;

/** Options of addStage beyond the stage's settings (tests synthesize other declarations). */
export type StageOptions = Pick<CatalogueStackProps, 'routes' | 'jobs' | 'streams' | 'entry'>;

/**
 * The stacks of one stage: `catalogue-api-<stage>`, and with `edge` first its edge stack
 * `catalogue-api-<stage>-edge` in us-east-1 (edge.ts). The edge's reference between regions
 * needs the stage's region at synthesis: context `region`, else the CLI's (CDK_DEFAULT_REGION).
 * Without the edge the stage's stack stays environment-agnostic unless `region` is given.
 */
export function addStage(app: Construct, config: StageConfig, options: StageOptions = {}): { stack: CatalogueStack; edge?: EdgeStack } {
  const region = config.region ?? (config.edge ? process.env.CDK_DEFAULT_REGION : undefined);
  if (config.edge && !region) throw new Error('edge=true needs the region of the stage: set -c region=… (or run the CDK CLI with a region configured)');
  // The account stays the CLI's (both stacks in the same one); only the regions are fixed.
  const edge = config.edge ? new EdgeStack(app, edgeStackName(config.stage), { config, routes: options.routes }) : undefined;
  const stack = new CatalogueStack(app, stackName(config.stage), { config, env: region ? { region } : undefined, edge, ...options });
  return { stack, edge };
}

/**
 * The routes of one resource group (`<group>` of `<group>.<operation>`) in their own nested
 * stack: per declared route its function (with role and log group), its Lambda integration, its
 * route and the permission for API Gateway to invoke it; plus the group's extra routes that go
 * to the catch-all function (shared/http/router.ts gatewayRoutes). Everything shared (API,
 * authorizer, catch-all integration, table, secrets) lives once in the root stack and is only
 * referenced here, so each nested stack stays far below the 500-resource limit however many
 * groups there are.
 */
import { CfnParameter, Duration, NestedStack, Stack, type NestedStackProps, type RemovalPolicy } from 'aws-cdk-lib';
import { CfnIntegration, CfnRoute } from 'aws-cdk-lib/aws-apigatewayv2';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { needsAuthorizer, ROUTE_TIMEOUT_SECONDS, type Method, type RouteDecl } from '../../shared/http/route.js';
import { routeGrants, routeKeys, type SecretKey } from './access.js';
import { functionMemory } from '../function-memory.js';
import { originAccess } from './edge.js';
import { CatalogueFunction, ENV, secretReadStatement, tableStatements } from './function.js';
import { acknowledge, REASONS } from './nag.js';
import { acknowledgeIndexObjects, INDEX_BUCKET_ARN_PARAMETER, indexStatements, type IndexStorage } from './index-storage.js';
import { acknowledgePictureObjects, pictureObjectsStatement, PICTURES_BUCKET_ARN_PARAMETER, type PictureStorage } from './storage.js';

/** One API Gateway route of the group: a declared route, or (route null) one for the catch-all. */
export interface GatewayRoute {
  method: Method;
  path: string;
  route: RouteDecl | null;
}

/** What the routes of every group share, all of it owned by the root stack. */
export interface RouteGroupShared {
  apiId: string;
  authorizerId: string;
  catchAllIntegrationId: string;
  table: ITable;
  secrets: Readonly<Record<SecretKey, ISecret>>;
  /** With the edge: the origin secret every function checks requests against (edge.ts originAccess). */
  originSecret?: ISecret;
  /** SOCIAL_PROVIDERS of the social sign-in functions (config.ts `socialProviders`); undefined: none. */
  socialProviders?: string;
  /** The pictures bucket and its distribution (storage.ts), for routes that use `picture-storage`. */
  pictures: PictureStorage;
  /** The index bucket (index-storage.ts), for routes that use `index-read`. */
  index: IndexStorage;
  /** Variables of every API function (base URL, CORS, logging). */
  environment: Record<string, string>;
  logRemovalPolicy: RemovalPolicy;
}

export interface RouteGroupStackProps extends NestedStackProps {
  group: string;
  routes: readonly GatewayRoute[];
  /** The entry module of a route's function (routeEntry). */
  entry: (route: RouteDecl) => string;
  shared: RouteGroupShared;
}

/** `list`, `reset_password_confirm` → construct ids `List`, `ResetPasswordConfirm`. */
export const pascal = (s: string) => s.replace(/(^|[^A-Za-z0-9])([A-Za-z0-9])/g, (_m, _sep, c: string) => c.toUpperCase());

export class RouteGroupStack extends NestedStack {
  readonly functions = new Map<string, CatalogueFunction>();
  readonly routes: CfnRoute[] = [];

  constructor(scope: Construct, id: string, props: RouteGroupStackProps) {
    super(scope, id, { description: `Routes of /${props.group}`, ...props });
    const { shared } = props;
    for (const entry of props.routes) {
      const key = `${entry.method} ${entry.path}`;
      if (entry.route === null) {
        const route = new CfnRoute(this, `${pascal(entry.method.toLowerCase())}${pascal(entry.path)}CatchAll`, {
          apiId: shared.apiId,
          routeKey: key,
          target: `integrations/${shared.catchAllIntegrationId}`,
          authorizationType: 'NONE',
        });
        acknowledge(route, 'AwsSolutions-APIG4', REASONS.catchAllRoute);
        this.routes.push(route);
        continue;
      }
      const decl = entry.route;
      const op = pascal(decl.name.split('.')[1] ?? decl.name);
      const fn = new CatalogueFunction(this, op, {
        entry: props.entry(decl),
        component: decl.name,
        description: key,
        memorySize: functionMemory(decl.name, entry.method === 'GET' ? 'read' : 'write'),
        // An Idempotency-Key's claim outlives it (shared/http/idempotency.ts LEASE_MS).
        timeout: Duration.seconds(ROUTE_TIMEOUT_SECONDS),
        logRemovalPolicy: shared.logRemovalPolicy,
        ...routeAccess(decl, shared, {
          pictures: () => this.bucketArn(PICTURES_BUCKET_ARN_PARAMETER, 'The pictures bucket (ARN)', shared.pictures.bucket.bucketArn),
          index: () => this.bucketArn(INDEX_BUCKET_ARN_PARAMETER, 'The index bucket (ARN)', shared.index.bucket.bucketArn),
        }),
      });
      const storage = new Set(routeGrants(decl).flatMap((g) => ('storage' in g ? [g.storage] : [])));
      if (storage.has('pictures')) acknowledgePictureObjects(fn.role, PICTURES_BUCKET_ARN_PARAMETER);
      if (storage.has('index')) acknowledgeIndexObjects(fn.role, INDEX_BUCKET_ARN_PARAMETER);

      const integration = new CfnIntegration(this, `${op}Integration`, {
        apiId: shared.apiId,
        integrationType: 'AWS_PROXY',
        integrationUri: fn.function.functionArn,
        payloadFormatVersion: '2.0',
      });
      const authorized = needsAuthorizer(decl);
      const route = new CfnRoute(this, `${op}Route`, {
        apiId: shared.apiId,
        routeKey: key,
        target: `integrations/${integration.ref}`,
        authorizationType: authorized ? 'CUSTOM' : 'NONE',
        authorizerId: authorized ? shared.authorizerId : undefined,
      });
      if (!authorized) acknowledge(route, 'AwsSolutions-APIG4', decl.access === 'public' ? REASONS.publicRoute : REASONS.credentialsRoute);
      fn.function.addPermission('ApiInvoke', {
        principal: new ServicePrincipal('apigateway.amazonaws.com'),
        sourceArn: Stack.of(this).formatArn({ service: 'execute-api', resource: shared.apiId, resourceName: `*/${entry.method}${entry.path}` }),
      });
      this.functions.set(decl.name, fn);
      this.routes.push(route);
    }
  }

  /**
   * A bucket's ARN as this stack's parameter `name` (created for the first route that uses the
   * bucket): a name of our own, so the acknowledgement of the storage statement can name it.
   */
  private bucketArn(name: string, description: string, arn: string): string {
    const existing = this.node.tryFindChild(name) as CfnParameter | undefined;
    if (existing) return existing.valueAsString;
    const parameter = new CfnParameter(this, name, { type: 'String', description });
    parameter.overrideLogicalId(name);
    this.setParameter(name, arn);
    return parameter.valueAsString;
  }
}

/** The variables and permissions of a route's function (access.ts decides, this spells them out). */
function routeAccess(route: RouteDecl, shared: RouteGroupShared, bucketArn: Readonly<Record<'pictures' | 'index', () => string>>) {
  const origin = originAccess(shared.originSecret);
  const environment: Record<string, string> = { ...shared.environment, ...origin.environment, [ENV.table]: shared.table.tableName };
  const statements = [...tableStatements(shared.table, routeKeys(route)), ...origin.statements];
  for (const grant of routeGrants(route)) {
    if ('setting' in grant) {
      environment[grant.env] = shared[grant.setting] ?? '';
      continue;
    }
    if ('storage' in grant && grant.storage === 'pictures') {
      environment[grant.env] = shared.pictures.bucket.bucketName;
      environment[ENV.picturesBaseUrl] = shared.pictures.baseUrl;
      statements.push(pictureObjectsStatement('s3:PutObject', bucketArn.pictures()));
      continue;
    }
    if ('storage' in grant) {
      environment[grant.env] = shared.index.bucket.bucketName;
      statements.push(...indexStatements('read', bucketArn.index()));
      continue;
    }
    const secret = shared.secrets[grant.secret];
    environment[grant.env] = secret.secretArn;
    statements.push(secretReadStatement(secret));
  }
  return { environment, statements };
}

/**
 * The CDK app against the declarations (DESIGN.md §1, §5–§7): one function per declared route,
 * the authorizer on exactly the protected routes, least-privilege roles, the runtime, the table
 * and the secrets. Synthesized once per stage with bundling skipped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOBS } from '../../functions/jobs/registry.js';
import { STREAM_CONSUMERS } from '../../functions/streams/registry.js';
import { ROUTES } from '../../functions/registry.js';
import { AUTHORIZER, ROUTE_THROTTLE, ROUTE_THROTTLE_BY_POLICY, routeThrottle, THROTTLE } from '../../infra/api-config.js';
import { CAPABILITY_GRANTS, capabilitiesOf, grantStatements, routeKeys } from '../../infra/aws/access.js';
import { FAILURE_RETENTION, MAX_RECORD_AGE } from '../../infra/aws/streams.js';
import { ENV } from '../../infra/aws/function.js';
import { FUNCTION_MEMORY, functionMemory } from '../../infra/function-memory.js';
import { functionEnvironment } from '../../infra/local/runtime.js';
import { TABLE } from '../../shared/db/table.js';
import { POLICIES, routePolicies } from '../../shared/http/rate-limits.js';
import { Router } from '../../shared/http/router.js';
import { IDEMPOTENCY_KEYS } from '../../shared/db/idempotency.js';
import { LEASE_MS } from '../../shared/http/idempotency.js';
import { gatewayPath, needsAuthorizer, ROUTE_TIMEOUT_SECONDS } from '../../shared/http/route.js';
import { actionsOf, asList, functionsOf, logicalIdOf, rootValue, synth, type FunctionInfo, type Synthesized } from './synth.js';

let dev: Synthesized;
let fns: FunctionInfo[];
const gateway = new Router(ROUTES).gatewayRoutes();

const routeNames = new Set(ROUTES.map((r) => r.name));
/** The functions of declared routes (jobs and stream consumers are `job.<name>`, `stream.<name>`). */
const routeFunctions = (list: FunctionInfo[]) => list.filter((f) => f.component !== undefined && routeNames.has(f.component));
const routeOf = (f: FunctionInfo) => ROUTES.find((r) => r.name === f.component)!;
const byComponent = (c: string) => {
  const found = fns.filter((f) => f.component === c);
  expect(found, c).toHaveLength(1);
  return found[0]!;
};
const resourcesOf = (s: Synthesized, type: string) => s.resources.filter((r) => r.type === type);
const tableArn = (s: Synthesized) => ({ 'Fn::GetAtt': [logicalIdOf(s.stack.table.table), 'Arn'] });
const secretRef = (s: Synthesized, secret: 'jwtPublic' | 'jwtPrivate' | 'cursor') => ({ Ref: logicalIdOf(s.stack.secrets[secret]) });

beforeAll(() => {
  dev = synth({ context: { stage: 'dev' } });
  fns = functionsOf(dev);
});
afterAll(() => dev?.dispose());

describe('functions', () => {
  it('one function per declared route, plus the authorizer, the catch-all, the key bootstrap and the jobs that send no e-mail', () => {
    const components = fns.map((f) => f.component).filter((c) => c !== undefined);
    expect(components.filter((c) => routeNames.has(c)).sort()).toEqual(ROUTES.map((r) => r.name).sort());
    // Without a sender (no mailFrom): no job or stream consumer that sends e-mail.
    const others = [
      'authorizer',
      'catch-all',
      'signing-keys',
      ...JOBS.filter((j) => !j.sendsMail).map((j) => `job.${j.name}`),
      ...STREAM_CONSUMERS.filter((c) => !c.sendsMail).map((c) => `stream.${c.name}`),
    ];
    expect(components.filter((c) => !routeNames.has(c)).sort()).toEqual(others.sort());
    expect(new Set(components).size).toBe(components.length);
  });

  it('only CDK’s own deployment helpers are functions the app does not declare', () => {
    const helpers = fns.filter((f) => f.component === undefined).map((f) => JSON.stringify(f.properties.Description ?? f.logicalId));
    expect(helpers).toHaveLength(2);
    expect(helpers.some((d) => d.startsWith('"AWS CDK resource provider framework'))).toBe(true);
    expect(helpers.some((d) => d.includes('auto-deleting objects'))).toBe(true);
  });

  it('every declared function: Node.js 22, arm64, its memory (an API function\'s from infra/function-memory.json, a job\'s own, else 1024 MB), a timeout, its own log group, ESM bundle entry', () => {
    const routeKind = new Map(ROUTES.map((r) => [r.name, r.method === 'GET' ? ('read' as const) : ('write' as const)]));
    const memoryOf = (c: string) =>
      routeKind.has(c) ? functionMemory(c, routeKind.get(c)!) : c === 'authorizer' || c === 'catch-all' ? functionMemory(c, 'read') : (JOBS.find((j) => `job.${j.name}` === c)?.memoryMB ?? 1024);
    for (const f of fns.filter((x) => x.component !== undefined)) {
      expect(f.properties.Runtime, f.component).toBe('nodejs22.x');
      expect(f.properties.Architectures, f.component).toEqual(['arm64']);
      expect(f.properties.MemorySize, f.component).toBe(memoryOf(f.component!));
      expect(f.properties.Timeout, f.component).toBeGreaterThanOrEqual(10);
      expect(f.properties.Handler, f.component).toBe('index.handler');
      expect(f.properties.LoggingConfig?.LogGroup?.Ref, f.component).toBeDefined();
      expect(f.env.NODE_OPTIONS).toBe('--enable-source-maps');
    }
  });

  it('infra/function-memory.json names only functions that exist, with settings Lambda accepts', () => {
    const names = new Set([...routeNames, 'authorizer', 'catch-all']);
    for (const [name, mb] of Object.entries(FUNCTION_MEMORY.functions)) {
      expect(names.has(name), `${name}: no such API function (a stale entry: run the cost section with --save-memory again)`).toBe(true);
      expect(Number.isInteger(mb) && mb >= 128 && mb <= 10_240, name).toBe(true);
    }
    for (const mb of Object.values(FUNCTION_MEMORY.default)) expect(Number.isInteger(mb) && mb >= 128 && mb <= 10_240).toBe(true);
  });

  it('the log groups have a retention', () => {
    for (const r of resourcesOf(dev, 'AWS::Logs::LogGroup')) expect(r.properties.RetentionInDays, r.logicalId).toBe(30);
  });

  it('functions read only the variables the shared code knows, and the local runtime sets the same ones', () => {
    const local = Object.keys(functionEnvironment({ env: {} }, 'http://localhost:3000', 'catalogue')).sort();
    // The origin secret exists only with the edge, never locally (test/infra/edge.test.ts).
    expect(Object.values(ENV).filter((name) => name !== ENV.originSecret).sort()).toEqual(local);
    const allowed = new Set([...Object.values(ENV), 'POWERTOOLS_SERVICE_NAME', 'NODE_OPTIONS']);
    for (const f of fns.filter((x) => x.component !== undefined)) {
      expect(Object.keys(f.env).filter((k) => !allowed.has(k)), f.component).toEqual([]);
    }
  });
});

describe('routes and the authorizer', () => {
  const routeResources = () =>
    resourcesOf(dev, 'AWS::ApiGatewayV2::Route').map((r) => ({ ...r, properties: rootValue(dev, r.stack, r.properties) as Record<string, any> }));

  it('exactly the gateway routes of the declarations exist, plus $default', () => {
    const keys = routeResources().map((r) => r.properties.RouteKey as string);
    expect(keys.sort()).toEqual([...gateway.map((g) => `${g.method} ${g.path}`), '$default'].sort());
  });

  it('the authorizer is attached to exactly the routes that need it', () => {
    const authorizer = { Ref: logicalIdOf(dev.stack.authorizer) };
    const withAuthorizer = routeResources()
      .filter((r) => r.properties.AuthorizationType === 'CUSTOM')
      .map((r) => {
        expect(r.properties.AuthorizerId).toEqual(authorizer);
        return r.properties.RouteKey as string;
      });
    const expected = gateway.filter((g) => g.route && needsAuthorizer(g.route)).map((g) => `${g.method} ${g.path}`);
    expect(withAuthorizer.sort()).toEqual(expected.sort());
    expect(expected.length).toBeGreaterThan(0);
    for (const r of routeResources().filter((x) => x.properties.AuthorizationType !== 'CUSTOM')) {
      expect(r.properties.AuthorizationType).toBe('NONE');
      expect(r.properties.AuthorizerId).toBeUndefined();
    }
  });

  it('the authorizer: one, in the root stack, simple responses, payload 2.0, identity source and TTL from api-config', () => {
    const authorizers = resourcesOf(dev, 'AWS::ApiGatewayV2::Authorizer');
    expect(authorizers).toHaveLength(1);
    expect(authorizers[0]!.stack).toBe(dev.stack);
    expect(authorizers[0]!.properties).toMatchObject({
      AuthorizerType: 'REQUEST',
      EnableSimpleResponses: true,
      AuthorizerPayloadFormatVersion: '2.0',
      IdentitySource: AUTHORIZER.identitySource,
      AuthorizerResultTtlInSeconds: AUTHORIZER.resultsCacheTtlSeconds,
    });
    expect(JSON.stringify(authorizers[0]!.properties.AuthorizerUri)).toContain(logicalIdOf(dev.stack.authorizerFunction.function));
  });

  it('each route reaches its own function; $default and the extra routes reach the catch-all', () => {
    const integrations = new Map<string, { stack: unknown; uri: unknown }>();
    for (const r of resourcesOf(dev, 'AWS::ApiGatewayV2::Integration')) {
      expect(r.properties).toMatchObject({ IntegrationType: 'AWS_PROXY', PayloadFormatVersion: '2.0' });
      integrations.set(`${r.stack.node.path}/${r.logicalId}`, { stack: r.stack, uri: r.properties.IntegrationUri });
    }
    const catchAll = logicalIdOf(dev.stack.catchAll.function);
    for (const r of resourcesOf(dev, 'AWS::ApiGatewayV2::Route')) {
      const key = r.properties.RouteKey as string;
      const target = JSON.stringify(rootValue(dev, r.stack, r.properties.Target));
      const declared = gateway.find((g) => `${g.method} ${g.path}` === key);
      if (key === '$default' || declared?.route === null) {
        expect(target, key).toContain(logicalIdOf(dev.stack.node.findChild('CatchAllIntegration') as never));
        continue;
      }
      const integrationId = (r.properties.Target['Fn::Join'][1] as { Ref: string }[])[1]!.Ref;
      const integration = integrations.get(`${r.stack.node.path}/${integrationId}`)!;
      const fnId = (integration.uri as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0];
      const fn = fns.find((f) => f.stack === r.stack && f.logicalId === fnId)!;
      expect(fn.component, key).toBe(declared!.route!.name);
    }
    expect(fns.find((f) => f.component === 'catch-all')!.logicalId).toBe(catchAll);
  });

  it('API Gateway may invoke each route function for its own route only', () => {
    for (const f of routeFunctions(fns)) {
      const route = routeOf(f);
      const perms = resourcesOf(dev, 'AWS::Lambda::Permission').filter(
        (p) => p.stack === f.stack && (p.properties.FunctionName as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0] === f.logicalId,
      );
      expect(perms, f.component).toHaveLength(1);
      expect(perms[0]!.properties.Principal).toBe('apigateway.amazonaws.com');
      const arn = JSON.stringify(perms[0]!.properties.SourceArn);
      expect(arn).toContain(`/*/${route.method}${gatewayPath(route.path)}"`);
    }
  });

  it('HTTP API: no gateway CORS (the functions answer it), throttling and JSON access logs on the stage', () => {
    const [api] = resourcesOf(dev, 'AWS::ApiGatewayV2::Api');
    expect(api!.properties.ProtocolType).toBe('HTTP');
    expect(api!.properties.CorsConfiguration).toBeUndefined();
    const [stage] = resourcesOf(dev, 'AWS::ApiGatewayV2::Stage');
    expect(stage!.properties).toMatchObject({
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: THROTTLE.rateLimit, ThrottlingBurstLimit: THROTTLE.burstLimit },
    });
    const format = JSON.parse(stage!.properties.AccessLogSettings.Format as string) as Record<string, string>;
    expect(format.requestId).toBe('$context.requestId');
    expect(format.status).toBe('$context.status');
    dev.templates.get(dev.stack)!.hasOutput('ApiUrl', {});
  });

  it('stricter throttling on exactly the routes whose policy counts per client address or e-mail (sign-in, token, registration, mail-request, confirm, social)', () => {
    const perClient = Object.entries(POLICIES)
      .filter(([, limits]) => limits.every((l) => l.dimension !== 'user'))
      .map(([name]) => name)
      .sort();
    expect(perClient).toEqual(['confirm', 'mail-request', 'registration', 'sign-in', 'social', 'token']);
    const expected = Object.fromEntries(
      gateway
        .filter((g) => g.route && routePolicies(g.route).some((d) => perClient.includes(d.policy)))
        .map((g) => {
          const t = ROUTE_THROTTLE_BY_POLICY[routePolicies(g.route!)[0]!.policy] ?? ROUTE_THROTTLE;
          return [`${g.method} ${g.path}`, { ThrottlingRateLimit: t.rateLimit, ThrottlingBurstLimit: t.burstLimit }];
        }),
    );
    // The token, registration and reset routes are among them, with the published numbers.
    for (const key of ['POST /api/tokens/jwt/create/', 'POST /api/users/', 'POST /api/users/reset_password/', 'POST /api/users/reset_password_confirm/']) {
      expect(expected[key], key).toEqual({ ThrottlingRateLimit: ROUTE_THROTTLE.rateLimit, ThrottlingBurstLimit: ROUTE_THROTTLE.burstLimit });
    }
    expect(expected['POST /api/tokens/jwt/refresh/']).toEqual({ ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 });
    expect(Object.keys(expected)).toHaveLength(12);
    // Signed-in routes with a per-user policy keep the stage's throttling.
    expect(routeThrottle(ROUTES.find((r) => r.name === 'users.set_password')!)).toBeUndefined();
    expect(ROUTE_THROTTLE.rateLimit).toBeLessThan(THROTTLE.rateLimit);

    const [stage] = resourcesOf(dev, 'AWS::ApiGatewayV2::Stage');
    expect(stage!.properties.RouteSettings).toEqual(expected);
    // Every key names a route of the API…
    const keys = new Set(routeResources().map((r) => r.properties.RouteKey as string));
    for (const key of Object.keys(expected)) expect(keys.has(key), key).toBe(true);
    // …and the stage is created after the nested stacks that hold those routes.
    const root = dev.templates.get(dev.stack)!.toJSON().Resources as Record<string, { Type: string; DependsOn?: string[] }>;
    const dependsOn = root[logicalIdOf(dev.stack.stage)]!.DependsOn ?? [];
    const groups = new Set(Object.keys(expected).map((key) => gateway.find((g) => `${g.method} ${g.path}` === key)!.route!.name.split('.')[0]!));
    expect(groups).toEqual(new Set(['socials', 'tokens', 'users']));
    for (const group of groups) expect(dependsOn, group).toContain(logicalIdOf(dev.stack.groups.get(group)!.nestedStackResource!));
  });
});

describe('least privilege', () => {
  it('each route function\'s statements on the table are those its declaration grants (access.ts grantStatements: per set of patterns, its actions); never a Scan or table administration; routes that touch no item get no table access', () => {
    expect(ROUTES.filter((r) => Object.keys(routeKeys(r)).length === 0).map((r) => r.name)).toEqual(['support.schema', 'support.docs', 'support.jwks']);
    for (const f of routeFunctions(fns)) {
      const route = routeOf(f);
      const table = f.statements
        .map((st) => st as { Action?: unknown; Condition?: Record<string, Record<string, unknown>> })
        .filter((st) => asList(st.Action as string[]).some((a) => a.startsWith('dynamodb:')))
        .map((st) => ({ actions: asList(st.Action as string[]).sort(), keys: asList(st.Condition!['ForAllValues:StringLike']!['dynamodb:LeadingKeys'] as string[]) }));
      // The CDK sorts a statement's actions (minimizePolicies); it merges none of these (each set of patterns is its own statement).
      const expected = grantStatements(routeKeys(route)).map((st) => ({ actions: [...st.actions].sort(), keys: st.keys }));
      const order = (a: { actions: string[] }, b: { actions: string[] }) => a.actions[0]!.localeCompare(b.actions[0]!);
      expect(table.sort(order), f.component).toEqual(expected.sort(order));
      expect(actionsOf(f.statements, 'dynamodb:').filter((a) => /Scan|Table|Stream|Backup/.test(a)), f.component).toEqual([]);
      for (const st of f.statements.filter((s) => asList(s.Action).some((a) => a.startsWith('dynamodb:')))) {
        expect(rootValue(dev, f.stack, st.Resource), f.component).toEqual(tableArn(dev));
      }
    }
  });

  it('the functions of the 18 creating routes (POST, 201) may claim, store and give back an Idempotency-Key (PutItem, DeleteItem); those that finish title journals may put a stored answer; no other function may touch those items (API.md §8.7)', () => {
    const creating = ROUTES.filter((r) => r.method === 'POST' && r.response.status === 201).map((r) => r.name).sort();
    expect(creating).toHaveLength(18);
    const granted = (f: FunctionInfo) =>
      f.statements
        .map((st) => st as { Action?: unknown; Condition?: Record<string, Record<string, unknown>> })
        .filter((st) => asList(st.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'] as string[] | undefined).includes(IDEMPOTENCY_KEYS))
        .flatMap((st) => asList(st.Action as string[]))
        .sort();
    const holders = fns.filter((f) => f.component !== undefined && granted(f).length > 0);
    for (const f of holders.filter((x) => creating.includes(x.component!))) expect(granted(f), f.component).toEqual(['dynamodb:DeleteItem', 'dynamodb:PutItem']);
    // Besides them, whoever finishes an anime's or a manga's journal, which may hold a creation's stored answer, only puts it.
    const finishers = ['animes.put', 'animes.patch', 'animes.delete', 'mangas.put', 'mangas.patch', 'mangas.delete', 'job.rankings', 'job.season-refresh', 'job.airing-status', 'stream.relations'];
    expect(holders.map((f) => f.component).sort()).toEqual([...creating, ...finishers].sort());
    for (const f of holders.filter((x) => finishers.includes(x.component!))) expect(granted(f), f.component).toEqual(['dynamodb:PutItem']);
  });

  it('every route function times out before an Idempotency-Key\'s claim does (shared/http/idempotency.ts LEASE_MS)', () => {
    for (const f of routeFunctions(fns)) expect(f.properties.Timeout, f.component).toBe(ROUTE_TIMEOUT_SECONDS);
    expect(ROUTE_TIMEOUT_SECONDS * 1000).toBeLessThan(LEASE_MS);
    expect(ROUTE_TIMEOUT_SECONDS).toBeLessThan(30);
  });

  it('no policy anywhere has a wildcard action', () => {
    for (const r of dev.resources) {
      const docs =
        r.type === 'AWS::IAM::Role'
          ? asList<any>(r.properties.Policies).map((p) => p.PolicyDocument)
          : r.type === 'AWS::IAM::Policy'
            ? [r.properties.PolicyDocument]
            : [];
      for (const doc of docs) {
        for (const st of asList<any>(doc.Statement)) {
          for (const action of asList<string>(st.Action)) expect(action, `${r.stack.node.path}/${r.logicalId}`).not.toContain('*');
        }
      }
      if (r.type === 'AWS::IAM::Role' && r.properties.ManagedPolicyArns) {
        // Only CDK's auto-delete helper of the dev bucket has a managed policy.
        expect(r.logicalId).toMatch(/^CustomS3AutoDeleteObjectsCustomResourceProviderRole/);
      }
    }
  });

  it('the catch-all reads no table and no secret (without the edge), and has no table name', () => {
    const f = byComponent('catch-all');
    expect(actionsOf(f.statements, 'dynamodb:')).toEqual([]);
    expect(actionsOf(f.statements, 'secretsmanager:')).toEqual([]);
    expect(f.env[ENV.table]).toBeUndefined();
  });

  it('the authorizer: GetItem on the table and the public keys, nothing else', () => {
    const f = byComponent('authorizer');
    expect(actionsOf(f.statements, 'dynamodb:')).toEqual(['dynamodb:GetItem']);
    expect(actionsOf(f.statements, '').filter((a) => !a.startsWith('logs:'))).toEqual(['dynamodb:GetItem', 'secretsmanager:GetSecretValue']);
    expect(f.env[ENV.jwtPublic]).toEqual(secretRef(dev, 'jwtPublic'));
  });

  it('the routes that check e-mailed tokens, and only those, read their key (issuing stores a grant, which needs none: decision 62)', () => {
    for (const f of routeFunctions(fns)) {
      const route = routeOf(f);
      expect(ENV.emailTokenKey in f.env, f.component).toBe(route.uses?.includes('email-tokens') === true);
    }
    expect(fns.filter((f) => ENV.emailTokenKey in f.env).map((f) => f.component).sort()).toEqual(
      ['users.activation', 'users.reset_email_confirm', 'users.reset_password_confirm'].sort(),
    );
  });

  it('each function reads exactly the secrets named in its environment, each by its own ARN', () => {
    const secretEnv = [ENV.jwtPublic, ENV.jwtPrivate, ENV.cursor, ENV.socialSecrets, ENV.emailTokenKey];
    for (const f of fns.filter((x) => x.component !== undefined && x.component !== 'signing-keys')) {
      const fromEnv = secretEnv.filter((k) => k in f.env).map((k) => JSON.stringify(rootValue(dev, f.stack, f.env[k])));
      const granted = f.statements
        .filter((st) => asList(st.Action).includes('secretsmanager:GetSecretValue'))
        .flatMap((st) => asList(rootValue(dev, f.stack, st.Resource)).map((x) => JSON.stringify(x)));
      expect(granted.sort(), f.component).toEqual(fromEnv.sort());
      for (const st of f.statements) expect(asList(st.Action).filter((a) => a.startsWith('secretsmanager:') && a !== 'secretsmanager:GetSecretValue')).toEqual([]);
    }
  });

  it('each route function gets what its declaration uses: the cursor key for lists, the public keys for public routes, and each capability of `uses`', () => {
    for (const route of ROUTES) {
      const f = byComponent(route.name);
      const capabilities = capabilitiesOf(route);
      expect(ENV.cursor in f.env, route.name).toBe(route.response.page === true);
      for (const [capability, grant] of Object.entries(CAPABILITY_GRANTS)) {
        expect(grant.env in f.env, `${route.name} ${capability}`).toBe(capabilities.has(capability as never));
      }
      if (route.access === 'public') expect(ENV.jwtPublic in f.env, route.name).toBe(true);
    }
  });

  it('the declarations name the capabilities of the support endpoints, tokens and social sign-in', () => {
    const holders = (env: string) => routeFunctions(fns).filter((f) => env in f.env).map((f) => f.component).sort();
    // Token minting: sign-in, refresh, the end of social sign-in.
    expect(holders(ENV.jwtPrivate)).toEqual(['socials.finish', 'tokens.create', 'tokens.refresh']);
    // Verifying tokens without being public: the JWK Set, refresh and verify.
    expect(routeFunctions(fns).filter((f) => ENV.jwtPublic in f.env && routeOf(f).access !== 'public').map((f) => f.component).sort()).toEqual([
      'support.jwks',
      'tokens.refresh',
      'tokens.verify',
    ]);
    // Social sign-in: both operations read the providers, only its end the client secrets.
    expect(holders(ENV.socialProviders)).toEqual(['socials.finish', 'socials.start']);
    expect(holders(ENV.socialSecrets)).toEqual(['socials.finish']);
  });

  it('the key bootstrap reads and writes the two signing-key secrets only', () => {
    const f = byComponent('signing-keys');
    const sm = f.statements.filter((st) => asList(st.Action).some((a) => a.startsWith('secretsmanager:')));
    expect(actionsOf(sm, 'secretsmanager:')).toEqual(['secretsmanager:GetSecretValue', 'secretsmanager:PutSecretValue']);
    const resources = new Set(sm.flatMap((st) => asList(st.Resource).map((r) => JSON.stringify(r))));
    expect([...resources].sort()).toEqual([JSON.stringify(secretRef(dev, 'jwtPrivate')), JSON.stringify(secretRef(dev, 'jwtPublic'))].sort());
    expect(actionsOf(f.statements, 'dynamodb:')).toEqual([]);
  });
});

describe('table, secrets, storage', () => {
  it('the table is built from shared/db/table.ts: keys, TTL, on-demand, PITR, streams', () => {
    const [table] = resourcesOf(dev, 'AWS::DynamoDB::Table');
    expect(table!.properties).toMatchObject({
      KeySchema: [
        { AttributeName: TABLE.partitionKey, KeyType: 'HASH' },
        { AttributeName: TABLE.sortKey, KeyType: 'RANGE' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
      TimeToLiveSpecification: { AttributeName: TABLE.ttlAttribute, Enabled: true },
    });
    expect(asList<any>(table!.properties.GlobalSecondaryIndexes).map((g) => g.IndexName)).toEqual(TABLE.globalSecondaryIndexes.map((g) => g.name));
  });

  it('dev: no deletion protection, destroyed with the stack', () => {
    dev.templates.get(dev.stack)!.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Delete',
      Properties: { DeletionProtectionEnabled: false },
    });
  });

  it('prod: deletion protection, retained; the buckets are kept too', () => {
    const prod = synth({ context: { stage: 'prod', allowedOrigins: 'https://app.example.org' } });
    try {
      const root = prod.templates.get(prod.stack)!;
      root.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain', Properties: { DeletionProtectionEnabled: true } });
      const buckets = Object.values(root.toJSON().Resources as Record<string, { Type: string; DeletionPolicy?: string }>).filter((r) => r.Type === 'AWS::S3::Bucket');
      expect(buckets.map((b) => b.DeletionPolicy)).toEqual(['Retain', 'Retain']);
      root.resourceCountIs('Custom::S3AutoDeleteObjects', 0);
      expect(prod.stack.stackName).toBe('catalogue-api-prod');
      const list = functionsOf(prod).find((f) => f.component === ROUTES.find((r) => r.response.page)!.name)!;
      expect(list.env[ENV.corsOrigins]).toBe('https://app.example.org');
    } finally {
      prod.dispose();
    }
  });

  it('secrets: names prefixed by the stage; signing keys created empty and filled by the custom resource; a 64-character cursor key', () => {
    const secrets = resourcesOf(dev, 'AWS::SecretsManager::Secret');
    expect(secrets.map((s) => s.properties.Name).sort()).toEqual(['dev/catalogue/cursor-key', 'dev/catalogue/email-token-key', 'dev/catalogue/jwt-private', 'dev/catalogue/jwt-public', 'dev/catalogue/social-secrets']);
    for (const s of secrets.filter((x) => /\/(jwt-|social-)/.test(String(x.properties.Name)))) {
      expect(s.properties.SecretString).toBeUndefined();
      expect(s.properties.GenerateSecretString).toBeUndefined();
    }
    const cursor = secrets.find((s) => String(s.properties.Name).endsWith('/cursor-key'))!;
    expect(cursor.properties.GenerateSecretString).toMatchObject({ PasswordLength: 64, ExcludePunctuation: true });
    dev.templates.get(dev.stack)!.hasResourceProperties('Custom::SigningKeys', {
      PrivateSecretId: secretRef(dev, 'jwtPrivate'),
      PublicSecretId: secretRef(dev, 'jwtPublic'),
    });
  });

  it('the route stacks wait for the signing keys', () => {
    const root = dev.templates.get(dev.stack)!.toJSON().Resources as Record<string, { Type: string; DependsOn?: string[] }>;
    const keys = logicalIdOf(dev.stack.secrets.signingKeys);
    const nested = Object.values(root).filter((r) => r.Type === 'AWS::CloudFormation::Stack');
    expect(nested.length).toBe(dev.stack.groups.size);
    for (const n of nested) expect(n.DependsOn).toContain(keys);
  });

  it('the pictures bucket: no public access, TLS only, encrypted; emptied with the stack on dev only', () => {
    const bucketId = logicalIdOf(dev.stack.pictures.bucket);
    const bucket = resourcesOf(dev, 'AWS::S3::Bucket').find((r) => r.logicalId === bucketId)!.properties;
    expect(bucket).toMatchObject({
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
    });
    const policy = resourcesOf(dev, 'AWS::S3::BucketPolicy').find((r) => r.properties.Bucket?.Ref === bucketId)!;
    expect(JSON.stringify(policy.properties)).toContain('aws:SecureTransport');
    // The pictures' and the index's (test/infra/index-storage.test.ts).
    expect(resourcesOf(dev, 'Custom::S3AutoDeleteObjects').map((r) => r.properties.BucketName)).toContainEqual({ Ref: bucketId });
    dev.templates.get(dev.stack)!.resourceCountIs('Custom::S3AutoDeleteObjects', 2);
  });

  it('SES identity only with mailFrom', () => {
    expect(resourcesOf(dev, 'AWS::SES::EmailIdentity')).toHaveLength(0);
    const withMail = synth({ context: { stage: 'dev', mailFrom: 'example.org', frontendUrl: 'https://app.example.org' } });
    try {
      withMail.templates.get(withMail.stack)!.hasResourceProperties('AWS::SES::EmailIdentity', { EmailIdentity: 'example.org' });
    } finally {
      withMail.dispose();
    }
  });

  it('the resources are tagged with the service and the stage', () => {
    const expected = [
      { Key: 'service', Value: 'catalogue-api' },
      { Key: 'stage', Value: 'dev' },
    ];
    const tagged = ['AWS::DynamoDB::Table', 'AWS::S3::Bucket', 'AWS::SecretsManager::Secret', 'AWS::IAM::Role', 'AWS::Logs::LogGroup', 'AWS::CloudFormation::Stack'];
    for (const r of dev.resources.filter((x) => tagged.includes(x.type) && !x.logicalId.startsWith('CustomS3AutoDelete'))) {
      expect(asList<{ Key: string; Value: string }>(r.properties.Tags), r.logicalId).toEqual(expect.arrayContaining(expected));
    }
    for (const f of fns.filter((x) => x.component !== undefined)) {
      expect(asList<{ Key: string; Value: string }>(f.properties.Tags), f.logicalId).toEqual(expect.arrayContaining(expected));
    }
    // HTTP API resources take tags as a map.
    expect(resourcesOf(dev, 'AWS::ApiGatewayV2::Api')[0]!.properties.Tags).toEqual({ service: 'catalogue-api', stage: 'dev' });
  });
});

describe('scheduled jobs', () => {
  it('without a sender (no mailFrom) the jobs that send e-mail (the outbox) are not created; the others are', () => {
    expect(JOBS.some((j) => j.name === 'outbox' && j.sendsMail)).toBe(true);
    expect(fns.filter((f) => f.component?.startsWith('job.')).map((f) => f.component).sort()).toEqual(
      JOBS.filter((j) => !j.sendsMail).map((j) => `job.${j.name}`).sort(),
    );
    expect(resourcesOf(dev, 'AWS::Events::Rule')).toHaveLength(JOBS.filter((j) => !j.sendsMail).length);
  });

  it('each declared job gets one function and one schedule rule targeting it', () => {
    const s = synth({ jobs: [{ name: 'refresh-demo', entry: 'functions/genres/list.ts', schedule: 'rate(1 hour)', keys: {} }] });
    try {
      const job = functionsOf(s).find((f) => f.component === 'job.refresh-demo')!;
      expect(job.properties.Runtime).toBe('nodejs22.x');
      expect(job.properties.Architectures).toEqual(['arm64']);
      const rules = resourcesOf(s, 'AWS::Events::Rule');
      expect(rules).toHaveLength(1);
      expect(rules[0]!.properties.ScheduleExpression).toBe('rate(1 hour)');
      expect(JSON.stringify(rules[0]!.properties.Targets)).toContain(job.logicalId);
    } finally {
      s.dispose();
    }
  });
});

describe('catalogue import jobs (season refresh, airing status)', () => {
  const ruleOf = (component: string) => {
    const job = byComponent(component);
    const rules = resourcesOf(dev, 'AWS::Events::Rule').filter((r) => JSON.stringify(r.properties.Targets).includes(job.logicalId));
    expect(rules, component).toHaveLength(1);
    return rules[0]!.properties;
  };
  const patterns = (f: FunctionInfo) => [
    ...new Set(f.statements.flatMap((st) => asList((st as { Condition?: Record<string, Record<string, unknown>> }).Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'] as string[] | undefined))),
  ];

  it('the season refresh runs daily, the airing status hourly, each through one rule', () => {
    expect(ruleOf('job.season-refresh').ScheduleExpression).toBe('cron(0 4 * * ? *)');
    expect(ruleOf('job.airing-status').ScheduleExpression).toBe('rate(1 hour)');
  });

  it('least privilege: the titles\' items (no tombstones); the source links only for the refresh; no e-mail, no pictures; the status job reads the anime index', () => {
    const refresh = byComponent('job.season-refresh');
    const status = byComponent('job.airing-status');
    expect(patterns(refresh)).toContain('SOURCE#*');
    expect(patterns(status)).not.toContain('SOURCE#*');
    for (const f of [refresh, status]) {
      expect(patterns(f), f.component).toContain('ANIME#*');
      expect(patterns(f), f.component).not.toContain('DELETED');
      expect(patterns(f), f.component).not.toContain('USER#*');
      expect(actionsOf(f.statements, 'ses:'), f.component).toEqual([]);
      expect(f.env[ENV.picturesBucket], f.component).toBeUndefined();
    }
    // The status job lists the upcoming and airing animes from the anime index (its snapshot: reads only).
    expect(actionsOf(refresh.statements, 's3:')).toEqual([]);
    expect(actionsOf(status.statements, 's3:').sort()).toEqual(['s3:GetObject', 's3:ListBucket']);
    expect(patterns(status)).toContain('ANIME#IX');
  });

  it('every job has a failure alarm: an error of its function', () => {
    const alarms = resourcesOf(dev, 'AWS::CloudWatch::Alarm').map((a) => a.properties);
    for (const job of JOBS.filter((j) => !j.sendsMail)) {
      const fn = byComponent(`job.${job.name}`);
      const own = alarms.filter((a) => JSON.stringify(a.Dimensions).includes(fn.logicalId));
      expect(own, job.name).toHaveLength(1);
      expect(own[0]).toMatchObject({
        Namespace: 'AWS/Lambda',
        MetricName: 'Errors',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: fn.logicalId } }],
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        TreatMissingData: 'notBreaching',
      });
    }
  });
});

describe('rankings job', () => {
  const patterns = (f: FunctionInfo) => [
    ...new Set(f.statements.flatMap((st) => asList((st as { Condition?: Record<string, Record<string, unknown>> }).Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'] as string[] | undefined))),
  ];

  it('runs every 10 minutes through one rule, with a 15-minute timeout and a failure alarm', () => {
    const job = byComponent('job.rankings');
    const rules = resourcesOf(dev, 'AWS::Events::Rule').filter((r) => JSON.stringify(r.properties.Targets).includes(job.logicalId));
    expect(rules).toHaveLength(1);
    expect(rules[0]!.properties.ScheduleExpression).toBe('rate(10 minutes)');
    expect(job.properties.Timeout).toBe(900);
    const alarms = resourcesOf(dev, 'AWS::CloudWatch::Alarm').filter((a) => JSON.stringify(a.properties.Dimensions).includes(job.logicalId));
    expect(alarms).toHaveLength(1);
    expect(alarms[0]!.properties).toMatchObject({ MetricName: 'Errors', Threshold: 1 });
  });

  it('least privilege: the titles, characters and persons, their four indexes (published as a compaction does: decision O13), its lease, state and top lists (and the stored answers and change-feed changes a title\'s journal may hold); BatchWriteItem for the lists and the folded deltas only; no accounts, tombstones, taxonomies, e-mail or pictures', () => {
    const job = byComponent('job.rankings');
    expect(patterns(job).sort()).toEqual(['ANIME#*', 'ANIME#IX', 'CHARACTER#*', 'CHARACTER#IX', 'FEED#P', 'IDEM#*', 'MANGA#*', 'MANGA#IX', 'PERSON#*', 'PERSON#IX', 'RANKINGS', 'TOP#*'].sort());
    const batches = job.statements.filter((st) => asList(st.Action).includes('dynamodb:BatchWriteItem'));
    expect(batches.flatMap((st) => asList((st as { Condition?: Record<string, Record<string, unknown>> }).Condition!['ForAllValues:StringLike']!['dynamodb:LeadingKeys'] as string[])).sort()).toEqual(
      ['ANIME#IX', 'CHARACTER#IX', 'MANGA#IX', 'PERSON#IX', 'TOP#*'].sort(),
    );
    expect(actionsOf(job.statements, 'dynamodb:')).not.toContain('dynamodb:Scan');
    expect(actionsOf(job.statements, 'ses:')).toEqual([]);
    expect(actionsOf(job.statements, 's3:').sort()).toEqual(['s3:DeleteObject', 's3:GetObject', 's3:ListBucket', 's3:PutObject']);
    // The other jobs write no batches.
    for (const other of ['job.airing-status', 'job.season-refresh', 'job.cleanup']) expect(actionsOf(byComponent(other).statements, 'dynamodb:'), other).not.toContain('dynamodb:BatchWriteItem');
  });

  it('the top lists read their entries, the state item, their records and the tombstones, and write nothing', () => {
    for (const [name, kind] of [['top.animes', 'ANIME#*'], ['top.mangas', 'MANGA#*'], ['top.characters', 'CHARACTER#*'], ['top.artists', 'PERSON#*'], ['characters.members', 'CHARACTER#*']]) {
      const fn = byComponent(name!);
      expect(patterns(fn), name).toEqual(expect.arrayContaining(['RANKINGS', 'TOP#*', kind, 'DELETED']));
      expect(actionsOf(fn.statements, 'dynamodb:').filter((a) => !/GetItem|Query/.test(a)), name).toEqual([]);
    }
  });
});

describe('the recommendations job', () => {
  const job = () => byComponent('job.recommendations');
  const statements = (f: FunctionInfo) =>
    f.statements
      .map((st) => st as { Action?: unknown; Condition?: Record<string, Record<string, unknown>> })
      .filter((st) => st.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'] !== undefined)
      .map((st) => ({ actions: asList(st.Action as string[]).sort(), keys: asList(st.Condition!['ForAllValues:StringLike']!['dynamodb:LeadingKeys'] as string[]).sort() }));

  it('runs hourly through one rule, with 15 minutes and 2 GB', () => {
    const rules = resourcesOf(dev, 'AWS::Events::Rule').filter((r) => JSON.stringify(r.properties.Targets).includes(job().logicalId));
    expect(rules).toHaveLength(1);
    expect(rules[0]!.properties.ScheduleExpression).toBe('rate(1 hour)');
    expect(job().properties.Timeout).toBe(900);
    expect(job().properties.MemorySize).toBe(2048);
  });

  it('least privilege: writes only its own items (RECS#*); reads the titles\' items and the tombstones; no e-mail, no bucket', () => {
    const st = statements(job());
    expect(st).toEqual([
      { actions: ['dynamodb:BatchGetItem'], keys: ['ANIME#*', 'DELETED', 'MANGA#*', 'RECS#*'] },
      { actions: ['dynamodb:Query'], keys: ['ANIME#*', 'MANGA#*'] },
      { actions: ['dynamodb:DeleteItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'], keys: ['RECS#*'] },
    ]);
    expect(actionsOf(job().statements, 'ses:')).toEqual([]);
    expect(actionsOf(job().statements, 's3:')).toEqual([]);
  });

  it('has a failure alarm on its function\'s errors', () => {
    const alarms = resourcesOf(dev, 'AWS::CloudWatch::Alarm').filter((a) => JSON.stringify(a.properties.Dimensions).includes(job().logicalId));
    expect(alarms).toHaveLength(1);
    expect(alarms[0]!.properties).toMatchObject({ MetricName: 'Errors', Threshold: 1 });
  });
});

describe('e-mail delivery (mailer stream consumer, outbox job)', () => {
  let mail: Synthesized;
  let mailFns: FunctionInfo[];
  beforeAll(() => {
    mail = synth({ context: { stage: 'dev', mailFrom: 'noreply@example.org', frontendUrl: 'https://app.example.org/' } });
    mailFns = functionsOf(mail);
  });
  const mailerMapping = () => {
    const mailer = mailFns.find((f) => f.component === 'stream.mailer')!;
    return resourcesOf(mail, 'AWS::Lambda::EventSourceMapping').find((m) => JSON.stringify(m.properties.FunctionName).includes(mailer.logicalId))!;
  };
  afterAll(() => mail?.dispose());
  const identityArn = () => {
    const identity = resourcesOf(mail, 'AWS::SES::EmailIdentity')[0]!;
    return identity.logicalId;
  };

  it('without mailFrom: no function sends, none has the sender settings or SES access', () => {
    expect(fns.filter((f) => f.component === 'stream.mailer' || f.component === 'job.outbox')).toEqual([]);
    for (const f of fns) {
      expect(f.env[ENV.mailFrom], f.component).toBeUndefined();
      expect(actionsOf(f.statements, 'ses:'), f.component).toEqual([]);
    }
    // Only the consumers that send no e-mail read the stream.
    expect(resourcesOf(dev, 'AWS::Lambda::EventSourceMapping')).toHaveLength(STREAM_CONSUMERS.filter((c) => !c.sendsMail).length);
  });

  it('frontendUrl is required with mailFrom and must be a URL', () => {
    expect(() => synth({ context: { mailFrom: 'noreply@example.org' } })).toThrow(/frontendUrl/);
    expect(() => synth({ context: { mailFrom: 'noreply@example.org', frontendUrl: 'app.example.org' } })).toThrow(/frontendUrl/);
  });

  it('the mailer and the outbox job are the only functions that may send, from the identity only, with the sender settings', () => {
    const senders = mailFns.filter((f) => actionsOf(f.statements, 'ses:').length > 0).map((f) => f.component).sort();
    expect(senders).toEqual(['job.outbox', 'stream.mailer']);
    for (const name of senders) {
      const f = mailFns.find((x) => x.component === name)!;
      expect(actionsOf(f.statements, 'ses:')).toEqual(['ses:SendEmail']);
      const ses = f.statements.filter((st) => asList(st.Action).includes('ses:SendEmail'));
      expect(JSON.stringify(ses.map((st) => st.Resource))).toContain(identityArn());
      expect(JSON.stringify(ses.map((st) => st.Resource))).not.toContain('"*"');
      expect(f.env[ENV.mailFrom]).toBe('noreply@example.org');
      expect(f.env[ENV.frontendUrl]).toBe('https://app.example.org');
      expect(f.env[ENV.table]).toBeDefined();
      // They make the tokens of the e-mails they send from their grants (decision 62).
      expect(f.env[ENV.emailTokenKey]).toBeDefined();
    }
    expect(mailFns.filter((f) => ENV.emailTokenKey in f.env).map((f) => f.component).sort()).toEqual(
      ['job.outbox', 'stream.mailer', 'users.activation', 'users.reset_email_confirm', 'users.reset_password_confirm'],
    );
  });

  it('the outbox job runs every minute', () => {
    const job = mailFns.find((f) => f.component === 'job.outbox')!;
    const rules = resourcesOf(mail, 'AWS::Events::Rule').filter((r) => JSON.stringify(r.properties.Targets).includes(job.logicalId));
    expect(rules).toHaveLength(1);
    expect(rules[0]!.properties.ScheduleExpression).toBe('rate(1 minute)');
  });

  it('the mailer reads the table stream: new outbox messages only, partial batch responses, bounded retries', () => {
    const mailer = mailFns.find((f) => f.component === 'stream.mailer')!;
    const mappings = resourcesOf(mail, 'AWS::Lambda::EventSourceMapping');
    expect(mappings).toHaveLength(STREAM_CONSUMERS.length);
    const m = mailerMapping().properties;
    expect(JSON.stringify(m.FunctionName)).toContain(mailer.logicalId);
    expect(m.EventSourceArn).toEqual({ 'Fn::GetAtt': [logicalIdOf(mail.stack.table.table), 'StreamArn'] });
    expect(m.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
    expect(m.StartingPosition).toBe('TRIM_HORIZON');
    expect(m.MaximumRetryAttempts).toBeGreaterThan(0);
    const pattern = JSON.parse(m.FilterCriteria.Filters[0].Pattern);
    expect(pattern).toEqual({ eventName: ['INSERT'], dynamodb: { Keys: { pk: { S: [{ prefix: 'OUTBOX#' }] }, sk: { S: ['M'] } } } });
    const stream = mailer.statements.filter((st) => asList(st.Action).includes('dynamodb:GetRecords'));
    expect(stream).toHaveLength(1);
    expect(stream[0]!.Resource).toEqual({ 'Fn::GetAtt': [logicalIdOf(mail.stack.table.table), 'StreamArn'] });
  });

  it('the mailer gives up a batch by bisecting, within an hour and the declared retries, into its failure queue', () => {
    const mapping = mailerMapping();
    const queue = mail.stack.streams.failures.get('mailer')!.queue;
    expect(mapping.properties).toMatchObject({
      BisectBatchOnFunctionError: true,
      MaximumRecordAgeInSeconds: MAX_RECORD_AGE.toSeconds(),
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [logicalIdOf(queue), 'Arn'] } } },
    });
    expect(MAX_RECORD_AGE.toSeconds()).toBe(3600);
  });

  it('the failure queue: encrypted, TLS only, kept 14 days; only the mailer may send to it', () => {
    const queue = mail.stack.streams.failures.get('mailer')!.queue;
    const queues = resourcesOf(mail, 'AWS::SQS::Queue');
    // One failure queue per stream consumer.
    expect(queues).toHaveLength(STREAM_CONSUMERS.length);
    const own = queues.find((q) => q.logicalId === logicalIdOf(queue))!;
    expect(own.properties).toMatchObject({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 24 * 3600 });
    expect(FAILURE_RETENTION.toSeconds()).toBe(1209600);
    const policy = resourcesOf(mail, 'AWS::SQS::QueuePolicy').find((p) => JSON.stringify(p.properties.Queues).includes(logicalIdOf(queue)))!;
    const deny = asList<any>(policy.properties.PolicyDocument.Statement).find((st) => st.Effect === 'Deny');
    expect(deny.Condition).toEqual({ Bool: { 'aws:SecureTransport': 'false' } });
    const senders = mailFns.filter((f) => JSON.stringify(f.statements).includes(logicalIdOf(queue)));
    expect(senders.map((f) => f.component)).toEqual(['stream.mailer']);
    const sqs = senders[0]!.statements.filter((st) => asList(st.Action).some((a) => a.startsWith('sqs:')));
    expect(actionsOf(sqs, 'sqs:')).toEqual(['sqs:SendMessage']);
    expect(sqs.map((st) => st.Resource)).toEqual([{ 'Fn::GetAtt': [logicalIdOf(queue), 'Arn'] }]);
  });

  it('alarms: a message in the failure queue, an error of the mailer', () => {
    const queue = mail.stack.streams.failures.get('mailer')!.queue;
    const mailer = mailFns.find((f) => f.component === 'stream.mailer')!;
    const alarms = resourcesOf(mail, 'AWS::CloudWatch::Alarm')
      .map((a) => a.properties)
      .filter((a) => JSON.stringify(a.Dimensions).includes(logicalIdOf(queue)) || JSON.stringify(a.Dimensions).includes(mailer.logicalId));
    expect(alarms).toHaveLength(2);
    expect(alarms).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          Namespace: 'AWS/SQS',
          MetricName: 'ApproximateNumberOfMessagesVisible',
          Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [logicalIdOf(queue), 'QueueName'] } }],
          Threshold: 1,
          ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        }),
        expect.objectContaining({
          Namespace: 'AWS/Lambda',
          MetricName: 'Errors',
          Dimensions: [{ Name: 'FunctionName', Value: { Ref: mailer.logicalId } }],
          Threshold: 1,
          ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        }),
      ]),
    );
    for (const a of alarms) expect(a.TreatMissingData).toBe('notBreaching');
  });

  it('no role or policy anywhere but the mailer’s and the outbox job’s has an ses: action', () => {
    const allowed = new Set(mailFns.filter((f) => f.component === 'stream.mailer' || f.component === 'job.outbox').map((f) => f.properties.Role['Fn::GetAtt'][0] as string));
    expect(allowed.size).toBe(2);
    const withSes: string[] = [];
    for (const r of mail.resources) {
      const docs =
        r.type === 'AWS::IAM::Role'
          ? asList<any>(r.properties.Policies).map((p) => p.PolicyDocument)
          : r.type === 'AWS::IAM::Policy'
            ? [r.properties.PolicyDocument]
            : [];
      const actions = docs.flatMap((d) => asList<any>(d.Statement)).flatMap((st) => asList<string>(st.Action));
      if (actions.some((a) => a.toLowerCase().startsWith('ses:'))) withSes.push(r.logicalId);
    }
    expect(withSes.sort()).toEqual([...allowed].sort());
  });
});

describe('context', () => {
  it('rejects a malformed stage, origin, base URL, edge switch or region', () => {
    expect(() => synth({ context: { stage: 'Prod!' } })).toThrow(/stage/);
    expect(() => synth({ context: { allowedOrigins: 'example.org' } })).toThrow(/allowedOrigins/);
    expect(() => synth({ context: { publicBaseUrl: 'http://api.example.org' } })).toThrow(/publicBaseUrl/);
    expect(() => synth({ context: { edge: 'yes' } })).toThrow(/edge/);
    expect(() => synth({ context: { region: 'Europe' } })).toThrow(/region/);
  });

  it('without edge (the default) there is no CloudFront in front of the API (only the pictures’), no web ACL and no second stack; the stack is environment-agnostic', () => {
    expect(dev.edge).toBeUndefined();
    expect(resourcesOf(dev, 'AWS::CloudFront::Distribution').map((r) => r.logicalId)).toEqual([logicalIdOf(dev.stack.pictures.distribution)]);
    expect(resourcesOf(dev, 'AWS::WAFv2::WebACL')).toHaveLength(0);
    // No origin secret, and no function checks one: the functions never look at the edge's headers.
    expect(resourcesOf(dev, 'AWS::SecretsManager::Secret').map((r) => r.properties.Name)).not.toContain('dev/catalogue/origin-verify');
    for (const f of fns) expect(f.env[ENV.originSecret], f.component).toBeUndefined();
    expect(dev.app.node.children.filter((c) => c.node.id.startsWith('catalogue-api-'))).toHaveLength(1);
    expect(dev.stack.region).toMatch(/^\$\{Token/);
  });

  it('rateLimits becomes RATE_LIMITS of the route functions (unset by default); a malformed value is refused', () => {
    for (const f of fns.filter((x) => x.component !== undefined)) expect(f.env[ENV.rateLimits], f.component).toBeUndefined();
    expect(() => synth({ context: { rateLimits: '{"sign-in.user": {"limit": 3}}' } })).toThrow(/RATE_LIMITS/);
    // A rate-limited GET (social sign-in start) counts its requests (UpdateItem) and stores its state (PutItem), nothing else that writes.
    const social = { name: 'socials.start', method: 'GET', path: '/api/socials/o/{provider}/', access: 'credentials', summary: 'Start social sign-in', response: { status: 200 }, rateLimit: { policy: 'social' }, keys: { 'SOCIAL#STATE#*': ['PutItem'] } } as const;
    const s = synth({ context: { rateLimits: { 'social.ip': { limit: 100 } } }, routes: [social], entry: () => 'functions/genres/list.ts' });
    try {
      const f = functionsOf(s).find((x) => x.component === 'socials.start')!;
      expect(JSON.parse(f.env[ENV.rateLimits] as string)).toEqual({ 'social.ip': { limit: 100 } });
      expect(actionsOf(f.statements, 'dynamodb:')).toEqual(['dynamodb:PutItem', 'dynamodb:UpdateItem']);
    } finally {
      s.dispose();
    }
  });

  it('socialProviders becomes SOCIAL_PROVIDERS of the social sign-in functions; a list they would refuse is refused', () => {
    expect(() => synth({ context: { socialProviders: '[{"name": "gh", "kind": "github"}]' } })).toThrow(/github/);
    expect(() => synth({ context: { socialProviders: '[{"name": "x", "kind": "oidc", "issuer": "http://idp.example.org", "client_id": "c", "redirect_uris": ["https://app.example.org/cb"]}]' } })).toThrow(/issuer/);
    const providers = [{ name: 'google-oauth2', kind: 'oidc', issuer: 'https://accounts.google.com', client_id: 'c', redirect_uris: ['https://app.example.org/cb'] }];
    const s = synth({ context: { socialProviders: providers } });
    try {
      for (const f of functionsOf(s).filter((x) => x.component?.startsWith('socials.'))) {
        expect(JSON.parse(f.env[ENV.socialProviders] as string), f.component).toEqual(providers);
      }
    } finally {
      s.dispose();
    }
  });

  it('publicBaseUrl becomes PUBLIC_BASE_URL of every API function', () => {
    const s = synth({ context: { publicBaseUrl: 'https://api.example.org/' } });
    try {
      for (const f of functionsOf(s).filter((x) => x.component && x.component !== 'signing-keys')) expect(f.env[ENV.baseUrl], f.component).toBe('https://api.example.org');
    } finally {
      s.dispose();
    }
  });
});

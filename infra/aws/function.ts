/**
 * Every function of the service is a CatalogueFunction: one TypeScript entry module bundled by
 * esbuild (locally installed, never Docker) into a minified ESM bundle with the AWS SDK inside,
 * Node.js 22 on arm64 (DESIGN.md §5), its own log group with a retention, and its own role whose
 * only policy is written here: the log permissions plus the statements its caller passes. No
 * managed policies, no wildcard actions.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Duration, RemovalPolicy, Tags } from 'aws-cdk-lib';
import { PolicyDocument, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { KeyPattern } from '../../shared/db/key-patterns.js';
import type { PackageFiles } from '../../shared/http/route.js';
import { TABLE } from '../../shared/db/table.js';
import { FUNCTION_ENV } from '../api-config.js';
import { ALIASES, BUNDLE_TARGET, MAIN_FIELDS, REQUIRE_BANNER } from './bundling.js';
import { acknowledge, REASONS } from './nag.js';

/** The repository root: entries are relative to it, and it is the bundling project root. */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export const RUNTIME = Runtime.NODEJS_22_X;
export const ARCHITECTURE = Architecture.ARM_64;

/** Tag naming what a function is: a route name (`genres.list`), `authorizer`, `catch-all`, … */
export const COMPONENT_TAG = 'component';

/** The environment variable names (one list for AWS and the local runtime). */
export const ENV = FUNCTION_ENV;

export interface CatalogueFunctionProps {
  /** Entry module, relative to the repository root (e.g. `functions/genres/list.ts`). */
  entry: string;
  /** Value of the `component` tag. */
  component: string;
  description: string;
  /** Variables beyond the common ones (log settings, source maps). */
  environment?: Record<string, string>;
  /** What the function may do besides writing its logs. */
  statements?: PolicyStatement[];
  timeout?: Duration;
  /** Memory in MB (default 1024). */
  memorySize?: number;
  /** Log group removal (RETAIN on stages that keep data). */
  logRemovalPolicy?: RemovalPolicy;
  /** Files of installed packages the function reads at run time (copied into its package). */
  packageFiles?: readonly PackageFiles[];
}

const quote = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;

/**
 * The shell commands that copy package files into a function's bundle directory, at
 * `node_modules/<package>/<file>` (the installed package's files, from this repository).
 */
export function packageFileCommands(outputDir: string, packages: readonly PackageFiles[]): string[] {
  const resolve = createRequire(join(REPO_ROOT, 'package.json')).resolve;
  return packages.flatMap((p) => {
    const from = dirname(resolve(`${p.package}/package.json`));
    const to = join(outputDir, 'node_modules', p.package);
    return [`mkdir -p ${quote(to)}`, ...p.files.map((f) => `cp ${quote(join(from, f))} ${quote(join(to, f))}`)];
  });
}

export class CatalogueFunction extends Construct {
  readonly function: NodejsFunction;
  readonly role: Role;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: CatalogueFunctionProps) {
    super(scope, id);
    this.logGroup = new LogGroup(this, 'Logs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: props.logRemovalPolicy ?? RemovalPolicy.DESTROY,
    });
    // The log group exists before the function, so the function never needs logs:CreateLogGroup.
    const logs = new PolicyStatement({ actions: ['logs:CreateLogStream', 'logs:PutLogEvents'], resources: [this.logGroup.logGroupArn] });
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Runs ${props.component}`,
      inlinePolicies: { access: new PolicyDocument({ statements: [logs, ...(props.statements ?? [])] }) },
    });
    this.function = new NodejsFunction(this, 'Function', {
      entry: `${REPO_ROOT}${props.entry}`,
      handler: 'handler',
      projectRoot: REPO_ROOT,
      depsLockFilePath: `${REPO_ROOT}package-lock.json`,
      description: props.description.slice(0, 256),
      runtime: RUNTIME,
      architecture: ARCHITECTURE,
      memorySize: props.memorySize ?? 1024,
      timeout: props.timeout ?? Duration.seconds(10),
      role: this.role,
      logGroup: this.logGroup,
      environment: {
        POWERTOOLS_SERVICE_NAME: 'catalogue-api',
        [ENV.logLevel]: 'INFO',
        NODE_OPTIONS: '--enable-source-maps',
        ...props.environment,
      },
      bundling: {
        format: OutputFormat.ESM,
        target: BUNDLE_TARGET,
        mainFields: MAIN_FIELDS,
        banner: REQUIRE_BANNER,
        minify: true,
        sourceMap: true,
        // Stack traces map to file and line; the sources themselves need not ship.
        sourcesContent: false,
        bundleAwsSDK: true,
        externalModules: [],
        logLevel: LogLevel.WARNING,
        esbuildArgs: Object.fromEntries(Object.entries(ALIASES(REPO_ROOT)).map(([from, to]) => [`--alias:${from}`, to])),
        ...(props.packageFiles?.length
          ? {
              commandHooks: {
                beforeBundling: () => [],
                beforeInstall: () => [],
                afterBundling: (_inputDir: string, outputDir: string) => packageFileCommands(outputDir, props.packageFiles!),
              },
            }
          : {}),
      },
    });
    Tags.of(this.function).add(COMPONENT_TAG, props.component);
    acknowledge(this.function, 'AwsSolutions-L1', REASONS.nodeRuntime);
  }
}

/**
 * Table access: the given actions on the table (and on each of its indexes, when it has any),
 * only on items whose partition key matches one of `keys` (key-patterns.ts). Every key a request
 * names must match (`ForAllValues`, which alone would also allow a request naming no key: the
 * `Null` condition refuses those). DynamoDB checks the key of each item of a BatchGetItem and of
 * a transaction, as of a single-item call.
 */
export function tableStatement(table: ITable, actions: readonly string[], keys: readonly KeyPattern[]): PolicyStatement {
  if (keys.length === 0) throw new Error('table access needs at least one key pattern');
  const indexes = actions.includes('dynamodb:Query') ? TABLE.globalSecondaryIndexes.map((g) => `${table.tableArn}/index/${g.name}`) : [];
  return new PolicyStatement({
    actions: [...actions],
    resources: [table.tableArn, ...indexes],
    conditions: {
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...keys] },
      Null: { 'dynamodb:LeadingKeys': 'false' },
    },
  });
}

/** Reading one secret's value. */
export function secretReadStatement(secret: ISecret): PolicyStatement {
  return new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [secret.secretArn] });
}

/**
 * Every function of the service is a CatalogueFunction: one TypeScript entry module packaged by
 * esbuild (locally installed, never Docker; bundling.ts) into minified ESM with the AWS SDK
 * inside, Node.js 22 on arm64 (DESIGN.md §5), its own log group with a retention, and its own
 * role whose only policy is written here: the log permissions plus the statements its caller
 * passes. No managed policies, no wildcard actions.
 */
import { fileURLToPath } from 'node:url';
import { AssetHashType, DockerImage, Duration, RemovalPolicy, Tags, type ILocalBundling } from 'aws-cdk-lib';
import { PolicyDocument, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { KeyGrants } from '../../shared/db/key-patterns.js';
import { grantStatements } from './access.js';
import { TABLE } from '../../shared/db/table.js';
import { FUNCTION_ENV } from '../api-config.js';
import { bundleFunction, ENTRY_FILE } from './bundling.js';
import { packageFiles } from './package-files.js';
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
}

export class CatalogueFunction extends Construct {
  readonly function: LambdaFunction;
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
    this.function = new LambdaFunction(this, 'Function', {
      code: functionCode(props.entry),
      handler: `${ENTRY_FILE.replace(/\.mjs$/, '')}.handler`,
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
    });
    Tags.of(this.function).add(COMPONENT_TAG, props.component);
    acknowledge(this.function, 'AwsSolutions-L1', REASONS.nodeRuntime);
  }
}

/**
 * The function's package (bundling.ts), built by esbuild in this process when the stack is
 * synthesized; the asset's hash is that of the package. The entry is a property of the local
 * bundling, so that it is part of the CDK's cache key of the asset (assets of equal options are
 * staged once). Docker is never used: the image is there because the CDK's bundling options
 * require one.
 */
class FunctionPackaging implements ILocalBundling {
  constructor(readonly entry: string) {}

  tryBundle(outputDir: string): boolean {
    bundleFunction(REPO_ROOT, this.entry, outputDir, packageFiles(this.entry));
    return true;
  }
}

function functionCode(entry: string): Code {
  return Code.fromAsset(REPO_ROOT, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: { image: DockerImage.fromRegistry('unused'), local: new FunctionPackaging(entry) },
  });
}

/**
 * Table access as `keys` grants it (key-patterns.ts): one statement per set of key patterns,
 * holding the actions granted on exactly that set (access.ts grantStatements), on the table (and
 * on each of its indexes, when it has any), only on items whose partition key matches one of the
 * statement's patterns. Every key a request names must match (`ForAllValues`, which alone would
 * also allow a request naming no key: the `Null` condition refuses those). DynamoDB checks the
 * key of each item of a BatchGetItem and of a transaction, as of a single-item call. No
 * statement for no grant.
 */
export function tableStatements(table: ITable, keys: KeyGrants): PolicyStatement[] {
  return grantStatements(keys).map((st) => {
    const indexes = st.actions.includes('dynamodb:Query') ? TABLE.globalSecondaryIndexes.map((g) => `${table.tableArn}/index/${g.name}`) : [];
    return new PolicyStatement({
      actions: st.actions,
      resources: [table.tableArn, ...indexes],
      conditions: {
        'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': st.keys },
        Null: { 'dynamodb:LeadingKeys': 'false' },
      },
    });
  });
}

/** Reading one secret's value. */
export function secretReadStatement(secret: ISecret): PolicyStatement {
  return new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [secret.secretArn] });
}

/**
 * The CDK app (cdk.json: `npx tsx infra/aws/app.ts`). One stack per stage:
 *
 *   npx cdk deploy -c stage=dev
 *   npx cdk synth -c stage=prod -c allowedOrigins=https://app.example.org -c publicBaseUrl=https://api.example.org
 *   npx cdk synth -c nag=true        # with the cdk-nag AwsSolutions checks
 *
 * Context keys: see config.ts.
 */
import { App } from 'aws-cdk-lib';
import { stageConfig } from './config.js';
import { addNagChecks } from './nag.js';
import { CatalogueStack, stackName } from './stack.js';

const app = new App();
const config = stageConfig(app.node);
// Environment-agnostic: deployed to the account and region of the CLI's credentials.
new CatalogueStack(app, stackName(config.stage), { config });
if (config.nag) addNagChecks(app);
app.synth();

/**
 * The CDK app (cdk.json: `npx tsx infra/aws/app.ts`). One stack per stage:
 *
 *   npx cdk deploy -c stage=dev
 *   npx cdk synth -c stage=prod -c allowedOrigins=https://app.example.org -c publicBaseUrl=https://api.example.org
 *   npx cdk synth -c nag=true        # with the cdk-nag AwsSolutions checks
 *   npx cdk deploy -c stage=prod -c edge=true --all   # with the edge stack (us-east-1) first
 *
 * Context keys: see config.ts.
 */
import { App } from 'aws-cdk-lib';
import { stageConfig } from './config.js';
import { addNagChecks } from './nag.js';
import { addStage } from './stack.js';

const app = new App();
const config = stageConfig(app.node);
// Deployed to the account and region of the CLI's credentials (with the edge: the region is
// fixed at synthesis, and the edge's web ACL goes to us-east-1).
addStage(app, config);
if (config.nag) addNagChecks(app);
app.synth();

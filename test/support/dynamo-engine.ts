/**
 * The test file's DynamoDB Local (started by setup.ts), for fault tests that stop it and start
 * it again. Only the `faults` project keeps its data on disk: elsewhere a restart loses the table.
 */
import type { DynamoEngine } from '../../infra/local/engines.js';

let engine: DynamoEngine | undefined;

export function setDynamoEngine(e: DynamoEngine): void {
  engine = e;
}

export function dynamoEngine(): DynamoEngine {
  if (!engine) throw new Error('no DynamoDB Local: the file runs without test/support/setup.ts');
  return engine;
}

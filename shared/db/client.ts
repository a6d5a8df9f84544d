/**
 * How the entity modules reach DynamoDB: `send(c => new c.GetCommand({...}))` builds a command
 * with the SDK's classes and sends it on the shared document client (sdk.ts). The SDK module is
 * imported on the first call, not when a function's handler is loaded (docs/decisions.md W3):
 * this module imports nothing of the SDK but its types.
 */
import type { ServiceInputTypes, ServiceOutputTypes } from '@aws-sdk/lib-dynamodb';
import type { Command } from '@smithy/types';
import type * as SdkModule from './sdk.js';

export type Sdk = typeof SdkModule;

let sdk: Promise<Sdk> | undefined;

/** The SDK module (sdk.ts), imported once. */
export function dynamo(): Promise<Sdk> {
  sdk ??= import('./sdk.js');
  return sdk;
}

/** Sends the command that `make` builds with the SDK's command classes; resolves to its output. */
export async function send<I extends ServiceInputTypes, O extends ServiceOutputTypes>(
  make: (c: Sdk) => Command<ServiceInputTypes, I, ServiceOutputTypes, O, never>,
): Promise<O> {
  const c = await dynamo();
  return c.db().send(make(c) as never) as Promise<O>;
}

export function tableName(): string {
  const name = process.env.TABLE_NAME;
  if (!name) throw new Error('TABLE_NAME is not set');
  return name;
}

/**
 * Running function modules locally as Lambda runs them: the module's `handler` export, called
 * with an event and a Lambda context (as far as handlers and Powertools read it).
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';

export type LambdaHandler<E = unknown, R = unknown> = (event: E, context: Context) => Promise<R>;

const modules = new Map<string, Promise<unknown>>();

/** The `handler` export of a function module (path relative to the repository root), loaded once. */
export function loadHandler<E = unknown, R = unknown>(entry: string): Promise<LambdaHandler<E, R>> {
  let loaded = modules.get(entry);
  if (!loaded) {
    loaded = import(new URL(`../../${entry}`, import.meta.url).href).then((m: { handler: LambdaHandler<E, R> }) => m.handler);
    modules.set(entry, loaded);
  }
  return loaded as Promise<LambdaHandler<E, R>>;
}

export function lambdaContext(name: string): Context {
  const deadline = Date.now() + 29_000;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: name,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${name}`,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${name}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}


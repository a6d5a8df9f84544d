/**
 * What each function touches in the table, checked against what its role may touch on AWS.
 * DynamoDB Local does not enforce IAM, so a wrong declaration (a route that reads an item its
 * `keys` do not name) would only fail once deployed. This middleware on the shared DynamoDB
 * client records the action and partition key of every item a call names while a function runs
 * in this process (attributed by infra/local/functions.ts `runningFunction`: the local gateway,
 * the stream poller and the scheduler invoke handlers through it), and `violations` lists what
 * the function's grants would refuse: a key no pattern of its role matches (`dynamodb:LeadingKeys`),
 * a call naming no key, or an action its role lacks. The grants come from infra/aws/access.ts and
 * the job and stream registries, exactly as the CDK app builds the roles.
 */
import { JOBS } from '../../functions/jobs/registry.js';
import { ROUTES } from '../../functions/registry.js';
import { STREAM_CONSUMERS } from '../../functions/streams/registry.js';
import { AUTHORIZER_KEYS, routeKeys, TABLE_READ, TABLE_WRITE, tableActions } from '../../infra/aws/access.js';
import { runningFunction } from '../../infra/local/functions.js';
import { db } from '../../shared/db/sdk.js';
import { allowedKey, type KeyPattern } from '../../shared/db/key-patterns.js';

/** One item named by a call: the IAM action it is authorised as, and its partition key (null: none). */
export interface Touch {
  component: string;
  action: string;
  pk: string | null;
}

/** What a function's role allows on the table. */
export interface TableGrant {
  actions: readonly string[];
  keys: readonly KeyPattern[];
}

const ALL = [...TABLE_READ, ...TABLE_WRITE];

/** The table grant of each function the local runtime runs, by the name its context carries. */
export const GRANTS: ReadonlyMap<string, readonly TableGrant[]> = new Map<string, TableGrant[]>([
  ...ROUTES.map((r): [string, TableGrant[]] => [r.name, [{ actions: tableActions(r), keys: routeKeys(r) }]]),
  ['authorizer', [{ actions: ['dynamodb:GetItem'], keys: AUTHORIZER_KEYS }]],
  ['catch-all', [{ actions: [], keys: [] }]],
  // A job reads and writes its `keys` and only reads its `readKeys` (infra/aws/jobs.ts).
  ...JOBS.map((j): [string, TableGrant[]] => [`job.${j.name}`, [{ actions: j.batchWrites ? [...ALL, 'dynamodb:BatchWriteItem'] : ALL, keys: j.keys }, { actions: TABLE_READ, keys: j.readKeys ?? [] }]]),
  ...STREAM_CONSUMERS.map((c): [string, TableGrant[]] => [`stream.${c.name}`, [{ actions: c.batchWrites ? [...ALL, 'dynamodb:BatchWriteItem'] : ALL, keys: c.keys }]]),
]);

type Input = Record<string, any>;

/** A key attribute as the caller wrote it, or marshalled (`{S: …}`). */
const str = (v: unknown): string | null => (typeof v === 'string' ? v : typeof (v as { S?: unknown })?.S === 'string' ? (v as { S: string }).S : null);

/** The partition key a Query names (its key condition `pk = :v`). */
function queryPk(input: Input): string | null {
  for (const m of String(input.KeyConditionExpression ?? '').matchAll(/(#?\w+)\s*=\s*(:\w+)/g)) {
    const name = m[1]!.startsWith('#') ? input.ExpressionAttributeNames?.[m[1]!] : m[1];
    if (name === 'pk') return str(input.ExpressionAttributeValues?.[m[2]!]);
  }
  return null;
}

/** The items a call names, each with the action IAM authorises it as. */
export function touchesOf(operation: string, input: Input): Omit<Touch, 'component'>[] {
  switch (operation) {
    case 'GetItem':
    case 'UpdateItem':
    case 'DeleteItem':
      return [{ action: `dynamodb:${operation}`, pk: str(input.Key?.pk) }];
    case 'PutItem':
      return [{ action: 'dynamodb:PutItem', pk: str(input.Item?.pk) }];
    case 'Query':
      return [{ action: 'dynamodb:Query', pk: queryPk(input) }];
    case 'BatchGetItem':
      return Object.values(input.RequestItems ?? {}).flatMap((r: any) => (r.Keys ?? []).map((k: Input) => ({ action: 'dynamodb:BatchGetItem', pk: str(k.pk) })));
    case 'TransactWriteItems':
      return (input.TransactItems ?? []).map((t: Input) => {
        if (t.Put) return { action: 'dynamodb:PutItem', pk: str(t.Put.Item?.pk) };
        if (t.Update) return { action: 'dynamodb:UpdateItem', pk: str(t.Update.Key?.pk) };
        if (t.Delete) return { action: 'dynamodb:DeleteItem', pk: str(t.Delete.Key?.pk) };
        return { action: 'dynamodb:ConditionCheckItem', pk: str(t.ConditionCheck?.Key?.pk) };
      });
    case 'BatchWriteItem':
      return Object.values(input.RequestItems ?? {}).flatMap((rs: any) =>
        (rs as Input[]).map((r) => ({ action: 'dynamodb:BatchWriteItem', pk: str(r.PutRequest ? r.PutRequest.Item?.pk : r.DeleteRequest?.Key?.pk) })),
      );
    case 'TransactGetItems':
      return (input.TransactItems ?? []).map((t: Input) => ({ action: 'dynamodb:GetItem', pk: str(t.Get?.Key?.pk) }));
    default:
      // Scan, …: no function is granted them, and they name no partition key.
      return [{ action: `dynamodb:${operation}`, pk: null }];
  }
}

/** Why the role of `touch.component` would refuse it (null: allowed, or a function this check does not know). */
export function refusal(touch: Touch): string | null {
  const grants = GRANTS.get(touch.component);
  if (!grants) return null;
  const granted = grants.filter((g) => g.actions.includes(touch.action));
  if (granted.length === 0) return `${touch.action} is not granted`;
  if (touch.pk === null) return 'the call names no partition key';
  const keys = granted.flatMap((g) => g.keys);
  if (!allowedKey(touch.pk, keys)) return `no pattern of [${keys.join(', ')}] matches ${touch.pk} for ${touch.action}`;
  return null;
}

export interface KeyTrace {
  /** Every touch recorded since the trace was installed (or cleared). */
  readonly touches: Touch[];
  /** The touches the functions' roles would refuse, described. */
  violations(): string[];
  clear(): void;
}

let trace: KeyTrace | undefined;

/** Instruments the shared DynamoDB client of this process (once) and returns its trace. */
export function keyTrace(): KeyTrace {
  if (trace) return trace;
  const touches: Touch[] = [];
  const t: KeyTrace = {
    touches,
    violations: () =>
      touches.flatMap((touch) => {
        const why = refusal(touch);
        return why === null ? [] : [`${touch.component}: ${touch.action} ${touch.pk ?? '(no key)'}: ${why}`];
      }),
    clear: () => void touches.splice(0),
  };
  db().middlewareStack.add(
    (next, context) => (args) => {
      const component = runningFunction.getStore();
      if (component !== undefined) {
        const operation = (context.commandName ?? 'unknown').replace(/Command$/, '');
        for (const touch of touchesOf(operation, args.input as Input)) touches.push({ component, ...touch });
      }
      return next(args);
    },
    { step: 'initialize', name: 'testKeyTrace', priority: 'high' },
  );
  trace = t;
  return t;
}

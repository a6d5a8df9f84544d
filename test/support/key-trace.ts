/**
 * What each function does to the table, checked against what its role may do on AWS. DynamoDB
 * Local does not enforce IAM, so a wrong declaration (a route that reads an item its `keys` do
 * not name, or writes one it may only read) would only fail once deployed. This middleware on
 * the shared DynamoDB client records the action and partition key of every item a call names
 * while a function runs in this process (attributed by infra/local/functions.ts
 * `runningFunction`: the local gateway, the stream poller and the scheduler invoke handlers
 * through it), and `violations` lists what the function's grants would refuse: an action no
 * pattern matching the key grants (`dynamodb:LeadingKeys`, per statement), or a call naming no
 * key. The grants come from infra/aws/access.ts and the job and stream registries, exactly as
 * the CDK app builds the roles. `used` and `unusedGrants` tell which grants the recorded touches
 * needed (test/run.ts reports the grants a whole run never used).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { JOBS } from '../../functions/jobs/registry.js';
import { ROUTES } from '../../functions/registry.js';
import { STREAM_CONSUMERS } from '../../functions/streams/registry.js';
import { AUTHORIZER_KEYS, routeKeys } from '../../infra/aws/access.js';
import { runningFunction } from '../../infra/local/functions.js';
import { db } from '../../shared/db/sdk.js';
import { matchesKeyPattern, TABLE_ACTIONS, type KeyGrants, type TableAction } from '../../shared/db/key-patterns.js';

/** One item named by a call: the IAM action it is authorised as, and its partition key (null: none). */
export interface Touch {
  component: string;
  action: string;
  pk: string | null;
}

/** The table grants of each function the local runtime runs, by the name its context carries. */
export const GRANTS: ReadonlyMap<string, KeyGrants> = new Map<string, KeyGrants>([
  ...ROUTES.map((r): [string, KeyGrants] => [r.name, routeKeys(r)]),
  ['authorizer', AUTHORIZER_KEYS],
  ['catch-all', {}],
  ...JOBS.map((j): [string, KeyGrants] => [`job.${j.name}`, j.keys]),
  ...STREAM_CONSUMERS.map((c): [string, KeyGrants] => [`stream.${c.name}`, c.keys]),
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

/** The action of a touch as key-patterns.ts names it (null: one no role is ever granted). */
const tableAction = (action: string): TableAction | null => {
  const name = action.replace(/^dynamodb:/, '');
  return (TABLE_ACTIONS as readonly string[]).includes(name) ? (name as TableAction) : null;
};

/** Why the role of `touch.component` would refuse it (null: allowed, or a function this check does not know). */
export function refusal(touch: Touch): string | null {
  const grants = GRANTS.get(touch.component);
  if (!grants) return null;
  const action = tableAction(touch.action);
  const pk = touch.pk;
  const granting = Object.entries(grants).filter(([, actions]) => action !== null && actions.includes(action));
  const matching = pk === null ? [] : Object.entries(grants).filter(([pattern]) => matchesKeyPattern(pk, pattern));
  if (granting.length === 0 && matching.length === 0) return `${touch.action} is not granted`;
  if (pk === null) return 'the call names no partition key';
  if (granting.some(([pattern]) => matchesKeyPattern(pk, pattern))) return null;
  if (matching.length === 0) return `no pattern of [${Object.keys(grants).join(', ')}] matches ${pk}`;
  return `${touch.action} is not granted on ${matching.map(([p, actions]) => `${p} (only ${actions.join(', ')})`).join(', ')}`;
}

/** A grant: one action on the items of one pattern, for one function. */
export interface GrantUse {
  component: string;
  pattern: string;
  action: TableAction;
}

const grantId = (g: GrantUse) => `${g.component}\t${g.pattern}\t${g.action}`;

/** The grants that allowed `touch` (every pattern matching its key that grants its action). */
export function grantsUsedBy(touch: Touch): GrantUse[] {
  const action = tableAction(touch.action);
  const grants = GRANTS.get(touch.component);
  if (!grants || action === null || touch.pk === null) return [];
  return Object.entries(grants)
    .filter(([pattern, actions]) => actions.includes(action) && matchesKeyPattern(touch.pk!, pattern))
    .map(([pattern]) => ({ component: touch.component, pattern, action }));
}

/** Every grant of the functions named (all functions: every grant of GRANTS). */
export function allGrants(components: readonly string[] = [...GRANTS.keys()]): GrantUse[] {
  return components.flatMap((component) =>
    Object.entries(GRANTS.get(component) ?? {}).flatMap(([pattern, actions]) => actions.map((action) => ({ component, pattern, action }))),
  );
}

/** The grants of `components` that none of `used` (grant ids, grantId) needed. */
export function unusedGrants(used: ReadonlySet<string>, components?: readonly string[]): GrantUse[] {
  return allGrants(components).filter((g) => !used.has(grantId(g)));
}

export interface KeyTrace {
  /** Every touch recorded since the trace was installed (or cleared). */
  readonly touches: Touch[];
  /** The touches the functions' roles would refuse, described. */
  violations(): string[];
  /** The grants the recorded touches needed (grant ids: component, pattern, action). */
  used(): Set<string>;
  clear(): void;
}

let trace: KeyTrace | undefined;

/** The touches without repeats (a file makes thousands of the same ones). */
function distinct(touches: readonly Touch[]): Touch[] {
  const seen = new Map<string, Touch>();
  for (const t of touches) seen.set(`${t.component}\n${t.action}\n${t.pk}`, t);
  return [...seen.values()];
}

/** Instruments the shared DynamoDB client of this process (once) and returns its trace. */
export function keyTrace(): KeyTrace {
  if (trace) return trace;
  const touches: Touch[] = [];
  const t: KeyTrace = {
    touches,
    violations: () =>
      distinct(touches).flatMap((touch) => {
        const why = refusal(touch);
        return why === null ? [] : [`${touch.component}: ${touch.action} ${touch.pk ?? '(no key)'}: ${why}`];
      }),
    used: () => new Set(distinct(touches).flatMap((touch) => grantsUsedBy(touch).map(grantId))),
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

/** Writes the grants a file's touches used into `dir` (test/run.ts sums the files of a run up). */
export function writeGrantRecord(dir: string, t: KeyTrace): void {
  const used = [...t.used()];
  if (used.length === 0) return;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${randomUUID()}.json`), JSON.stringify(used));
}

/**
 * Looking at what an Idempotency-Key left (API.md §8.7, shared/db/idempotency.ts): a caller's
 * stored item, opened with the key as the request that stored it would open it, and the calls
 * the functions running in this process made to the table, by function, so a test can see
 * whether a creation's stored answer went into the transaction that created its record. And a
 * fault: the answer of a creation's committed transaction lost on its way back (the connection
 * reset), as when the function dies or the database goes away right after the commit.
 */
import { runningFunction } from '../../infra/local/functions.js';
import { tableName } from '../../shared/db/client.js';
import { idempotencyScope, openOutcome, type Outcome } from '../../shared/db/idempotency.js';
import { db, GetCommand } from '../../shared/db/sdk.js';
import { touchesOf } from './key-trace.js';

/** The caller an item is scoped to: a user, or the client address of an anonymous request. */
export type KeyCaller = { user: string } | { ip: string };

/** The stored item of `key` sent by `caller` (null: none), and its outcome opened with the key. */
export async function storedKey(caller: KeyCaller, key: string): Promise<{ item: Record<string, unknown>; outcome: Outcome | null } | null> {
  const scope = idempotencyScope('user' in caller ? `user:${caller.user}` : `ip:${caller.ip}`, key);
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: scope.key, ConsistentRead: true }));
  return out.Item ? { item: out.Item, outcome: openOutcome(scope, out.Item) } : null;
}

/** One call a function made: its operation and the partition keys it named, with their actions. */
export interface Call {
  component: string;
  operation: string;
  touches: { action: string; pk: string | null }[];
}

let calls: Call[] | undefined;

/** Records every call the functions of this process make to the table (installed once); `since` marks a point to read from. */
export function tableCalls(): { since(): () => Call[] } {
  if (!calls) {
    const all: Call[] = [];
    db().middlewareStack.add(
      (next, context) => (args) => {
        const component = runningFunction.getStore();
        if (component !== undefined) {
          const operation = (context.commandName ?? 'unknown').replace(/Command$/, '');
          all.push({ component, operation, touches: touchesOf(operation, args.input as Record<string, unknown>) });
        }
        return next(args);
      },
      { step: 'initialize', name: 'testTableCalls', priority: 'high' },
    );
    calls = all;
  }
  const recorded = calls;
  return {
    since: () => {
      const from = recorded.length;
      return () => recorded.slice(from);
    },
  };
}

/** Whether a call is a transaction that puts an IDEM# item beside other items (a creation with its stored answer). */
export const joinsStoredAnswer = (call: Call): boolean =>
  call.operation === 'TransactWriteItems' &&
  call.touches.some((t) => t.action === 'dynamodb:PutItem' && t.pk?.startsWith('IDEM#')) &&
  call.touches.some((t) => !t.pk?.startsWith('IDEM#'));

/** Whether a call names an IDEM# item. */
export const touchesKeys = (call: Call): boolean => call.touches.some((t) => t.pk?.startsWith('IDEM#'));

let losing: Map<string, (call: Call) => boolean> | undefined;

/**
 * The next transaction of `component` that `which` picks (default: one that stores a creation's
 * answer beside its record) commits, and then its call fails as a reset connection would (the
 * function sees an outage: 503).
 */
export function loseNextCommittedAnswer(component: string, which: (call: Call) => boolean = joinsStoredAnswer): void {
  if (!losing) {
    const armed = new Map<string, (call: Call) => boolean>();
    db().middlewareStack.add(
      (next, context) => async (args) => {
        const out = await next(args);
        const who = runningFunction.getStore();
        const picks = who === undefined ? undefined : armed.get(who);
        if (who !== undefined && picks) {
          const operation = (context.commandName ?? '').replace(/Command$/, '');
          if (operation === 'TransactWriteItems' && picks({ component: who, operation, touches: touchesOf(operation, args.input as Record<string, unknown>) })) {
            armed.delete(who);
            throw Object.assign(new Error('socket hang up (test: the answer of a committed transaction lost)'), { code: 'ECONNRESET' });
          }
        }
        return out;
      },
      { step: 'initialize', name: 'testLostAnswers', priority: 'high' },
    );
    losing = armed;
  }
  losing.set(component, which);
}

/** Running a declared job as EventBridge would: its module's handler, a scheduled event of a given time. */
import type { ScheduledEvent } from 'aws-lambda';
import { JOBS } from '../../functions/jobs/registry.js';
import { lambdaContext, loadHandler } from '../../infra/local/functions.js';
import { scheduledEvent } from '../../infra/local/scheduler.js';
import { db } from '../../shared/db/sdk.js';

/** Runs job `name` once, its event scheduled at `at` (what the run takes for "now"). */
export async function runJob<R = unknown>(name: string, at: Date): Promise<R> {
  const job = JOBS.find((j) => j.name === name);
  if (!job) throw new Error(`no job ${name}`);
  const handler = await loadHandler<ScheduledEvent, R>(job.entry);
  return handler(scheduledEvent(job, at), lambdaContext(`job.${name}`));
}

/**
 * Makes every write of the item `pk` / `sk` (the record item by default; a TransactWriteItems,
 * PutItem or UpdateItem naming it) fail, as an engine outage would, until the returned function
 * is called: a fault in the real client's path, the engine itself untouched.
 */
export function failWritesOf(pk: string, sk = 'R'): () => void {
  const name = `fail-${pk}-${Math.random()}`;
  type Key = { pk?: unknown; sk?: unknown } | undefined;
  // The document client shares its inner client's stack: the key may be marshalled (`{S: …}`).
  const str = (v: unknown) => (typeof v === 'string' ? v : (v as { S?: string } | undefined)?.S);
  const isTarget = (k: Key) => str(k?.pk) === pk && str(k?.sk) === sk;
  type Op = { Put?: { Item?: Key }; Update?: { Key?: Key } };
  db().middlewareStack.add(
    (next, context) => async (args) => {
      if (!/^(TransactWrite(Items)?|Put(Item)?|Update(Item)?)Command$/.test(String(context.commandName))) return next(args);
      const input = args.input as Op & { TransactItems?: Op[]; Item?: Key; Key?: Key };
      const ops: Op[] = [...(input.TransactItems ?? []), { Put: { Item: input.Item }, Update: { Key: input.Key } }];
      if (ops.some((t) => isTarget(t.Put?.Item) || isTarget(t.Update?.Key))) {
        throw Object.assign(new Error('injected engine failure'), { name: 'InternalServerError', $fault: 'server' });
      }
      return next(args);
    },
    { step: 'initialize', name, priority: 'high' },
  );
  return () => void db().middlewareStack.remove(name);
}

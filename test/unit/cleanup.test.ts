/**
 * The cleanup job's deletion of never-activated accounts (API.md §5.5, §7.1) with DynamoDB
 * mocked: the pending-registration entry follows the account through every write; the job
 * deletes accounts registered more than 30 days ago, and only those; an account activated,
 * changed or deleted between the job's read and its transaction is handled by the revision
 * condition (kept when active, deleted when still pending, counted as gone when deleted). The
 * table is a small fake that applies the writes and checks the conditions the plans use.
 */
import { ProvisionedThroughputExceededException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DeleteCommand, DynamoDBDocumentClient, GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { registrationCutoff, runCleanup } from '../../functions/jobs/cleanup.js';
import { commit, type WritePlan } from '../../shared/db/records.js';
import { deleteUserPlan, getUser, replaceUserPlan, type StoredUser } from '../../shared/db/users.js';
import { newAccount, withoutNonce } from '../../shared/domain/accounts.js';

const ddb = mockClient(DynamoDBDocumentClient);

type Row = Record<string, any>;
let table: Map<string, Row>;
const keyOf = (k: { pk: string; sk: string }) => `${k.pk}|${k.sk}`;
const rows = (pk: string) => [...table.values()].filter((r) => r.pk === pk).sort((a, b) => (a.sk < b.sk ? -1 : a.sk > b.sk ? 1 : 0));
const pendingEntries = () => rows('USER#PENDING').map((r) => r.sk as string);
const itemsOfUser = (id: string) => [...table.values()].filter((r) => JSON.stringify(r).includes(id));

/** The conditions the record plans write (records.ts); anything else fails the test. */
function holds(t: Row, current: Row | undefined): boolean {
  const expr: string | undefined = t.ConditionExpression;
  if (!expr) return true;
  const names = t.ExpressionAttributeNames ?? {};
  const values = t.ExpressionAttributeValues ?? {};
  if (expr === 'attribute_not_exists(pk)') return current === undefined;
  const eq = /^(#\w+) = (:\w+)$/.exec(expr);
  if (eq) return current !== undefined && current[names[eq[1]!]] === values[eq[2]!];
  throw new Error(`the fake table does not know the condition ${expr}`);
}

/** A hook run once before the next transaction is applied (another request's write, in between). */
let beforeNextTransaction: (() => void) | null = null;

function transact(input: Row): object {
  const hook = beforeNextTransaction;
  beforeNextTransaction = null;
  hook?.();
  const items: Row[] = input.TransactItems;
  const reasons = items.map((t) => {
    const op = t.Put ?? t.Delete ?? t.Update ?? t.ConditionCheck;
    const key = t.Put ? keyOf(t.Put.Item) : keyOf(op.Key);
    return holds(op, table.get(key)) ? { Code: 'None' } : { Code: 'ConditionalCheckFailed' };
  });
  if (reasons.some((r) => r.Code !== 'None')) {
    throw new TransactionCanceledException({ message: 'Transaction cancelled', $metadata: {}, CancellationReasons: reasons });
  }
  for (const t of items) {
    if (t.Put) table.set(keyOf(t.Put.Item), structuredClone(t.Put.Item));
    if (t.Delete) table.delete(keyOf(t.Delete.Key));
    if (t.Update) {
      const u = t.Update;
      const row = table.get(keyOf(u.Key)) ?? { ...u.Key };
      if (':d' in u.ExpressionAttributeValues) {
        // The counters: ADD n :d.
        row.n = (row.n ?? 0) + u.ExpressionAttributeValues[':d'];
      } else {
        // The auth state: SET #a = :v, …, #b = if_not_exists(#b, :w).
        for (const m of (u.UpdateExpression as string).matchAll(/(#\w+) = (if_not_exists\(#\w+, )?(:\w+)/g)) {
          const name = u.ExpressionAttributeNames[m[1]!];
          if (!(m[2] && name in row)) row[name] = u.ExpressionAttributeValues[m[3]!];
        }
      }
      table.set(keyOf(u.Key), row);
    }
  }
  return {};
}

/** Applies plans to the fake table directly (another request's transaction). */
const apply = (...plans: WritePlan[]) => transact({ TransactItems: plans.flatMap((p) => p.items) });

const NOW = new Date('2026-03-01T12:00:00.000Z');
const daysAgo = (d: number) => new Date(NOW.getTime() - d * 86_400_000).toISOString();
let serial = 0;

/** A registration (as POST /api/users/ commits it) made `days` days before NOW. */
async function register(days: number): Promise<StoredUser> {
  serial += 1;
  const account = newAccount(
    { email: `pending${serial}@example.org`, username: `pending${serial}`, passwordHash: 'scrypt$17$8$1$x$y', active: false, nonces: { activation: `n${serial}` } },
    daysAgo(days),
  );
  await commit(...account.plans);
  return (await getUser(account.user.id))!;
}

/** What activation (functions/users/activation.ts) writes. */
function activationPlan(user: StoredUser): WritePlan {
  const at = NOW.toISOString();
  return replaceUserPlan(user, { ...user.record, is_active: true, updated_at: at }, { ...withoutNonce(user.priv, 'activation'), activated_at: at });
}

const run = () => runCleanup({ clock: () => NOW });

beforeEach(() => {
  table = new Map();
  beforeNextTransaction = null;
  ddb.reset();
  ddb.on(GetCommand).callsFake(async (input: Row) => {
    const row = table.get(keyOf(input.Key));
    return row ? { Item: structuredClone(row) } : {};
  });
  ddb.on(BatchGetCommand).callsFake(async (input: Row) => {
    const [name, request] = Object.entries(input.RequestItems as Record<string, { Keys: { pk: string; sk: string }[] }>)[0]!;
    return { Responses: { [name]: request.Keys.flatMap((k) => (table.has(keyOf(k)) ? [structuredClone(table.get(keyOf(k)))] : [])) } };
  });
  ddb.on(QueryCommand).callsFake(async (input: Row) => {
    const v = input.ExpressionAttributeValues;
    let items = rows(v[':pk']);
    if (v[':before'] !== undefined) items = items.filter((r) => r.sk < v[':before']);
    const start = input.ExclusiveStartKey?.sk as string | undefined;
    if (start !== undefined) items = items.filter((r) => r.sk > start);
    const page = input.Limit ? items.slice(0, input.Limit) : items;
    const more = input.Limit !== undefined && items.length > input.Limit;
    return { Items: structuredClone(page), ...(more ? { LastEvaluatedKey: { pk: v[':pk'], sk: page.at(-1)!.sk } } : {}) };
  });
  ddb.on(TransactWriteCommand).callsFake(async (input: Row) => transact(input));
  ddb.on(DeleteCommand).callsFake(async (input: Row) => {
    table.delete(keyOf(input.Key));
    return {};
  });
});

describe('the pending-registration entry follows the account', () => {
  it('registration writes it (created_at#id); an account created active has none', async () => {
    const pending = await register(0);
    expect(pendingEntries()).toEqual([`${pending.record.created_at}#${pending.record.id}`]);
    // …and the auth state, at the user's revision.
    expect(table.get(`AUTH#${pending.record.id}|A`)).toMatchObject({ user_id: pending.record.id, is_active: false, token_version: 0, rev: 1, revoked_families: {} });
    const active = newAccount({ email: 'a@example.org', username: 'active1', passwordHash: null, active: true });
    await commit(...active.plans);
    expect(pendingEntries()).toHaveLength(1);
  });

  it('activation (by token, by an administrator, by social sign-in: all set activated_at) removes it in the same transaction', async () => {
    const user = await register(1);
    const plan = activationPlan(user);
    expect(plan.items).toContainEqual({ Delete: expect.objectContaining({ Key: { pk: 'USER#PENDING', sk: `${user.record.created_at}#${user.record.id}` } }) });
    apply(plan);
    expect(pendingEntries()).toEqual([]);
  });

  it('other writes of a pending account keep it; deleting the account removes it', async () => {
    const user = await register(1);
    apply(replaceUserPlan(user, user.record, { ...user.priv, nonces: { activation: 'newer' } }));
    expect(pendingEntries()).toHaveLength(1);
    apply(deleteUserPlan((await getUser(user.record.id))!));
    expect(pendingEntries()).toEqual([]);
  });

  it('deactivating an account that was active once adds none (it is not a pending registration)', async () => {
    const account = newAccount({ email: 'b@example.org', username: 'active2', passwordHash: null, active: true });
    await commit(...account.plans);
    const user = (await getUser(account.user.id))!;
    apply(replaceUserPlan(user, { ...user.record, is_active: false }, { ...user.priv, token_version: 1 }));
    expect(pendingEntries()).toEqual([]);
  });
});

describe('runCleanup', () => {
  it('deletes a registration older than 30 days with its profile, claims and entries; keeps a newer one; sends no e-mail', async () => {
    const old = await register(31);
    const recent = await register(29);
    const userCount = () => table.get('USER#N|N')?.n;
    expect(userCount()).toBe(2);

    expect(await run()).toEqual({ deleted: 1 });

    expect(itemsOfUser(old.record.id)).toEqual([]);
    expect(table.has(`USER#U#username#${old.record.username}|U`)).toBe(false);
    expect(table.has(`USER#U#email#${old.record.email}|U`)).toBe(false);
    expect(userCount()).toBe(1);
    expect(table.get('PROFILE#N|N')?.n).toBe(1);
    expect(await getUser(recent.record.id)).not.toBeNull();
    expect(pendingEntries()).toEqual([`${recent.record.created_at}#${recent.record.id}`]);
    expect([...table.keys()].filter((k) => k.startsWith('OUTBOX#'))).toEqual([]);
    // The deletion is conditioned on the revision read.
    const deletion = ddb.commandCalls(TransactWriteCommand).at(-1)!.args[0].input.TransactItems as Row[];
    expect(deletion).toContainEqual({ Delete: expect.objectContaining({ Key: { pk: `USER#${old.record.id}`, sk: 'R' }, ConditionExpression: '#rev = :rev', ExpressionAttributeValues: { ':rev': 1 } }) });
  });

  it('the boundary is 30 days to the millisecond', async () => {
    const user = await register(30);
    expect(user.record.created_at).toBe(registrationCutoff(NOW));
    expect(await run()).toEqual({});
    expect(await getUser(user.record.id)).not.toBeNull();
    expect(await runCleanup({ clock: () => new Date(NOW.getTime() + 1) })).toEqual({ deleted: 1 });
  });

  it('an account activated between the read and the deletion is kept (the revision condition fails, the new read sees it active)', async () => {
    const user = await register(40);
    beforeNextTransaction = () => apply(activationPlan(user));
    expect(await run()).toEqual({ activated: 1 });
    const after = (await getUser(user.record.id))!;
    expect(after.record.is_active).toBe(true);
    expect(after.rev).toBe(2);
    expect(pendingEntries()).toEqual([]);
    // One deletion attempted and refused; none after.
    const deletesUser = (c: { args: [{ input: Row }] }) => (c.args[0].input.TransactItems as Row[]).some((t) => t.Delete?.Key.pk === `USER#${user.record.id}`);
    expect(ddb.commandCalls(TransactWriteCommand).filter((c) => deletesUser(c as never))).toHaveLength(1);
  });

  it('an account changed but still pending meanwhile (a new activation e-mail) is read again and deleted', async () => {
    const user = await register(40);
    beforeNextTransaction = () => apply(replaceUserPlan(user, { ...user.record, updated_at: NOW.toISOString() }, { ...user.priv, nonces: { activation: 'newer' } }));
    expect(await run()).toEqual({ deleted: 1 });
    expect(itemsOfUser(user.record.id)).toEqual([]);
    expect(pendingEntries()).toEqual([]);
  });

  it('an account deleted meanwhile (an administrator) is counted as gone', async () => {
    const user = await register(40);
    beforeNextTransaction = () => apply(deleteUserPlan(user));
    expect(await run()).toEqual({ gone: 1 });
    expect(pendingEntries()).toEqual([]);
  });

  it('an account that changes at every attempt is left for the next run', async () => {
    const user = await register(40);
    let rev = user;
    const change = () => {
      apply(replaceUserPlan(rev, rev.record, { ...rev.priv, nonces: { activation: `n${rev.rev}` } }));
      rev = { ...rev, rev: rev.rev + 1 };
      beforeNextTransaction = change;
    };
    beforeNextTransaction = change;
    expect(await run()).toEqual({ busy: 1 });
    beforeNextTransaction = null;
    expect(await getUser(user.record.id)).not.toBeNull();
    expect(pendingEntries()).toHaveLength(1);
    expect(await run()).toEqual({ deleted: 1 });
  });

  it('an entry whose account is active (a leftover) is removed; the account is kept', async () => {
    const user = await register(40);
    table.set(`USER#${user.record.id}|R`, { ...table.get(`USER#${user.record.id}|R`)!, rec: { ...user.record, is_active: true }, priv: { ...user.priv, activated_at: NOW.toISOString() } });
    expect(await run()).toEqual({ activated: 1 });
    expect(pendingEntries()).toEqual([]);
    expect(await getUser(user.record.id)).not.toBeNull();
  });

  it('reads page by page, oldest first; an error on one account does not stop the others', async () => {
    const users: StoredUser[] = [];
    for (let i = 0; i < 30; i++) users.push(await register(31 + i / 100));
    const failing = users[7]!.record.id;
    ddb.on(GetCommand, { Key: { pk: `USER#${failing}`, sk: 'R' } }).rejects(new ProvisionedThroughputExceededException({ message: 'slow down', $metadata: {} }));
    expect(await run()).toEqual({ deleted: 29, failed: 1 });
    expect(pendingEntries()).toEqual([`${users[7]!.record.created_at}#${failing}`]);
    expect(ddb.commandCalls(QueryCommand).filter((c) => c.args[0].input.ExpressionAttributeValues?.[':pk'] === 'USER#PENDING')).toHaveLength(2);
  });
});

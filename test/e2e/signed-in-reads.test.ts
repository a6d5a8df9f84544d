/**
 * Public reads with a token (API.md §2.1): the token must be valid even where none is needed,
 * a bad one is a 401 that takes precedence over 400 and 404 (§1.4), and a signed-in read costs
 * no more DynamoDB calls than an anonymous one (DESIGN.md §9: ≤ 2 per read) because the user's
 * auth state is read together with what the operation reads anyway.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../shared/db/sdk.js';
import { commit } from '../../shared/db/records.js';
import { getUser, replaceUserPlan } from '../../shared/db/users.js';
import { create, expectProblem, kind, minimal, send, uniqueName } from '../support/contract.js';
import { createTestUser, useServer } from '../support/server.js';

const server = useServer();
const k = kind('genres');

/** The DynamoDB operations made while `fn` runs (functions run in this process). */
async function dynamoCalls(fn: () => Promise<unknown>): Promise<string[]> {
  const calls: string[] = [];
  const name = `count-${Math.random()}`;
  db().middlewareStack.add(
    (next, context) => async (args) => {
      calls.push(String(context.commandName));
      return next(args);
    },
    { step: 'initialize', name },
  );
  try {
    await fn();
  } finally {
    db().middlewareStack.remove(name);
  }
  return calls;
}

let id: string;
let member: Awaited<ReturnType<typeof createTestUser>>;
let revoked: Awaited<ReturnType<typeof createTestUser>>;

beforeAll(async () => {
  const contributor = await server.user('contributor');
  id = (await create(server, k, contributor.auth, minimal(k, uniqueName('Signed')))).id;
  member = await createTestUser('member');
  revoked = await createTestUser('member');
  // Revoke every token of `revoked` (what a password change does): its token version moves on.
  const stored = (await getUser(revoked.id))!;
  await commit(replaceUserPlan(stored, stored.record, { ...stored.priv, token_version: 1 }));
});

describe('a valid token on public reads', () => {
  it('gets the same list and record as an anonymous caller, with an exact count', async () => {
    const anonymous = await send(server, 'GET', '/api/genres/');
    const signed = await send(server, 'GET', '/api/genres/', { headers: member.auth });
    expect(signed.status).toBe(200);
    expect(signed.body).toEqual(anonymous.body);
    expect(signed.body.count).toBe(1);
    const detail = await send(server, 'GET', `/api/genres/${id}/`, { headers: member.auth });
    expect(detail.status).toBe(200);
    expect(detail.body.id).toBe(id);
  });

  it('still gets 400 for a bad query and 404 for an unknown id', async () => {
    expectProblem(await send(server, 'GET', '/api/genres/?bogus=1', { headers: member.auth }), 400, 'invalid-query');
    expectProblem(await send(server, 'GET', '/api/genres/nope/', { headers: member.auth }), 404, 'not-found');
  });

  it('costs no more DynamoDB calls than an anonymous read', async () => {
    const list = (auth?: Record<string, string>) => send(server, 'GET', '/api/genres/', auth ? { headers: auth } : {});
    const detail = (auth?: Record<string, string>) => send(server, 'GET', `/api/genres/${id}/`, auth ? { headers: auth } : {});
    // A taxonomy page also reads its records (their counts, decision 76): one BatchGetItem either way.
    expect((await dynamoCalls(() => list())).sort()).toEqual(['BatchGetItemCommand', 'GetItemCommand', 'QueryCommand']);
    expect((await dynamoCalls(() => list(member.auth))).sort()).toEqual(['BatchGetItemCommand', 'BatchGetItemCommand', 'QueryCommand']);
    expect(await dynamoCalls(() => detail())).toEqual(['GetItemCommand']);
    expect(await dynamoCalls(() => detail(member.auth))).toEqual(['BatchGetItemCommand']);
    // A search has no exact count to read: the auth state is read alone (and the page's records, if any).
    const search = () => send(server, 'GET', '/api/genres/?q=zzznomatch', { headers: member.auth });
    expect((await dynamoCalls(search)).sort()).toEqual(['BatchGetItemCommand', 'QueryCommand']);
  });
});

describe('a revoked token on public reads', () => {
  it('→ 401 invalid-token on the list and the record', async () => {
    expectProblem(await send(server, 'GET', '/api/genres/', { headers: revoked.auth }), 401, 'invalid-token');
    expectProblem(await send(server, 'GET', `/api/genres/${id}/`, { headers: revoked.auth }), 401, 'invalid-token');
  });

  it('→ 401 even when the query is invalid or the id unknown (401 comes first)', async () => {
    expectProblem(await send(server, 'GET', '/api/genres/?bogus=1', { headers: revoked.auth }), 401, 'invalid-token');
    expectProblem(await send(server, 'GET', '/api/genres/?cursor=forged', { headers: revoked.auth }), 401, 'invalid-token');
    expectProblem(await send(server, 'GET', '/api/genres/nope!/', { headers: revoked.auth }), 401, 'invalid-token');
  });
});

/**
 * The catalogue CRUD pattern (API.md §4.0) on genres, themes, demographics, magazines and
 * producers: shapes, headers, PUT/PATCH semantics, deletion, conditional requests and path ids.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../shared/auth/roles.js';
import {
  KINDS,
  create,
  expectJson,
  expectProblem,
  expectRecord,
  expectedOrder,
  full,
  minimal,
  send,
  uniqueName,
  usersByRole,
  walk,
} from '../support/contract.js';
import { useServer } from '../support/server.js';

const server = useServer();
let users: Record<Role, Record<string, string>>;
beforeAll(async () => {
  users = await usersByRole(server);
});

describe.each(KINDS.map((k) => [k.segment, k] as const))('/api/%s/', (_segment, k) => {
  const collection = `/api/${k.segment}/`;
  const item = (id: string) => `/api/${k.segment}/${id}/`;
  const contrib = () => users.contributor;

  describe('create and read', () => {
    it('POST → 201 with the full detail shape, Location and ETag; omitted optional fields take their defaults', async () => {
      const name = uniqueName('Created');
      const res = await send(server, 'POST', collection, { body: minimal(k, name), headers: contrib() });
      const body = expectJson(res, 201);
      expectRecord(k, body, { name, ...k.required, ...k.defaults });
      for (const c of k.counters) expect(body[c]).toBe(0);
      expect(body.updated_at).toBe(body.created_at);
      expect(res.headers.get('location')).toBe(`${server.url}${item(body.id)}`);
      expect(res.headers.get('etag')).toMatch(/^"[^"]+"$/);
      expect(res.headers.get('cache-control')).toBe('no-store');
    });

    it('POST with every field stores them all', async () => {
      const b = full(k, uniqueName('Full'));
      const created = await create(server, k, contrib(), b);
      expectRecord(k, created, b);
      const got = expectJson(await send(server, 'GET', item(created.id)), 200);
      expect(got).toEqual(created);
    });

    it('GET → 200, the same representation, a strong ETag and Cache-Control: public, max-age=60', async () => {
      const res = await send(server, 'POST', collection, { body: full(k, uniqueName('Get')), headers: contrib() });
      const got = await send(server, 'GET', item(res.body.id));
      expect(expectJson(got, 200)).toEqual(res.body);
      expect(got.text).toBe(res.text);
      expect(got.headers.get('etag')).toMatch(/^"[^"]+"$/);
      expect(got.headers.get('etag')).toBe(res.headers.get('etag'));
      expect(got.headers.get('cache-control')).toBe('public, max-age=60');
      // Any caller may read, with or without a token.
      for (const role of ['member', 'administrator'] as const) {
        const again = await send(server, 'GET', item(res.body.id), { headers: users[role] });
        expect(again.status).toBe(200);
        expect(again.body).toEqual(res.body);
      }
    });

    it('GET list → 200 page with the record in the list shape (= detail shape), exact count', async () => {
      const before = expectJson(await send(server, 'GET', collection), 200);
      expect(Object.keys(before)).toEqual(['count', 'next', 'previous', 'results']);
      expect(Number.isInteger(before.count)).toBe(true);
      const created = await create(server, k, contrib(), full(k, uniqueName('Listed')));
      const list = await send(server, 'GET', `${collection}?limit=100`);
      expect(list.headers.get('cache-control')).toBe('public, max-age=60');
      expect(list.headers.get('etag')).toMatch(/^"[^"]+"$/);
      expect(list.body.count).toBe(before.count + 1);
      expect(list.body.previous).toBeNull();
      const { results } = await walk(server, `${collection}?limit=100`);
      expect(results).toHaveLength(before.count + 1);
      for (const r of results) expectRecord(k, r);
      expect(results.find((r) => r.id === created.id)).toEqual(created);
    });
  });

  describe('PUT', () => {
    it('replaces every writable field; omitted optional fields are reset to their defaults', async () => {
      const created = await create(server, k, contrib(), full(k, uniqueName('Put')));
      const name = uniqueName('Replaced');
      const res = await send(server, 'PUT', item(created.id), { body: minimal(k, name), headers: contrib() });
      const body = expectJson(res, 200);
      expectRecord(k, body, { id: created.id, name, ...k.required, ...k.defaults, created_at: created.created_at });
      expect(body.updated_at > created.updated_at).toBe(true);
      expect(res.headers.get('cache-control')).toBe('no-store');
      const got = await send(server, 'GET', item(created.id));
      expect(got.body).toEqual(body);
      expect(got.headers.get('etag')).toBe(res.headers.get('etag'));
    });

    it('sets every field that is sent', async () => {
      const created = await create(server, k, contrib(), minimal(k, uniqueName('PutAll')));
      const b = full(k, uniqueName('PutAll'));
      const body = expectJson(await send(server, 'PUT', item(created.id), { body: b, headers: contrib() }), 200);
      expectRecord(k, body, b);
    });

    it('requires the required fields', async () => {
      const created = await create(server, k, contrib(), full(k, uniqueName('PutReq')));
      const res = await send(server, 'PUT', item(created.id), { body: { ...k.filled }, headers: contrib() });
      const problem = expectProblem(res, 400, 'validation-error');
      expect(Object.keys(problem.errors).sort()).toEqual(['name', ...Object.keys(k.required)].sort());
      expect((await send(server, 'GET', item(created.id))).body).toEqual(created);
    });

    it('with identical values leaves updated_at unchanged', async () => {
      const b = full(k, uniqueName('PutSame'));
      const created = await create(server, k, contrib(), b);
      const body = expectJson(await send(server, 'PUT', item(created.id), { body: b, headers: contrib() }), 200);
      expect(body).toEqual(created);
    });
  });

  describe('PATCH', () => {
    it('changes only the fields present', async () => {
      const created = await create(server, k, contrib(), full(k, uniqueName('Patch')));
      const name = uniqueName('Patched');
      const res = await send(server, 'PATCH', item(created.id), { body: { name }, headers: contrib() });
      const body = expectJson(res, 200);
      expect(body).toEqual({ ...created, name, updated_at: body.updated_at });
      expect(body.updated_at > created.updated_at).toBe(true);
      expect(res.headers.get('cache-control')).toBe('no-store');
      const got = await send(server, 'GET', item(created.id));
      expect(got.body).toEqual(body);
      expect(got.headers.get('etag')).toBe(res.headers.get('etag'));
    });

    it.runIf(Object.keys(k.filled).length > 0)('changes an optional field alone', async () => {
      const created = await create(server, k, contrib(), minimal(k, uniqueName('PatchOpt')));
      const [field, value] = Object.entries(k.filled)[0]!;
      const body = expectJson(await send(server, 'PATCH', item(created.id), { body: { [field]: value }, headers: contrib() }), 200);
      expect(body).toEqual({ ...created, [field]: value, updated_at: body.updated_at });
      expect(body.updated_at > created.updated_at).toBe(true);
    });

    it('{} is a valid no-op that leaves updated_at unchanged', async () => {
      const created = await create(server, k, contrib(), full(k, uniqueName('Noop')));
      const res = await send(server, 'PATCH', item(created.id), { body: {}, headers: contrib() });
      expect(expectJson(res, 200)).toEqual(created);
      const got = await send(server, 'GET', item(created.id));
      expect(got.body).toEqual(created);
      expect(res.headers.get('etag')).toBe(got.headers.get('etag'));
    });

    it('an empty body is treated as {}', async () => {
      const created = await create(server, k, contrib(), full(k, uniqueName('Empty')));
      const res = await send(server, 'PATCH', item(created.id), { body: '', headers: contrib() });
      expect(expectJson(res, 200)).toEqual(created);
    });

    it('sending the current values leaves updated_at unchanged', async () => {
      const b = full(k, uniqueName('Same'));
      const created = await create(server, k, contrib(), b);
      const res = await send(server, 'PATCH', item(created.id), { body: { name: b.name }, headers: contrib() });
      expect(expectJson(res, 200)).toEqual(created);
    });
  });

  describe('DELETE', () => {
    it('→ 204 without body; then GET 404, a second DELETE 404, gone from the list and the count', async () => {
      const created = await create(server, k, contrib(), full(k, uniqueName('Doomed')));
      const before = (await send(server, 'GET', collection)).body.count;
      const res = await send(server, 'DELETE', item(created.id), { headers: contrib() });
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expect(res.headers.get('content-type')).toBeNull();
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('x-request-id')).toBeTruthy();
      expectProblem(await send(server, 'GET', item(created.id)), 404, 'not-found');
      expectProblem(await send(server, 'DELETE', item(created.id), { headers: contrib() }), 404, 'not-found');
      expectProblem(await send(server, 'PUT', item(created.id), { body: minimal(k, 'X'), headers: contrib() }), 404, 'not-found');
      expectProblem(await send(server, 'PATCH', item(created.id), { body: {}, headers: contrib() }), 404, 'not-found');
      const after = await walk(server, `${collection}?limit=100`);
      expect(after.pages[0]!.body.count).toBe(before - 1);
      expect(after.results.map((r) => r.id)).not.toContain(created.id);
      const search = await send(server, 'GET', `${collection}?q=${encodeURIComponent(created.name)}`);
      expect(search.body.results.map((r: any) => r.id)).not.toContain(created.id);
    });
  });

  describe('writes and lists', () => {
    it('a renamed record is found and ordered by its new name only', async () => {
      const created = await create(server, k, contrib(), minimal(k, uniqueName('Qwerty')));
      const newName = uniqueName('Asdfgh');
      await send(server, 'PATCH', item(created.id), { body: { name: newName }, headers: contrib() });
      const ids = async (q: string) => (await walk(server, `${collection}?q=${q}`)).results.map((r) => r.id);
      expect(await ids('qwerty')).not.toContain(created.id);
      expect(await ids('asdfgh')).toContain(created.id);
      const { results } = await walk(server, `${collection}?limit=100`);
      const renamed = results.find((r) => r.id === created.id);
      expect(renamed.name).toBe(newName);
      expect(results.filter((r) => r.id === created.id)).toHaveLength(1);
      const names = results.map((r) => r.name);
      expect(results.map((r) => r.id)).toEqual(expectedOrder(results, 'name', false).map((r) => r.id));
      expect(names).not.toContain(created.name);
    });

    it('concurrent creates of one name: exactly one wins, the others get 409 with its id', async () => {
      const name = uniqueName('Race');
      const before = (await send(server, 'GET', collection)).body.count;
      const all = await Promise.all([0, 1, 2, 3].map((i) => send(server, 'POST', collection, { body: minimal(k, i % 2 ? name.toUpperCase() : name), headers: contrib() })));
      const won = all.filter((r) => r.status === 201);
      expect(won).toHaveLength(1);
      for (const r of all.filter((x) => x.status !== 201)) expect(expectProblem(r, 409, 'conflict').existing_id).toBe(won[0]!.body.id);
      expect((await send(server, 'GET', collection)).body.count).toBe(before + 1);
    });

    it('concurrent creates of different names are all counted', async () => {
      const before = (await send(server, 'GET', collection)).body.count;
      const all = await Promise.all([0, 1, 2, 3].map(() => send(server, 'POST', collection, { body: minimal(k, uniqueName('Parallel')), headers: contrib() })));
      expect(all.map((r) => r.status)).toEqual([201, 201, 201, 201]);
      expect((await send(server, 'GET', collection)).body.count).toBe(before + 4);
    });

    it('concurrent writes with the same If-Match: one succeeds, the others get 412', async () => {
      const created = await create(server, k, contrib(), full(k, uniqueName('Lock')));
      const etag = (await send(server, 'GET', item(created.id))).headers.get('etag')!;
      const all = await Promise.all(
        [0, 1, 2].map(() => send(server, 'PATCH', item(created.id), { body: { name: uniqueName('Lock') }, headers: { ...contrib(), 'if-match': etag } })),
      );
      expect(all.filter((r) => r.status === 200)).toHaveLength(1);
      for (const r of all.filter((x) => x.status !== 200)) expectProblem(r, 412, 'precondition-failed');
      const winner = all.find((r) => r.status === 200)!;
      expect((await send(server, 'GET', item(created.id))).body).toEqual(winner.body);
    });
  });

  describe('conditional requests (§1.7)', () => {
    it('If-None-Match with the ETag, a weak form of it, a list containing it or * → 304 without body', async () => {
      const created = await create(server, k, contrib(), full(k, uniqueName('Cond')));
      const got = await send(server, 'GET', item(created.id));
      const etag = got.headers.get('etag')!;
      for (const inm of [etag, `W/${etag}`, `"nope", ${etag}`, '*']) {
        const res = await send(server, 'GET', item(created.id), { headers: { 'if-none-match': inm } });
        expect(res.status, inm).toBe(304);
        expect(res.text).toBe('');
        expect(res.headers.get('etag')).toBe(etag);
        expect(res.headers.get('cache-control')).toBe('public, max-age=60');
        expect(res.headers.get('x-request-id')).toBeTruthy();
      }
      const other = await send(server, 'GET', item(created.id), { headers: { 'if-none-match': '"something-else"' } });
      expect(other.status).toBe(200);
      expect(other.body).toEqual(created);
    });

    it('If-None-Match on a list → 304 while it is unchanged, 200 after a change', async () => {
      const first = await send(server, 'GET', collection);
      const etag = first.headers.get('etag')!;
      const same = await send(server, 'GET', collection, { headers: { 'if-none-match': etag } });
      expect(same.status).toBe(304);
      expect(same.headers.get('etag')).toBe(etag);
      await create(server, k, contrib(), minimal(k, uniqueName('Aaa')));
      const changed = await send(server, 'GET', collection, { headers: { 'if-none-match': etag } });
      expect(changed.status).toBe(200);
      expect(changed.headers.get('etag')).not.toBe(etag);
    });

    it.each(['PUT', 'PATCH', 'DELETE'])('%s with a mismatching If-Match → 412 and nothing changes', async (method) => {
      const created = await create(server, k, contrib(), full(k, uniqueName('Stale')));
      const etag = (await send(server, 'GET', item(created.id))).headers.get('etag')!;
      const body = method === 'DELETE' ? undefined : minimal(k, uniqueName('Other'));
      for (const ifMatch of ['"not-the-etag"', `W/${etag}`, `"x", "y"`]) {
        const res = await send(server, method, item(created.id), { body, headers: { ...contrib(), 'if-match': ifMatch } });
        expectProblem(res, 412, 'precondition-failed');
      }
      const after = await send(server, 'GET', item(created.id));
      expect(after.body).toEqual(created);
      expect(after.headers.get('etag')).toBe(etag);
    });

    it.each(['PUT', 'PATCH'])('%s with a matching If-Match (tag, tag in a list, *) succeeds and returns the new ETag', async (method) => {
      const created = await create(server, k, contrib(), full(k, uniqueName('Fresh')));
      let etag = (await send(server, 'GET', item(created.id))).headers.get('etag')!;
      for (const ifMatch of [(t: string) => t, (t: string) => `"zzz", ${t}`, () => '*']) {
        const res = await send(server, method, item(created.id), {
          body: minimal(k, uniqueName('Fresh')),
          headers: { ...contrib(), 'if-match': ifMatch(etag) },
        });
        expectJson(res, 200);
        const newTag = res.headers.get('etag')!;
        expect(newTag).not.toBe(etag);
        const got = await send(server, 'GET', item(created.id));
        expect(got.headers.get('etag')).toBe(newTag);
        expect(got.body).toEqual(res.body);
        etag = newTag;
      }
    });

    it('DELETE with a matching If-Match (tag or *) succeeds', async () => {
      const a = await create(server, k, contrib(), full(k, uniqueName('DelTag')));
      const etag = (await send(server, 'GET', item(a.id))).headers.get('etag')!;
      expect((await send(server, 'DELETE', item(a.id), { headers: { ...contrib(), 'if-match': etag } })).status).toBe(204);
      const b = await create(server, k, contrib(), full(k, uniqueName('DelStar')));
      expect((await send(server, 'DELETE', item(b.id), { headers: { ...contrib(), 'if-match': '*' } })).status).toBe(204);
      // `*` matches only an existing record.
      expectProblem(await send(server, 'DELETE', item(b.id), { headers: { ...contrib(), 'if-match': '*' } }), 404, 'not-found');
    });

    it('If-Match compares with the representation without `fields`', async () => {
      const created = await create(server, k, contrib(), full(k, uniqueName('Sparse')));
      const sparse = await send(server, 'GET', `${item(created.id)}?fields=name`);
      const fullTag = (await send(server, 'GET', item(created.id))).headers.get('etag')!;
      expect(sparse.headers.get('etag')).not.toBe(fullTag);
      const res = await send(server, 'PATCH', item(created.id), { body: {}, headers: { ...contrib(), 'if-match': sparse.headers.get('etag')! } });
      expectProblem(res, 412, 'precondition-failed');
      const ok = await send(server, 'PATCH', item(created.id), { body: {}, headers: { ...contrib(), 'if-match': fullTag } });
      expect(ok.status).toBe(200);
    });
  });

  describe('path ids (§1.3)', () => {
    let other: string;
    beforeAll(async () => {
      // A record of another kind: its id must not be found here.
      const otherKind = KINDS.find((x) => x.segment !== k.segment)!;
      other = (await create(server, otherKind, users.contributor, minimal(otherKind, uniqueName('Other kind')))).id;
    });
    const bad = () => [
      ['unknown', 'AAAAAAAAAAAAAAAAAAAAAA'],
      ['malformed (!)', 'abc!def'],
      ['malformed (65 characters)', 'a'.repeat(65)],
      ['malformed (percent-encoded)', '%E2%82%AC'],
      ['malformed (dot)', 'a.b'],
      ['of another kind', other],
    ];

    it('GET, PUT, PATCH and DELETE of an unknown, malformed or other-kind id → 404', async () => {
      for (const [what, id] of bad()) {
        for (const method of ['GET', 'PUT', 'PATCH', 'DELETE']) {
          const body = method === 'PUT' || method === 'PATCH' ? minimal(k, uniqueName('Nobody')) : undefined;
          const res = await send(server, method, item(id!), { body, headers: method === 'GET' ? {} : contrib() });
          expect(res.status, `${method} ${what}`).toBe(404);
          expectProblem(res, 404, 'not-found');
        }
      }
    });

    it('a 64-character id is well-formed but unknown → 404', async () => {
      expectProblem(await send(server, 'GET', item('a'.repeat(64))), 404, 'not-found');
    });
  });
});

describe('ordering by long names', () => {
  // Text ordering keys hold the first 1,000 UTF-8 bytes of N(name) (DynamoDB's sort key limit,
  // docs/decisions.md): 240 four-byte characters and a distinguishing letter still fit.
  it('names that differ only after 240 emoji are still ordered by name', async () => {
    const k = KINDS.find((x) => x.segment === 'magazines')!;
    const prefix = '\u{1F600}'.repeat(240);
    const r1 = await create(server, k, users.contributor, minimal(k, uniqueName('Long 1')));
    const r2 = await create(server, k, users.contributor, minimal(k, uniqueName('Long 2')));
    // The record with the larger id gets the smaller name, so an id tie-break shows.
    const [small, large] = r1.id < r2.id ? [r2, r1] : [r1, r2];
    await send(server, 'PATCH', `/api/magazines/${small.id}/`, { body: { name: `${prefix}a` }, headers: users.contributor });
    await send(server, 'PATCH', `/api/magazines/${large.id}/`, { body: { name: `${prefix}b` }, headers: users.contributor });
    const { results } = await walk(server, '/api/magazines/?limit=100');
    const ids = results.map((r) => r.id).filter((id) => id === small.id || id === large.id);
    expect(ids).toEqual([small.id, large.id]);
  });
});

/**
 * What each function's role may do to the table items (docs/decisions.md 67, G1–G3): every
 * statement on the table carries a `dynamodb:LeadingKeys` condition, and together the statements
 * of a function grant, per key pattern, exactly the actions its declaration names (`keys` of the
 * route, job or stream consumer, plus what infra/aws/access.ts adds by kind) — read from the
 * synthesized policies, evaluated as IAM evaluates them (an action on an item is allowed when
 * one statement has the action and a pattern its key matches, `StringLike`). No function that
 * anyone may call without signing in — and no catalogue function — may read a user record or an
 * e-mail claim (both hold the password hash); token checks may not write; members' review and
 * list functions may not put or delete title records.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOBS } from '../../functions/jobs/registry.js';
import { ROUTES } from '../../functions/registry.js';
import { STREAM_CONSUMERS } from '../../functions/streams/registry.js';
import { AUTHORIZER_KEYS, routeKeys } from '../../infra/aws/access.js';
import { allowedKey, matchesKeyPattern, TABLE_ACTIONS, type KeyGrants } from '../../shared/db/key-patterns.js';
import { newId } from '../../shared/ids.js';
import { asList, functionsOf, synth, type FunctionInfo, type Statement, type Synthesized } from './synth.js';

let s: Synthesized;
let fns: FunctionInfo[];

beforeAll(() => {
  // With a sender, so the mailer and the outbox job exist too.
  s = synth({ context: { stage: 'dev', mailFrom: 'noreply@example.org', frontendUrl: 'https://app.example.org' } });
  fns = functionsOf(s).filter((f) => f.component !== undefined);
});
afterAll(() => s?.dispose());

type Conditioned = Statement & { Condition?: Record<string, Record<string, unknown>> };

/** The statements of a function on table items (not on the stream). */
const itemStatements = (f: FunctionInfo) =>
  (f.statements as Conditioned[]).filter((st) => asList(st.Action).some((a) => (TABLE_ACTIONS as readonly string[]).includes(a.replace(/^dynamodb:/, ''))));

const leadingKeys = (st: Conditioned) => asList(st.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'] as string | string[] | undefined);

/** What a function's statements grant: per pattern, its actions (IAM names, sorted). */
function grantsOf(f: FunctionInfo): Record<string, string[]> {
  const out: Record<string, Set<string>> = {};
  for (const st of itemStatements(f)) for (const key of leadingKeys(st)) for (const a of asList(st.Action)) (out[key] ??= new Set()).add(a);
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, [...v].sort()]));
}

/** The same for a declaration. */
const asIam = (g: KeyGrants): Record<string, string[]> => Object.fromEntries(Object.entries(g).map(([k, actions]) => [k, actions.map((a) => `dynamodb:${a}`).sort()]));

/** Whether the function's role allows `action` on the item with partition key `key` (as IAM decides it). */
const allows = (f: FunctionInfo, action: string, key: string) =>
  itemStatements(f).some((st) => asList(st.Action).includes(`dynamodb:${action}`) && leadingKeys(st).some((p) => matchesKeyPattern(key, p)));

/** The LeadingKeys patterns of a function (empty: no access to items). */
const patternsOf = (f: FunctionInfo): string[] => Object.keys(grantsOf(f));

/** What each function's declaration grants. */
function declared(component: string): KeyGrants {
  const route = ROUTES.find((r) => r.name === component);
  if (route) return routeKeys(route);
  if (component === 'authorizer') return AUTHORIZER_KEYS;
  const job = JOBS.find((j) => `job.${j.name}` === component);
  if (job) return job.keys;
  const consumer = STREAM_CONSUMERS.find((c) => `stream.${c.name}` === component);
  if (consumer) return consumer.keys;
  return {};
}

const fn = (component: string) => fns.find((f) => f.component === component)!;

const ID = newId();
/** Items that hold a password hash: a user record and an e-mail claim; and the other private user items. */
const SECRET_KEYS = [`USER#${ID}`, 'USER#U#email#ann@example.org', 'USER#PENDING'];
const CATALOGUE = new Set(['genres', 'themes', 'demographics', 'producers', 'magazines', 'animes', 'characters', 'persons']);
const isPublic = (component: string) => ROUTES.find((r) => r.name === component)?.access === 'public';
const isCatalogue = (component: string) => CATALOGUE.has(component.split('.')[0]!);
const WRITES = ['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'];

describe('dynamodb:LeadingKeys and the actions per pattern', () => {
  it('every statement on table items is conditioned on the partition keys, and on a key being named at all', () => {
    const withTable = fns.filter((f) => itemStatements(f).length > 0);
    expect(withTable.length).toBeGreaterThan(ROUTES.length);
    for (const f of withTable) {
      for (const st of itemStatements(f)) {
        expect(leadingKeys(st).length, f.component).toBeGreaterThan(0);
        expect(st.Condition?.Null, f.component).toEqual({ 'dynamodb:LeadingKeys': 'false' });
        expect(asList(st.Action).every((a) => (TABLE_ACTIONS as readonly string[]).includes(a.replace(/^dynamodb:/, ''))), f.component).toBe(true);
      }
    }
  });

  it('per function, pattern → actions of the synthesized policies equals its declaration', () => {
    for (const f of fns.filter((x) => x.component !== 'signing-keys' && x.component !== 'catch-all')) {
      expect(grantsOf(f), f.component).toEqual(asIam(declared(f.component!)));
    }
  });

  it('each action is in one statement, with every pattern it is granted on: a call naming several items (BatchGetItem, BatchWriteItem) is allowed however DynamoDB matches its keys', () => {
    for (const f of fns) {
      const actions = itemStatements(f).flatMap((st) => asList(st.Action));
      expect(new Set(actions).size, f.component).toBe(actions.length);
    }
  });

  it('every role stays under IAM\'s limit of 10,240 characters of inline policy (counted without whitespace, every reference as a 150-character ARN)', () => {
    // A reference (Ref, Fn::GetAtt, Fn::Join…) becomes an ARN once deployed: the table's, a secret's, a log group's.
    const resolved = (v: unknown): unknown => {
      if (Array.isArray(v)) return v.map(resolved);
      if (v === null || typeof v !== 'object') return v;
      const keys = Object.keys(v);
      if (keys.length === 1 && (keys[0] === 'Ref' || keys[0]!.startsWith('Fn::'))) return 'x'.repeat(150);
      return Object.fromEntries(keys.map((k) => [k, resolved((v as Record<string, unknown>)[k])]));
    };
    const sizes = fns.map((f) => ({ component: f.component, size: f.policyDocuments.reduce((n, d) => n + JSON.stringify(resolved(d)).length, 0) }));
    const largest = sizes.reduce((a, b) => (b.size > a.size ? b : a));
    expect(largest.size, `largest: ${largest.component}`).toBeLessThan(10_240);
    // The policy with the most statements on the table is far below it too.
    expect(Math.max(...fns.map((f) => itemStatements(f).length))).toBeLessThanOrEqual(TABLE_ACTIONS.length);
    console.log(`largest inline policy: ${largest.component}, ${largest.size} characters`);
  });

  it('the functions without table access: the catch-all, the key bootstrap and the support endpoints', () => {
    const without = fns.filter((f) => itemStatements(f).length === 0).map((f) => f.component);
    expect(without.sort()).toEqual(['catch-all', 'signing-keys', 'support.docs', 'support.jwks', 'support.schema']);
  });
});

describe('what the roles may not do', () => {
  it('tokens.verify only reads: it cannot put, update or delete a refresh token or an auth state (issue 18)', () => {
    const verify = fn('tokens.verify');
    expect(grantsOf(verify)).toEqual({ 'AUTH#*': ['dynamodb:GetItem'], 'REFRESH#*': ['dynamodb:GetItem'], 'RATE#*': ['dynamodb:UpdateItem'] });
    for (const action of WRITES) {
      expect(allows(verify, action, `REFRESH#${ID}`), action).toBe(false);
      expect(allows(verify, action, `AUTH#${ID}`), action).toBe(false);
    }
    expect(allows(verify, 'GetItem', `REFRESH#${ID}`)).toBe(true);
    // Refresh spends tokens (UpdateItem) and stores the next (PutItem), and never deletes one.
    const refresh = fn('tokens.refresh');
    expect(allows(refresh, 'UpdateItem', `REFRESH#${ID}`)).toBe(true);
    expect(allows(refresh, 'DeleteItem', `REFRESH#${ID}`)).toBe(false);
    expect(allows(refresh, 'PutItem', `AUTH#${ID}`)).toBe(false);
  });

  it('member review and list-item functions cannot put or delete title records: reviews only read them, list items update their counters (issue 18)', () => {
    const record = { ANIME: `ANIME#${ID}`, MANGA: `MANGA#${ID}` };
    const reviews = ROUTES.filter((r) => r.name.startsWith('reviews.') && r.method !== 'GET');
    const items = ROUTES.filter((r) => /^playlists\.(anime|manga)list-(add|item-patch|item-delete)$/.test(r.name));
    expect(reviews).toHaveLength(6);
    expect(items).toHaveLength(6);
    for (const route of [...reviews, ...items]) {
      const f = fn(route.name);
      const kind = route.name.includes('manga') ? 'MANGA' : 'ANIME';
      for (const action of ['PutItem', 'DeleteItem', 'BatchWriteItem']) expect(allows(f, action, record[kind]), `${route.name} ${action}`).toBe(false);
      // Nor any other record of the catalogue.
      for (const other of ['GENRE', 'CHARACTER', 'PERSON', 'NEWS']) expect(WRITES.some((a) => allows(f, a, `${other}#${ID}`)), `${route.name} ${other}`).toBe(false);
      expect(allows(f, 'BatchGetItem', record[kind]), route.name).toBe(true);
    }
    for (const route of reviews) {
      const f = fn(route.name);
      const kind = route.name.includes('manga') ? 'MANGA' : 'ANIME';
      // A creation checks in its transaction that the title exists; no review writes a title item.
      expect(allows(f, 'UpdateItem', record[kind]), route.name).toBe(false);
      expect(allows(f, 'ConditionCheckItem', record[kind]), route.name).toBe(route.name.endsWith('-create'));
    }
    for (const route of items) {
      const f = fn(route.name);
      const kind = route.name.includes('manga') ? 'MANGA' : 'ANIME';
      // The counters in the title's record item (UpdateItem), and the posting of who lists it.
      expect(allows(f, 'UpdateItem', record[kind]), route.name).toBe(true);
      const listed = `${record[kind]}#L`;
      expect(allows(f, route.name.endsWith('-item-delete') ? 'DeleteItem' : 'PutItem', listed), route.name).toBe(true);
      expect(allows(f, route.name.endsWith('-item-delete') ? 'PutItem' : 'DeleteItem', listed), route.name).toBe(false);
    }
  });

  it('GET functions write only where their operation does: counting a rate limit, a list or profile made on first use, the social sign-in state', () => {
    const writing = fns
      .filter((f) => ROUTES.find((r) => r.name === f.component)?.method === 'GET')
      .flatMap((f) => Object.entries(grantsOf(f)).flatMap(([pattern, actions]) => actions.filter((a) => WRITES.includes(a.replace('dynamodb:', ''))).map((a) => `${f.component} ${a} ${pattern}`)))
      .sort();
    expect(writing).toEqual(
      [
        'playlists.animelist-get dynamodb:UpdateItem ANIMELIST#*',
        'playlists.mangalist-get dynamodb:UpdateItem MANGALIST#*',
        'profiles.my-profile dynamodb:PutItem PROFILE#*',
        'profiles.my-profile dynamodb:UpdateItem PROFILE#*',
        'socials.start dynamodb:PutItem SOCIAL#STATE#*',
        'socials.start dynamodb:UpdateItem RATE#*',
      ].sort(),
    );
  });

  it('only the jobs and consumers that keep derived items write in batches (BatchWriteItem), on those items only', () => {
    const batch = fns.flatMap((f) => Object.entries(grantsOf(f)).filter(([, a]) => a.includes('dynamodb:BatchWriteItem')).map(([p]) => `${f.component} ${p}`));
    expect(batch.sort()).toEqual(
      [
        'job.rankings TOP#*',
        ...['ANIME#*', 'CHARACTER#*', 'MANGA#*', 'NEWS#*', 'PERSON#*', 'REVIEW#*', 'REVIEWS#*'].map((p) => `stream.relations ${p}`),
        // The compactor deletes the deltas a snapshot folded (index-deltas.ts deleteDeltas).
        ...['job.index-compaction', 'stream.index-compactor'].flatMap((f) => ['ANIME#IX', 'CHARACTER#IX', 'MANGA#IX', 'NEWS#IX', 'PERSON#IX'].map((p) => `${f} ${p}`)),
        // The rankings publish their numbers as a compaction of their four kinds (decision O13).
        ...['ANIME#IX', 'CHARACTER#IX', 'MANGA#IX', 'PERSON#IX'].map((p) => `job.rankings ${p}`),
      ].sort(),
    );
  });

  it('no public and no catalogue function may touch a user record, an e-mail claim or a pending registration', () => {
    const exposed = fns.filter((f) => isPublic(f.component!) || isCatalogue(f.component!));
    expect(exposed.length).toBe(ROUTES.filter((r) => r.access === 'public' || isCatalogue(r.name)).length);
    for (const f of exposed) {
      for (const key of SECRET_KEYS) expect(allowedKey(key, patternsOf(f)), `${f.component} ${key}`).toBe(false);
    }
    // What they do read: their own items, and on public routes the callers' auth states (with their own items).
    for (const f of exposed.filter((x) => isPublic(x.component!))) expect(allows(f, 'BatchGetItem', `AUTH#${ID}`), f.component).toBe(true);
    const about = fn('users.about');
    expect(allowedKey('USER#U#username#ann', patternsOf(about))).toBe(true);
    expect(WRITES.some((a) => allows(about, a, 'USER#U#username#ann'))).toBe(false);
  });

  it('the authorizer may read auth states, and nothing else', () => {
    const f = fn('authorizer');
    expect(grantsOf(f)).toEqual({ 'AUTH#*': ['dynamodb:GetItem'] });
    for (const key of [...SECRET_KEYS, `PROFILE#${ID}`, `REFRESH#${ID}`]) expect(allowedKey(key, patternsOf(f)), key).toBe(false);
  });

  it('the functions that may touch user records: the account flows, sign-in, social sign-in and the cleanup job', () => {
    const readers = fns.filter((f) => allowedKey(`USER#${ID}`, patternsOf(f))).map((f) => f.component);
    // The requests the mailer decides only queue their e-mail: no account item at all.
    const queuing = ['users.resend_activation', 'users.reset_password'];
    expect(readers.sort()).toEqual(
      [
        ...ROUTES.filter((r) => r.name.startsWith('users.') && !['users.about', 'users.reviews', 'users.list', ...queuing].includes(r.name)).map((r) => r.name),
        'tokens.create',
        'socials.finish',
        'job.cleanup',
        // They decide account requests (decision 61): a new token's nonce, a pending e-mail change.
        'stream.mailer',
        'job.outbox',
      ].sort(),
    );
    // Token checks, refresh and verify, and profiles need only auth states.
    for (const name of ['tokens.refresh', 'tokens.verify', 'profiles.my-profile', 'profiles.create', 'users.list']) {
      expect(readers, name).not.toContain(name);
    }
    // Reading an account is not changing it: the reads and the requests the mailer decides cannot write a user's items.
    for (const name of ['users.get', 'users.me_get', 'users.set_email', 'users.reset_email']) {
      expect(WRITES.some((a) => allows(fn(name), a, `USER#${ID}`)), name).toBe(false);
    }
    // The cleanup job lists the pending registrations, and queries no other user partition.
    expect(allows(fn('job.cleanup'), 'Query', 'USER#PENDING')).toBe(true);
    expect(allows(fn('job.cleanup'), 'Query', `USER#${ID}`)).toBe(false);
  });

  it('the mailer and the outbox job touch the outbox, the recipients\' counters and the accounts requests are decided on, nothing else', () => {
    for (const component of ['stream.mailer', 'job.outbox']) {
      const f = fn(component);
      expect([...patternsOf(f)].sort(), component).toEqual(component === 'job.outbox' ? ['AUTH#*', 'OUTBOX#*', 'OUTBOX#DUE', 'RATE#*', 'USER#*'] : ['AUTH#*', 'OUTBOX#*', 'RATE#*', 'USER#*']);
      // An account request changes a user (a nonce, a pending e-mail): never deletes one.
      expect(allows(f, 'DeleteItem', `USER#${ID}`), component).toBe(false);
      expect(allows(f, 'DeleteItem', `AUTH#${ID}`), component).toBe(false);
    }
  });
});

describe('StringLike patterns', () => {
  it('match as IAM does: `*` any run (none included), `?` one character, the rest literally and case-sensitively', () => {
    expect(matchesKeyPattern('USER#U#username#ann', 'USER#U#username#*')).toBe(true);
    expect(matchesKeyPattern('USER#U#email#ann@example.org', 'USER#U#username#*')).toBe(false);
    expect(matchesKeyPattern('USER#U#email#ann@example.org', 'USER#*')).toBe(true);
    expect(matchesKeyPattern('USER#N', 'USER#N')).toBe(true);
    expect(matchesKeyPattern('USER#NN', 'USER#N')).toBe(false);
    expect(matchesKeyPattern('user#n', 'USER#N')).toBe(false);
    expect(matchesKeyPattern('AUTH#', 'AUTH#*')).toBe(true);
    expect(matchesKeyPattern('GENRE#O#name#A', 'GENRE#O#*#A')).toBe(true);
    expect(matchesKeyPattern('GENRE#O#name#D', 'GENRE#O#*#A')).toBe(false);
    expect(matchesKeyPattern('AB', 'A?')).toBe(true);
    expect(matchesKeyPattern('A', 'A?')).toBe(false);
    // A list's posting of who lists a title, not the title's record.
    expect(matchesKeyPattern(`ANIME#${ID}#L`, 'ANIME#*#L')).toBe(true);
    expect(matchesKeyPattern(`ANIME#${ID}`, 'ANIME#*#L')).toBe(false);
    // Regular-expression characters are literal.
    expect(matchesKeyPattern('SOCIAL#LINK#x#https://idp.example.org#1', 'SOCIAL#LINK#*')).toBe(true);
    expect(matchesKeyPattern('A.B', 'A.B')).toBe(true);
    expect(matchesKeyPattern('AxB', 'A.B')).toBe(false);
    expect(matchesKeyPattern('A\nB', 'A*')).toBe(true);
  });
});

/**
 * Which items each function's role may touch (docs/decisions.md): every statement on the table
 * carries a `dynamodb:LeadingKeys` condition with the patterns derived from the function's
 * declaration (infra/aws/access.ts), and no function that anyone may call without signing in —
 * and no catalogue function — may read a user record or an e-mail claim (both hold the password
 * hash), which the patterns are tried against, as IAM's StringLike compares them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOBS } from '../../functions/jobs/registry.js';
import { ROUTES } from '../../functions/registry.js';
import { STREAM_CONSUMERS } from '../../functions/streams/registry.js';
import { AUTHORIZER_KEYS, routeKeys } from '../../infra/aws/access.js';
import { allowedKey, matchesKeyPattern } from '../../shared/db/key-patterns.js';
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
  (f.statements as Conditioned[]).filter((st) => asList(st.Action).some((a) => ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query'].includes(a)));

/** The LeadingKeys patterns of a function (empty: no access to items). */
function patternsOf(f: FunctionInfo): string[] {
  return itemStatements(f).flatMap((st) => asList(st.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'] as string | string[] | undefined));
}

/** What each function's declaration grants. */
function declared(component: string): readonly string[] {
  const route = ROUTES.find((r) => r.name === component);
  if (route) return routeKeys(route);
  if (component === 'authorizer') return AUTHORIZER_KEYS;
  const job = JOBS.find((j) => `job.${j.name}` === component);
  // A job's statements: its keys (read and write) and its read-only keys.
  if (job) return [...job.keys, ...(job.readKeys ?? [])];
  const consumer = STREAM_CONSUMERS.find((c) => `stream.${c.name}` === component);
  if (consumer) return consumer.keys;
  return [];
}

const ID = newId();
/** Items that hold a password hash: a user record and an e-mail claim; and the other private user items. */
const SECRET_KEYS = [`USER#${ID}`, 'USER#U#email#ann@example.org', 'USER#PENDING'];
const CATALOGUE = new Set(['genres', 'themes', 'demographics', 'producers', 'magazines', 'animes', 'characters', 'persons']);
const isPublic = (component: string) => ROUTES.find((r) => r.name === component)?.access === 'public';
const isCatalogue = (component: string) => CATALOGUE.has(component.split('.')[0]!);

describe('dynamodb:LeadingKeys', () => {
  it('every statement on table items is conditioned on the partition keys the declaration names, and on a key being named at all', () => {
    const withTable = fns.filter((f) => itemStatements(f).length > 0);
    expect(withTable.length).toBeGreaterThan(ROUTES.length);
    for (const f of withTable) {
      for (const st of itemStatements(f)) {
        const keys = st.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'];
        expect(asList(keys as string[]).length, f.component).toBeGreaterThan(0);
        expect(st.Condition?.Null, f.component).toEqual({ 'dynamodb:LeadingKeys': 'false' });
      }
      expect(patternsOf(f).sort(), f.component).toEqual([...declared(f.component!)].sort());
    }
  });

  it('the functions without table access: the catch-all, the key bootstrap and the support endpoints', () => {
    const without = fns.filter((f) => itemStatements(f).length === 0).map((f) => f.component);
    expect(without.sort()).toEqual(['catch-all', 'signing-keys', 'support.docs', 'support.jwks', 'support.schema']);
  });

  it('no public and no catalogue function may touch a user record, an e-mail claim or a pending registration', () => {
    const exposed = fns.filter((f) => isPublic(f.component!) || isCatalogue(f.component!));
    expect(exposed.length).toBe(ROUTES.filter((r) => r.access === 'public' || isCatalogue(r.name)).length);
    for (const f of exposed) {
      for (const key of SECRET_KEYS) expect(allowedKey(key, patternsOf(f)), `${f.component} ${key}`).toBe(false);
    }
    // What they do read: their own items, and on public routes the callers' auth states.
    for (const f of exposed.filter((x) => isPublic(x.component!))) expect(allowedKey(`AUTH#${ID}`, patternsOf(f)), f.component).toBe(true);
    const about = fns.find((f) => f.component === 'users.about')!;
    expect(allowedKey('USER#U#username#ann', patternsOf(about))).toBe(true);
  });

  it('the authorizer may read auth states, and nothing else', () => {
    const f = fns.find((x) => x.component === 'authorizer')!;
    expect(patternsOf(f)).toEqual(['AUTH#*']);
    expect(allowedKey(`AUTH#${ID}`, patternsOf(f))).toBe(true);
    for (const key of [...SECRET_KEYS, `PROFILE#${ID}`, `REFRESH#${ID}`]) expect(allowedKey(key, patternsOf(f)), key).toBe(false);
  });

  it('the functions that may touch user records: the account flows, sign-in, social sign-in and the cleanup job', () => {
    const readers = fns.filter((f) => allowedKey(`USER#${ID}`, patternsOf(f))).map((f) => f.component);
    expect(readers.sort()).toEqual(
      [
        ...ROUTES.filter((r) => r.name.startsWith('users.') && !['users.about', 'users.reviews', 'users.list'].includes(r.name)).map((r) => r.name),
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
  });

  it('the mailer and the outbox job touch the outbox, the recipients\' counters and the accounts requests are decided on, nothing else', () => {
    for (const component of ['stream.mailer', 'job.outbox']) {
      const f = fns.find((x) => x.component === component)!;
      expect([...patternsOf(f)].sort(), component).toEqual(['AUTH#*', 'OUTBOX#*', 'RATE#*', 'USER#*']);
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
    // Regular-expression characters are literal.
    expect(matchesKeyPattern('SOCIAL#LINK#x#https://idp.example.org#1', 'SOCIAL#LINK#*')).toBe(true);
    expect(matchesKeyPattern('A.B', 'A.B')).toBe(true);
    expect(matchesKeyPattern('AxB', 'A.B')).toBe(false);
    expect(matchesKeyPattern('A\nB', 'A*')).toBe(true);
  });
});

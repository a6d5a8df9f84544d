/**
 * The declared routes against the specification (docs/spec/operations.tsv, a copy of the
 * contract's operation list, and docs/spec/extensions.tsv, the operations of API.md §8), and
 * each declaration against its handler module.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OPERATIONS, ROUTES } from '../../functions/registry.js';
import { POLICIES, routePolicies } from '../../shared/http/rate-limits.js';
import { needsAuthorizer, routeEntry } from '../../shared/http/route.js';
import { SPEC_OPERATIONS, specFile } from '../support/spec.js';

const seed = specFile('operations.tsv').map((o) => o.key);
const spec = SPEC_OPERATIONS.map((o) => o.key);

describe('declared operations', () => {
  it('the repository copies of the operation lists are the contract’s', () => {
    for (const file of ['operations.tsv', 'extensions.tsv']) {
      const upstream = new URL(`../../../shared/spec/${file}`, import.meta.url);
      if (existsSync(upstream)) expect(readFileSync(new URL(`../../docs/spec/${file}`, import.meta.url), 'utf8'), file).toBe(readFileSync(upstream, 'utf8'));
    }
    expect(seed).toHaveLength(151);
    expect(specFile('extensions.tsv')).toHaveLength(2);
  });

  it('the declared operations are exactly the specification’s 151 and the 2 extensions, each once', () => {
    const declared = OPERATIONS.map((r) => `${r.method} ${r.path}`);
    expect(declared.filter((d) => !spec.includes(d))).toEqual([]);
    expect(new Set(declared).size).toBe(declared.length);
    // Exactly the operations of the specification: none missing.
    expect(spec.filter((s) => !declared.includes(s))).toEqual([]);
    expect(declared).toHaveLength(153);
  });

  it('route names are unique and every route has its handler module', async () => {
    const names = ROUTES.map((r) => r.name);
    expect(new Set(names).size).toBe(names.length);
    for (const route of ROUTES) {
      const mod = (await import(new URL(`../../${routeEntry(route)}`, import.meta.url).href)) as { handler?: unknown };
      expect(typeof mod.handler, routeEntry(route)).toBe('function');
    }
  });

  it('rate limits per user only on signed-in routes, per e-mail address only on routes with a body', () => {
    for (const route of ROUTES) {
      const dimensions = new Set<string>(routePolicies(route).flatMap((decl) => POLICIES[decl.policy].map((l) => l.dimension)));
      // A public route learns its caller only after the request has been read (too late for 429).
      if (dimensions.has('user')) expect(needsAuthorizer(route), route.name).toBe(true);
      if (dimensions.has('email')) expect(route.body, route.name).toBeDefined();
    }
  });

  it('API.md §7.2 catalogue write: every POST, PUT, PATCH and DELETE of the ten catalogue and taxonomy collections and create-picture, nothing else; a route names a policy once', () => {
    const COLLECTIONS = ['animes', 'mangas', 'characters', 'persons', 'news', 'genres', 'themes', 'demographics', 'producers', 'magazines'];
    const counted = ROUTES.filter((r) => routePolicies(r).some((d) => d.policy === 'catalogue-write')).map((r) => r.name);
    // The collections' groups (a review's paths are under /api/animes/ and /api/mangas/, but reviews are no collection's writes).
    const writes = ROUTES.filter((r) => r.method !== 'GET' && COLLECTIONS.includes(r.name.split('.')[0]!));
    expect(writes.map((r) => r.name).sort()).toEqual([...COLLECTIONS.flatMap((c) => ['create', 'put', 'patch', 'delete'].map((op) => `${c}.${op}`)), 'persons.create-picture'].sort());
    expect(counted.sort()).toEqual(writes.map((r) => r.name).sort());
    for (const name of ['reviews.anime-create', 'reviews.manga-patch', 'playlists.animelist-add', 'users.me_patch']) expect(counted).not.toContain(name);
    for (const route of ROUTES) {
      const policies = routePolicies(route).map((d) => d.policy);
      expect(new Set(policies).size, route.name).toBe(policies.length);
    }
    expect(routePolicies(ROUTES.find((r) => r.name === 'persons.create-picture')!).map((d) => d.policy)).toEqual(['upload', 'catalogue-write']);
  });

  it('`uses` without repeats, client secrets only with the providers', () => {
    for (const route of ROUTES) {
      const uses = route.uses ?? [];
      expect(new Set(uses).size, route.name).toBe(uses.length);
      if (uses.includes('social-secrets')) expect(uses, route.name).toContain('social-providers');
    }
  });
});

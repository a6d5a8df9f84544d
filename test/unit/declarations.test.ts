/**
 * The declared routes against the specification (docs/spec/operations.tsv, a copy of the
 * contract's operation list), and each declaration against its handler module.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OPERATIONS, ROUTES } from '../../functions/registry.js';
import { POLICIES } from '../../shared/http/rate-limits.js';
import { needsAuthorizer, routeEntry } from '../../shared/http/route.js';

const spec = readFileSync(new URL('../../docs/spec/operations.tsv', import.meta.url), 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => {
    const [method, path] = l.split('\t');
    return `${method} ${path}`;
  });

describe('declared operations', () => {
  it('the repository copy of the operation list is the contract’s', () => {
    const upstream = new URL('../../../shared/spec/operations.tsv', import.meta.url);
    if (existsSync(upstream)) expect(readFileSync(new URL('../../docs/spec/operations.tsv', import.meta.url), 'utf8')).toBe(readFileSync(upstream, 'utf8'));
    expect(spec).toHaveLength(151);
  });

  it('the declared operations are exactly the specification’s 151, each once', () => {
    const declared = OPERATIONS.map((r) => `${r.method} ${r.path}`);
    expect(declared.filter((d) => !spec.includes(d))).toEqual([]);
    expect(new Set(declared).size).toBe(declared.length);
    // Exactly the operations of the specification: none missing.
    expect(spec.filter((s) => !declared.includes(s))).toEqual([]);
    expect(declared).toHaveLength(151);
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
      const dimensions = new Set<string>(route.rateLimit ? POLICIES[route.rateLimit.policy].map((l) => l.dimension) : []);
      // A public route learns its caller only after the request has been read (too late for 429).
      if (dimensions.has('user')) expect(needsAuthorizer(route), route.name).toBe(true);
      if (dimensions.has('email')) expect(route.body, route.name).toBeDefined();
    }
  });

  it('`writes` only on GET routes (every other method may write anyway); `uses` without repeats, client secrets only with the providers', () => {
    for (const route of ROUTES) {
      if (route.writes !== undefined) expect(route.method, route.name).toBe('GET');
      const uses = route.uses ?? [];
      expect(new Set(uses).size, route.name).toBe(uses.length);
      if (uses.includes('social-secrets')) expect(uses, route.name).toContain('social-providers');
    }
  });
});

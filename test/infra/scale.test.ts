/**
 * CloudFormation allows 500 resources per stack (DESIGN.md §7). The app as declared today, and
 * the app with all 153 operations of docs/spec/ declared (operations.tsv and extensions.tsv; synthetic declarations:
 * method and path from the list, group = first path segment after /api/, public GETs and
 * contributor writes), keep every stack, root and nested, well below it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Router } from '../../shared/http/router.js';
import { needsAuthorizer, type Method, type RouteDecl } from '../../shared/http/route.js';
import { synth, type Synthesized } from './synth.js';

const LIMIT = 500;

function syntheticRoutes(): RouteDecl[] {
  const lines = ['operations.tsv', 'extensions.tsv'].flatMap((file) =>
    readFileSync(new URL(`../../docs/spec/${file}`, import.meta.url), 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== ''),
  );
  const perGroup = new Map<string, number>();
  return lines.map((line) => {
    const [method, path, summary] = line.split('\t') as [Method, string, string];
    const group = path.split('/')[2]!;
    const n = (perGroup.get(group) ?? 0) + 1;
    perGroup.set(group, n);
    return {
      name: `${group}.op${n}`,
      method,
      path,
      access: method === 'GET' ? 'public' : 'contributor',
      summary,
      response: { status: 200, page: method === 'GET' && !path.endsWith('}/') },
      keys: { [`${group.toUpperCase()}#*`]: method === 'GET' ? ['GetItem', 'Query'] : ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'] },
    };
  });
}

function counts(s: Synthesized): Map<string, number> {
  return new Map([...s.templates].map(([stack, t]) => [stack.node.path, Object.keys(t.toJSON().Resources as object).length]));
}

function report(title: string, c: Map<string, number>): void {
  const lines = [...c].map(([path, n]) => `  ${path}: ${n}`);
  console.log(`${title}\n${lines.join('\n')}\n  total: ${[...c.values()].reduce((a, b) => a + b, 0)}`);
}

describe('resources per stack', () => {
  it('the declared routes: every stack under 500', { timeout: 180_000 }, () => {
    const s = synth();
    try {
      const c = counts(s);
      report('resources per stack (declared routes)', c);
      for (const [path, n] of c) expect(n, path).toBeLessThan(LIMIT);
    } finally {
      s.dispose();
    }
  });

  it('all 153 operations: every stack under 500, one function per operation', { timeout: 180_000 }, () => {
    const routes = syntheticRoutes();
    expect(routes).toHaveLength(153);
    // Synthetic names have no handler module: every function bundles an existing one.
    const s = synth({ routes, entry: () => 'functions/genres/get.ts' });
    try {
      const c = counts(s);
      report('resources per stack (153 operations)', c);
      for (const [path, n] of c) expect(n, path).toBeLessThan(LIMIT);
      expect(s.stack.groups.size).toBe(new Set(routes.map((r) => r.name.split('.')[0])).size);
      const functions = s.resources.filter((r) => r.type === 'AWS::Lambda::Function' && JSON.stringify(r.properties.Tags ?? []).includes('.op'));
      expect(functions).toHaveLength(153);
      const gateway = new Router(routes).gatewayRoutes();
      const routeResources = s.resources.filter((r) => r.type === 'AWS::ApiGatewayV2::Route');
      expect(routeResources).toHaveLength(gateway.length + 1);
      const protectedKeys = routeResources.filter((r) => r.properties.AuthorizationType === 'CUSTOM').map((r) => r.properties.RouteKey);
      expect(protectedKeys.sort()).toEqual(gateway.filter((g) => g.route && needsAuthorizer(g.route)).map((g) => `${g.method} ${g.path}`).sort());
      // Literal paths beside parameter paths (e.g. /api/users/activation/) get catch-all routes.
      expect(gateway.some((g) => g.route === null)).toBe(true);
    } finally {
      s.dispose();
    }
  });
});

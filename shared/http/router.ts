/**
 * Path matching over the declared routes, with API Gateway's rules (literal segments win over
 * parameters, one segment per parameter). Used by the catch-all function (404, 405 + Allow, 308
 * for a missing final slash, CORS preflight), by the local server, and by the CDK app to add the
 * routes that keep literal paths from being read as ids.
 */
import { METHODS, gatewayPath, pathParamNames, type Method, type RouteDecl } from './route.js';

/** What the router reads of a route: its method and path (the catch-all has nothing more, shared/package.ts). */
export interface RoutePath {
  method: Method;
  path: string;
}

interface Template<R extends RoutePath> {
  path: string;
  segments: string[];
  routes: Map<string, R>;
}

export type Match<R extends RoutePath = RouteDecl> =
  | { kind: 'route'; route: R; params: Record<string, string> }
  | { kind: 'method-not-allowed'; allow: string; path: string }
  | { kind: 'redirect'; location: string }
  | { kind: 'not-found' };

const isParam = (s: string) => s.startsWith('{');

export class Router<R extends RoutePath = RouteDecl> {
  private readonly templates: Template<R>[];

  constructor(routes: readonly R[]) {
    const byPath = new Map<string, Template<R>>();
    for (const route of routes) {
      let t = byPath.get(route.path);
      if (!t) {
        t = { path: route.path, segments: route.path.split('/').slice(1), routes: new Map() };
        byPath.set(route.path, t);
      }
      if (t.routes.has(route.method)) throw new Error(`${route.method} ${route.path} is declared twice`);
      t.routes.set(route.method, route);
    }
    // Most specific first: at the first differing segment, a literal beats a parameter.
    this.templates = [...byPath.values()].sort((a, b) => compareSpecificity(a.segments, b.segments));
  }

  /** The template a path belongs to, with its parameter values (segments are URL-decoded). */
  private find(path: string): { template: Template<R>; values: string[] } | null {
    if (!path.startsWith('/')) return null;
    // A path ending in "/" has a last, empty segment, so "/a/" and "/a" are different paths.
    const segments = path.split('/').slice(1);
    for (const template of this.templates) {
      if (template.segments.length !== segments.length) continue;
      const values: string[] = [];
      let ok = true;
      for (const [i, seg] of template.segments.entries()) {
        const actual = segments[i]!;
        if (isParam(seg)) {
          if (actual === '' || actual === '.' || actual === '..') ok = false;
          else values.push(safeDecode(actual));
        } else if (seg !== actual) ok = false;
        if (!ok) break;
      }
      if (ok) return { template, values };
    }
    return null;
  }

  /** The methods of the path, in `Allow` order, or null for an unknown path. */
  methodsFor(path: string): string | null {
    const found = this.find(path);
    return found ? allowHeader(found.template) : null;
  }

  match(method: string, path: string, rawQuery = ''): Match<R> {
    const found = this.find(path);
    if (!found) {
      if (!path.endsWith('/') && this.find(`${path}/`)) {
        return { kind: 'redirect', location: `${path}/${rawQuery ? `?${rawQuery}` : ''}` };
      }
      return { kind: 'not-found' };
    }
    const route = found.template.routes.get(method);
    if (!route) return { kind: 'method-not-allowed', allow: allowHeader(found.template), path: found.template.path };
    const names = pathParamNames(route.path);
    return { kind: 'route', route, params: Object.fromEntries(names.map((n, i) => [n, found.values[i]!])) };
  }

  /**
   * The API Gateway routes: every declared route, plus, for each literal path, the methods that
   * a parameter path beside it declares but it does not (e.g. `PUT /api/users/activation/`
   * would otherwise reach `PUT /api/users/{id}/`). Those extra routes go to the catch-all
   * function, which answers 405.
   */
  gatewayRoutes(): { method: Method; path: string; route: R | null }[] {
    const out: { method: Method; path: string; route: R | null }[] = [];
    for (const t of this.templates) {
      for (const route of t.routes.values()) out.push({ method: route.method, path: gatewayPath(t.path), route });
      const shadowed = new Set<Method>();
      for (const other of this.templates) {
        if (other !== t && shadows(other.segments, t.segments)) for (const m of other.routes.keys()) shadowed.add(m as Method);
      }
      for (const m of METHODS) if (shadowed.has(m) && !t.routes.has(m)) out.push({ method: m, path: gatewayPath(t.path), route: null });
    }
    return out;
  }
}

/** `Allow` lists the path's methods in the order GET, POST, PUT, PATCH, DELETE (§1.1). */
function allowHeader(t: Template<RoutePath>): string {
  return METHODS.filter((m) => t.routes.has(m)).join(', ');
}

function compareSpecificity(a: string[], b: string[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const pa = isParam(a[i]!);
    const pb = isParam(b[i]!);
    if (pa !== pb) return pa ? 1 : -1;
  }
  return a.length - b.length;
}

/** True when every path of `literal` would also match `general` (a parameter template). */
function shadows(general: string[], literal: string[]): boolean {
  if (general.length !== literal.length) return false;
  let wider = false;
  for (const [i, g] of general.entries()) {
    const l = literal[i]!;
    if (isParam(g)) {
      if (!isParam(l)) wider = true;
    } else if (isParam(l) || g !== l) return false;
  }
  return wider;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

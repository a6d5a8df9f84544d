/**
 * The local API Gateway: an HTTP server that does what the deployed HTTP API does with a
 * request. It selects the route from the same declarations (a declared route, else the default
 * route: the catch-all function), turns the request into the payload 2.0 event, runs the Lambda
 * authorizer for protected routes with the settings of infra/api-config.ts (deny → 403, missing
 * identity source → 401, errors → 500, as API Gateway answers them), and invokes the route's
 * handler module in this process.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { gatewayEvents, lambdaContext, loadHandler } from './functions.js';
import { AUTHORIZER_ENTRY, CATCH_ALL_ENTRY, ROUTES } from '../../functions/registry.js';
import type { ApiResult } from '../../shared/http/handler.js';
import { Router } from '../../shared/http/router.js';
import { needsAuthorizer, routeEntry, type RouteDecl } from '../../shared/http/route.js';
import { AUTHORIZER } from '../api-config.js';

/** HTTP API payload limit. */
const MAX_PAYLOAD = 10 * 1024 * 1024;

function gatewayError(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'apigw-requestid': randomUUID() });
  res.end(JSON.stringify({ message }));
}

function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_PAYLOAD) chunks.push(c);
    });
    req.on('end', () => resolve(size > MAX_PAYLOAD ? null : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}


export interface Gateway {
  url: string;
  port: number;
  close(): Promise<void>;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address();
      resolve(address && typeof address !== 'string' ? address.port : port);
    });
  });
}

const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

/** Serves on loopback only: 127.0.0.1 and, where the machine has it, ::1 (both are "localhost"). */
export async function startGateway(port: number): Promise<Gateway> {
  const router = new Router(ROUTES);
  const authorizerCache = new Map<string, { until: number; result: { isAuthorized: boolean; context?: object } }>();

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((err: unknown) => {
      console.error('local gateway error:', err);
      if (!res.headersSent) gatewayError(res, 500, 'Internal Server Error');
      else res.end();
    });
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    if (body === null) return gatewayError(res, 413, 'Request Entity Too Large');
    const url = new URL(req.url ?? '/', 'http://localhost');
    const rawQueryString = (req.url ?? '').includes('?') ? (req.url ?? '').slice((req.url ?? '').indexOf('?') + 1) : '';
    const method = (req.method ?? 'GET').toUpperCase();
    const match = router.match(method, url.pathname, rawQueryString);
    const route: RouteDecl | null = match.kind === 'route' ? match.route : null;

    // No prototype: a client may name a header `__proto__`.
    const headers = Object.create(null) as Record<string, string>;
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(',') : v;
    headers['x-forwarded-proto'] ??= 'http';
    const { event, authorizerEvent: authorizerEventOf, requestId } = gatewayEvents({
      method,
      url: req.url ?? '/',
      headers,
      body,
      sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
      route,
      params: match.kind === 'route' ? match.params : {},
    });

    if (route && needsAuthorizer(route)) {
      const identity = AUTHORIZER.identitySource.map((src) => headers[src.replace('$request.header.', '').toLowerCase()]);
      if (identity.some((v) => v === undefined || v === '')) return gatewayError(res, 401, 'Unauthorized');
      const cacheKey = identity.join('\u0000');
      let result = AUTHORIZER.resultsCacheTtlSeconds > 0 ? authorizerCache.get(cacheKey) : undefined;
      if (!result || result.until < Date.now()) {
        const authorizerEvent = authorizerEventOf(identity as string[]);
        let output: { isAuthorized: boolean; context?: object };
        try {
          output = await (await loadHandler<unknown, typeof output>(AUTHORIZER_ENTRY))(authorizerEvent, lambdaContext('authorizer'));
        } catch (err) {
          console.error('authorizer failed:', err);
          return gatewayError(res, 500, 'Internal Server Error');
        }
        result = { until: Date.now() + AUTHORIZER.resultsCacheTtlSeconds * 1000, result: output };
        if (AUTHORIZER.resultsCacheTtlSeconds > 0) authorizerCache.set(cacheKey, result);
      }
      if (!result.result.isAuthorized) return gatewayError(res, 403, 'Forbidden');
      event.requestContext.authorizer = { lambda: result.result.context as never };
    }

    const entry = route ? routeEntry(route) : CATCH_ALL_ENTRY;
    let out: ApiResult;
    try {
      out = await (await loadHandler<unknown, ApiResult>(entry))(event, lambdaContext(route?.name ?? 'catch-all'));
    } catch (err) {
      console.error(`function ${entry} failed:`, err);
      return gatewayError(res, 500, 'Internal Server Error');
    }
    const responseHeaders: Record<string, string> = { ...out.headers, 'apigw-requestid': requestId };
    const payload = out.body === undefined ? undefined : out.isBase64Encoded ? Buffer.from(out.body, 'base64') : Buffer.from(out.body, 'utf8');
    if (payload !== undefined) responseHeaders['content-length'] = String(payload.length);
    res.writeHead(out.statusCode, responseHeaders);
    res.end(method === 'HEAD' ? undefined : payload);
  }

  const servers = [createServer(onRequest)];
  const actualPort = await listen(servers[0]!, port, '127.0.0.1');
  const v6 = createServer(onRequest);
  if (await listen(v6, actualPort, '::1').then(() => true, () => false)) servers.push(v6);
  return {
    url: `http://localhost:${actualPort}`,
    port: actualPort,
    close: async () => {
      await Promise.all(servers.map(close));
    },
  };
}

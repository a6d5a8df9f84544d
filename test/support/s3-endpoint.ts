/**
 * Unit tests: an S3 endpoint on localhost (path-style, as the local emulator is addressed) that
 * records the signed requests of shared/storage/pictures.ts, answers PutObject and DeleteObject
 * with success, or with the failures a test queues: an S3 error (status and code, in S3's XML
 * error document) or a connection dropped without an answer.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { afterAll, beforeAll } from 'vitest';

export interface S3Request {
  method: string;
  /** The object key (the path after the bucket, unescaped). */
  key: string;
  bucket: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export type S3Failure = { status: number; code: string } | 'drop';

/** The failures that mean storage is unavailable (network, throttling, 5xx, a body that did not arrive in time), each by name. */
export const UNAVAILABLE_FAILURES: readonly [string, S3Failure][] = [
  ['the connection dropped', 'drop'],
  ['SlowDown (503)', { status: 503, code: 'SlowDown' }],
  ['InternalError (500)', { status: 500, code: 'InternalError' }],
  ['RequestTimeout (400)', { status: 400, code: 'RequestTimeout' }],
];

export interface S3Endpoint {
  /** Every request received, in order. */
  readonly requests: S3Request[];
  /** The next `times` requests are answered with `failure`. */
  fail(failure: S3Failure, times?: number): void;
  /** Called with each request before it is answered. */
  onRequest?: (request: S3Request) => void;
  reset(): void;
}

/** Starts the endpoint for the test file and points AWS_ENDPOINT_URL_S3 at it. */
export function useS3Endpoint(): S3Endpoint {
  const failures: S3Failure[] = [];
  let server: Server | undefined;
  const endpoint: S3Endpoint = {
    requests: [],
    fail: (failure, times = 1) => {
      for (let i = 0; i < times; i++) failures.push(failure);
    },
    reset: () => {
      endpoint.requests.length = 0;
      failures.length = 0;
    },
  };
  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const [bucket = '', ...rest] = (req.url ?? '/').slice(1).split('?')[0]!.split('/');
        const request: S3Request = { method: req.method ?? '', bucket, key: rest.map(decodeURIComponent).join('/'), headers: req.headers, body: Buffer.concat(chunks) };
        endpoint.requests.push(request);
        endpoint.onRequest?.(request);
        const failure = failures.shift();
        if (failure === 'drop') return req.socket.destroy();
        if (failure) {
          res.writeHead(failure.status, { 'content-type': 'application/xml' });
          return res.end(`<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${failure.code}</Code><Message>${failure.code}</Message><RequestId>unit</RequestId></Error>`);
        }
        res.writeHead(req.method === 'DELETE' ? 204 : 200, req.method === 'PUT' ? { etag: '"unit"' } : {});
        res.end();
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    process.env.AWS_ENDPOINT_URL_S3 = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    const closed = new Promise((resolve) => server?.close(resolve));
    server?.closeAllConnections();
    await closed;
  });
  return endpoint;
}

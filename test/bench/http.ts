/** A minimal keep-alive HTTP client (node:http), so client overhead stays small and stable. */
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';

export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  /** Objects are sent as JSON; a Buffer as it is (set its Content-Type in `headers`). */
  body?: unknown;
}

export class HttpClient {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 16 });

  /** `base`: scheme, host and port; `localhost` is replaced by 127.0.0.1 (one address family). */
  constructor(private readonly base: string) {}

  /**
   * `target` is a path or an absolute URL (e.g. a `next` link). A GET sent on a kept-alive socket
   * that the server closed meanwhile (idle past its keep-alive timeout while the bench computed
   * something: ECONNRESET before any response) is sent once more on a new one.
   */
  async request(method: string, target: string, opts: RequestOptions = {}): Promise<HttpResponse> {
    try {
      return await this.send(method, target, opts);
    } catch (err) {
      if (method !== 'GET' || (err as NodeJS.ErrnoException).code !== 'ECONNRESET' || !(err as { reusedSocket?: boolean }).reusedSocket) throw err;
      return this.send(method, target, opts);
    }
  }

  private send(method: string, target: string, opts: RequestOptions): Promise<HttpResponse> {
    const url = new URL(target, this.base);
    if (url.hostname === 'localhost') url.hostname = '127.0.0.1';
    const headers: Record<string, string> = { ...opts.headers };
    let payload: Buffer | undefined;
    if (opts.body !== undefined) {
      payload = Buffer.isBuffer(opts.body) ? opts.body : Buffer.from(typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body));
      headers['content-type'] ??= 'application/json';
      headers['content-length'] = String(payload.length);
    }
    return new Promise((resolve, reject) => {
      const req = httpRequest(url, { method, headers, agent: this.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('error', (err) => reject(Object.assign(err, { reusedSocket: req.reusedSocket })));
      req.end(payload);
    });
  }

  /** Like request(), but fails unless the status is `expected`; returns the parsed JSON body. */
  async expect<T = unknown>(expected: number, method: string, target: string, opts: RequestOptions = {}): Promise<{ res: HttpResponse; json: T }> {
    const res = await this.request(method, target, opts);
    if (res.status !== expected) throw new Error(`${method} ${target}: expected ${expected}, got ${res.status} ${res.text.slice(0, 300)}`);
    return { res, json: (res.text ? JSON.parse(res.text) : undefined) as T };
  }

  close(): void {
    this.agent.destroy();
  }
}

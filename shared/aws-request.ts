/**
 * Signed calls to the AWS APIs the functions use besides DynamoDB and SES: Secrets Manager's
 * GetSecretValue (shared/secrets.ts) and S3's GetObject, PutObject and DeleteObject
 * (shared/storage/pictures.ts, shared/storage/index-objects.ts). A call is an HTTP request signed with Signature Version 4 by the
 * SDK's own signer and sent by the SDK's own HTTP handler (both part of every package already,
 * with the DynamoDB client), instead of a full SDK client per service, which would add its
 * protocol code and models to the packages (about 15 KB for Secrets Manager, 130 KB for S3;
 * docs/decisions.md W4).
 *
 * As an SDK client does: the endpoint comes from AWS_ENDPOINT_URL_<SERVICE> (the local emulators)
 * or AWS_ENDPOINT_URL, else the service's regional endpoint; credentials from the environment
 * (Lambda puts the role's there; the local runtime its own); up to 3 attempts with backoff on
 * network errors, throttling and 5xx. A failure is an AwsError whose `name` is the service's
 * error code and whose `$metadata.httpStatusCode` the status, as the SDK's service exceptions,
 * so shared/db/errors.ts isUnavailable() judges both alike; network errors keep their `code`.
 */
import { createHash, createHmac } from 'node:crypto';
import { fromEnv } from '@aws-sdk/credential-provider-env';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { SignatureV4 } from '@smithy/signature-v4';
import type { SourceData } from '@smithy/types';
import { isUnavailable } from './db/errors.js';

export type AwsService = 'secretsmanager' | 's3';

/** The suffix of the service's AWS_ENDPOINT_URL_<SERVICE> variable (the SDK's names). */
const ENDPOINT_ENV: Record<AwsService, string> = { secretsmanager: 'SECRETS_MANAGER', s3: 'S3' };

const MAX_ATTEMPTS = 3;
/** Error codes that are worth another attempt besides those of isUnavailable (the SDK's transient ones). */
const TRANSIENT = new Set(['RequestTimeoutException']);

export class AwsError extends Error {
  readonly $metadata: { httpStatusCode: number };
  readonly $fault: 'client' | 'server';
  constructor(name: string, message: string, status: number) {
    super(message);
    this.name = name;
    this.$metadata = { httpStatusCode: status };
    this.$fault = status >= 500 ? 'server' : 'client';
  }
}

const bytesOf = (data: SourceData): Buffer =>
  typeof data === 'string' ? Buffer.from(data, 'utf8') : ArrayBuffer.isView(data) ? Buffer.from(data.buffer, data.byteOffset, data.byteLength) : Buffer.from(data);

/** SHA-256 and HMAC-SHA256 for the signer, from node:crypto. */
class Sha256 {
  private readonly hash;
  constructor(secret?: SourceData) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytesOf(secret));
  }
  update(data: SourceData): void {
    this.hash.update(bytesOf(data));
  }
  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.hash.digest()));
  }
}

let handler: NodeHttpHandler | undefined;
const signers = new Map<AwsService, SignatureV4>();

export function region(): string {
  const value = process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
  if (!value) throw new Error('AWS_REGION is not set');
  return value;
}

/** The endpoint set for the service (AWS_ENDPOINT_URL_<SERVICE>, else AWS_ENDPOINT_URL), or undefined for AWS's own. */
export function configuredEndpoint(service: AwsService): URL | undefined {
  const value = process.env[`AWS_ENDPOINT_URL_${ENDPOINT_ENV[service]}`] ?? process.env.AWS_ENDPOINT_URL;
  return value ? new URL(value) : undefined;
}

function signer(service: AwsService): SignatureV4 {
  let s = signers.get(service);
  if (!s) {
    // S3 signs the path as sent (its keys are escaped once), and the payload's hash is a header.
    s = new SignatureV4({ service, region: region(), credentials: fromEnv(), sha256: Sha256, uriEscapePath: service !== 's3', applyChecksum: service === 's3' });
    signers.set(service, s);
  }
  return s;
}

export interface AwsRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Where the request goes: protocol, host and port (a path in it is ignored). */
  url: URL;
  /** The path, escaped. */
  path: string;
  headers: Record<string, string>;
  body?: Buffer | string;
}

export interface AwsResponse {
  status: number;
  headers: Record<string, string | undefined>;
  body: Buffer;
}

async function readBody(stream: unknown): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

async function attempt(service: AwsService, request: AwsRequest): Promise<AwsResponse> {
  handler ??= new NodeHttpHandler({ connectionTimeout: 3_000, requestTimeout: 5_000 });
  const { url } = request;
  const unsigned = {
    method: request.method,
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port ? { port: Number(url.port) } : {}),
    path: request.path,
    query: {},
    headers: { ...request.headers, host: url.host, ...(request.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(request.body)) }) },
    ...(request.body === undefined ? {} : { body: request.body }),
  };
  const signed = await signer(service).sign(unsigned as never);
  const { response } = await handler.handle(signed as never);
  const body = await readBody(response.body);
  return { status: response.statusCode, headers: response.headers, body };
}

/** What one call sent and got (its last attempt): the status (0 on a network error) and the bytes of both bodies. */
export interface AwsCallRecord {
  service: AwsService;
  method: AwsRequest['method'];
  path: string;
  status: number;
  attempts: number;
  /** When the call started (performance.now(), ms). */
  startedAt: number;
  bytesSent: number;
  bytesReceived: number;
}

/** Called once per call when it ends, succeeded or not (the bench counts the S3 calls and their bytes). */
export const awsCalls: { listener?: (call: AwsCallRecord) => void } = {};

/**
 * Sends the request (signed anew for each attempt); `errorCode` reads the service's error code
 * from a failure's body. Resolves to a 2xx response; throws an AwsError for any other.
 */
export async function awsRequest(service: AwsService, request: AwsRequest, errorCode: (body: string) => string | undefined): Promise<AwsResponse> {
  const startedAt = performance.now();
  const ended = (n: number, status: number, received: number) =>
    awsCalls.listener?.({ service, method: request.method, path: request.path, status, attempts: n, startedAt, bytesSent: request.body === undefined ? 0 : Buffer.byteLength(request.body), bytesReceived: received });
  for (let n = 1; ; n++) {
    let response: AwsResponse | undefined;
    try {
      response = await attempt(service, request);
      if (response.status >= 200 && response.status < 300) {
        ended(n, response.status, response.body.length);
        return response;
      }
      const text = response.body.toString('utf8');
      const code = errorCode(text) ?? (response.status >= 500 ? 'ServiceUnavailable' : `Http${response.status}`);
      throw new AwsError(code, `${service} answered ${response.status} ${code}`, response.status);
    } catch (err) {
      if (n >= MAX_ATTEMPTS || !(isUnavailable(err) || TRANSIENT.has((err as Error).name))) {
        ended(n, response?.status ?? 0, response?.body.length ?? 0);
        throw err;
      }
      await new Promise((r) => setTimeout(r, 50 * 2 ** n * (0.5 + Math.random())));
    }
  }
}

/** Closes the kept-alive connections (tools that stop without exiting). */
export function closeAwsConnections(): void {
  handler?.destroy();
  handler = undefined;
}

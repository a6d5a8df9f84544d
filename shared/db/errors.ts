/**
 * What DynamoDB errors mean for a request: transaction cancellation reasons, the errors that say
 * "the database is unavailable or throttling" (→ 503 with Retry-After; S3's too, as
 * shared/aws-request.ts reports them: the object stores of shared/storage), and Contended: a write
 * that gave up because what it depends on kept changing under it (→ 503 too, but not an outage).
 */
import type { AttributeValue, CancellationReason as SdkCancellationReason } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';

export interface CancellationReason {
  Code?: string;
  Item?: Record<string, unknown>;
}

/** The per-item reasons of a cancelled transaction (items unmarshalled), or null for any other error. */
export function cancellationReasons(err: unknown): CancellationReason[] | null {
  // Recognised by name: importing the exception class would put the whole client into bundles
  // (the catch-all's) that never talk to DynamoDB.
  if ((err as { name?: string })?.name === 'TransactionCanceledException') {
    return ((err as { CancellationReasons?: SdkCancellationReason[] }).CancellationReasons ?? []).map((r) => ({
      Code: r.Code,
      ...(r.Item ? { Item: unmarshall(r.Item as Record<string, AttributeValue>) } : {}),
    }));
  }
  return null;
}

/** True when the transaction was cancelled only because another one touched the same items. */
export function isTransactionConflict(err: unknown): boolean {
  const reasons = cancellationReasons(err);
  return reasons !== null && reasons.some((r) => r.Code === 'TransactionConflict') &&
    reasons.every((r) => r.Code === 'TransactionConflict' || r.Code === 'None' || r.Code === undefined);
}

export function isConditionalCheckFailed(err: unknown): boolean {
  return (err as { name?: string })?.name === 'ConditionalCheckFailedException';
}

const UNAVAILABLE = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'ServiceUnavailableException',
  'LimitExceededException',
  'TransactionInProgressException',
  'TransactionConflictException',
  // S3's (shared/aws-request.ts): "reduce your request rate" (a 503), and a request whose body
  // did not arrive in time (a 400, but an outage of the network in between, not a fault).
  'SlowDown',
  'RequestTimeout',
]);
const NETWORK = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * What the service needs is not there right now, though no call failed (e.g. a title index's
 * snapshot whose objects are gone until it is rebuilt): 503 with Retry-After, as an outage.
 */
export class Unavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'Unavailable';
  }
}

/** True for errors that mean "a dependency is unavailable right now": throttling, 5xx, network, Unavailable. */
export function isUnavailable(err: unknown): boolean {
  if (err instanceof Unavailable) return true;
  const e = err as { name?: string; code?: string; $metadata?: { httpStatusCode?: number }; $retryable?: unknown };
  if (!e || typeof e !== 'object') return false;
  if (e.name && UNAVAILABLE.has(e.name)) return true;
  if (e.name === 'TimeoutError' || (e.code && NETWORK.has(e.code))) return true;
  if (isTransactionConflict(err)) return true;
  const status = e.$metadata?.httpStatusCode;
  return status !== undefined && status >= 500;
}

/** Runs `attempt` again (up to `tries` times) while it fails with a transaction conflict. */
export async function retryOnConflict<T>(attempt: () => Promise<T>, tries = 4): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await attempt();
    } catch (err) {
      if (i >= tries || !isTransactionConflict(err)) throw err;
      await new Promise((r) => setTimeout(r, Math.min(400, 10 * 2 ** i) * (0.5 + Math.random())));
    }
  }
}

/**
 * A write gave up after its tries because the items it depends on kept changing under it (other
 * writers won each race). A client gets 503 with `Retry-After` (shared/http/observe.ts); a stream
 * consumer tries the record a few more times and then reports it (functions/streams/in-order.ts):
 * unlike an outage, it is not waited out (docs/decisions.md Z2).
 */
export class Contended extends Error {
  readonly retryAfter: number;
  constructor(what: string, retryAfter = 1) {
    super(`${what} kept changing while it was written`);
    this.name = 'Contended';
    this.retryAfter = retryAfter;
  }
}

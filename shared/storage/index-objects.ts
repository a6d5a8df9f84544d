/**
 * The objects of the in-memory index (issue 19, docs/in-memory-index.md): each version of a
 * kind's snapshot is an object of the index bucket (INDEX_BUCKET; locally the S3 emulator's
 * bucket), with the vectors it was built from beside it, under
 * `index/<kind>/<version, 10 digits>-<id>/<snapshot|vectors>.gz` (docs/data-model.md "Index objects").
 * The list functions read them (s3:GetObject under `index/`), the compactor writes and deletes
 * them; the pointer that says which version is current lives in the table.
 *
 * A version is written once: a put carries `If-None-Match: *`, so S3 refuses to replace an
 * object that exists (IndexObjectExists), and a reader that loaded a version never finds other
 * bytes under its key. An object that does not exist reads as null (S3 answers 404 NoSuchKey to
 * a role that may list the bucket, which infra/aws/index-storage.ts grants: docs/decisions.md,
 * "The index bucket" J3).
 *
 * Storage that is unavailable (network errors, throttling — SlowDown —, 5xx, RequestTimeout)
 * throws what shared/db/errors.ts isUnavailable recognises, as the database's outages do: a list
 * function answers 503 with Retry-After (shared/http/observe.ts), a job decides for itself. The
 * calls are signed requests of shared/aws-request.ts, imported on first use (decision W4),
 * path-style where AWS_ENDPOINT_URL_S3 is set (the emulator has no host name per bucket),
 * virtual-host style on AWS.
 */
import { mapLimit } from '../concurrency.js';
import { newId } from '../ids.js';

/** Where every index object lives in the bucket (the functions' grants name only this prefix). */
export const INDEX_PREFIX = 'index/';

export type IndexObjectPart = 'snapshot' | 'vectors';

/**
 * The key of one part of a kind's version: `index/ANIME/<name>/snapshot.gz`, the name being the
 * version and an id of its own (`0000000042-<22 characters>`): two compactions that build the
 * same version at once write different objects, and the pointer names the one that won
 * (shared/domain/index-compaction.ts).
 */
export function indexObjectKey(kind: string, name: string, part: IndexObjectPart): string {
  if (!/^[A-Z]+$/.test(kind)) throw new Error(`index kind "${kind}" must match [A-Z]+`);
  if (!NAME.test(name)) throw new Error(`index version name "${name}" must be 10 digits, "-" and a 22-character id`);
  if (part !== 'snapshot' && part !== 'vectors') throw new Error(`index object part "${String(part)}" must be snapshot or vectors`);
  return `${INDEX_PREFIX}${kind}/${name}/${part}.gz`;
}

const NAME = /^\d{10}-[A-Za-z0-9_-]{22}$/;

/** A new name for version `version` of a kind's index (its objects' folder): the version, then a new id. */
export function indexVersionName(version: number, id = newId()): string {
  if (!Number.isSafeInteger(version) || version < 0 || version > 9_999_999_999) throw new Error(`index version ${version} must be an integer of at most 10 digits`);
  return `${String(version).padStart(10, '0')}-${id}`;
}

/** Whether `key` is one indexObjectKey makes (the only keys the module touches). */
export const isIndexObjectKey = (key: string): boolean => /^index\/[A-Z]+\/\d{10}-[A-Za-z0-9_-]{22}\/(snapshot|vectors)\.gz$/.test(key);

/** A put found its key taken: another writer has written (or is writing) that version. */
export class IndexObjectExists extends Error {
  readonly key: string;
  constructor(key: string) {
    super(`index object ${key} exists: a version is written once`);
    this.name = 'IndexObjectExists';
    this.key = key;
  }
}

export function indexBucket(): string {
  const value = process.env.INDEX_BUCKET;
  if (!value) throw new Error('INDEX_BUCKET is not set');
  return value;
}

/** S3's error code, from its XML error document. */
const errorCode = (body: string): string | undefined => /<Code>([^<]+)<\/Code>/.exec(body)?.[1];

/** The S3 error's code and status, for an AwsError (other errors: undefined). */
const s3Error = (err: unknown) => {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return { code: e?.name, status: e?.$metadata?.httpStatusCode };
};

/** A request on the object `key` of the index bucket; its body. Failures are aws-request's errors, passed on. */
async function objectRequest(method: 'GET' | 'PUT' | 'DELETE', key: string, headers: Record<string, string> = {}, body?: Buffer): Promise<Buffer> {
  if (!isIndexObjectKey(key)) throw new Error(`"${key}" is not an index object key`);
  const { awsRequest, configuredEndpoint, region } = await import('../aws-request.js');
  const bucket = indexBucket();
  const endpoint = configuredEndpoint('s3');
  // The key's characters need no escaping (isIndexObjectKey).
  const [url, path] = endpoint ? [endpoint, `/${bucket}/${key}`] : [new URL(`https://${bucket}.s3.${region()}.amazonaws.com`), `/${key}`];
  const response = await awsRequest('s3', { method, url, path, headers, ...(body ? { body } : {}) }, errorCode);
  return response.body;
}

/** Stores a new object (never replacing one: IndexObjectExists when the key is taken). */
export async function putIndexObject(key: string, body: Uint8Array): Promise<void> {
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  try {
    await objectRequest('PUT', key, { 'content-type': 'application/octet-stream', 'if-none-match': '*' }, bytes);
  } catch (err) {
    // 412: the object exists; 409: another conditional put of the key is under way.
    const { code, status } = s3Error(err);
    if (status === 412 || (status === 409 && code === 'ConditionalRequestConflict')) throw new IndexObjectExists(key);
    throw err;
  }
}

/** The object's bytes, or null when it does not exist. */
export async function getIndexObject(key: string): Promise<Uint8Array | null> {
  try {
    const body = await objectRequest('GET', key);
    return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  } catch (err) {
    const { code, status } = s3Error(err);
    if (status === 404 && code === 'NoSuchKey') return null;
    throw err;
  }
}

/** How many deletions are in flight at once. */
const DELETE_CONCURRENCY = 8;

/** Deletes the objects; one that is already gone is fine (S3 answers a deletion of nothing with success). */
export async function deleteIndexObjects(keys: string[]): Promise<void> {
  for (const key of keys) if (!isIndexObjectKey(key)) throw new Error(`"${key}" is not an index object key`);
  await mapLimit(keys, DELETE_CONCURRENCY, (key) => objectRequest('DELETE', key));
}

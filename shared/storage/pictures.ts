/**
 * Uploaded picture files in object storage (API.md §4.9, §7.1, DESIGN.md §5). A file holds the
 * bytes judgeImage chose (shared/domain/images.ts: the image without its metadata and without
 * bytes after its end), under a key the server chooses, `pictures/<person id>/<new id>.<ext>`,
 * with the Content-Type of what its content is, and is served publicly at
 * `<PICTURES_BASE_URL>/<key>`: on AWS the pictures distribution in front of the private bucket
 * (infra/aws/storage.ts), locally the S3 emulator's URL of the bucket (plain http on localhost).
 * The bucket is PICTURES_BUCKET; the endpoint comes from AWS_ENDPOINT_URL_S3 where one is set
 * (locally), addressed path-style, since the emulator has no host name per bucket. PutObject and
 * DeleteObject are signed calls of shared/aws-request.ts, imported on first use (docs/decisions.md W4).
 *
 * Objects are never overwritten (every upload gets a new key) and are deleted only by the cleanup
 * job, after the picture's record is gone (shared/db/files.ts). Storage that is unavailable
 * (network errors, throttling, 5xx) → 503 with Retry-After, as the database's outages are.
 */
import { isUnavailable } from '../db/errors.js';
import { IMAGE_TYPES, type JudgedImage } from '../domain/images.js';
import { serviceUnavailable } from '../problem.js';
import { newId } from '../ids.js';

/** Where every picture file lives in the bucket (the upload function may write only there). */
export const PICTURES_PREFIX = 'pictures/';

/**
 * How long browsers and the distribution may keep a file. Keys are never reused, so a file never
 * changes; a deleted one is gone within this time after the cleanup job removed it.
 */
export const PICTURE_CACHE_CONTROL = 'public, max-age=86400';

function setting(name: 'PICTURES_BUCKET' | 'PICTURES_BASE_URL'): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

export const picturesBucket = () => setting('PICTURES_BUCKET');

/** The public URL of a stored file. */
export const pictureUrl = (key: string): string => `${setting('PICTURES_BASE_URL').replace(/\/+$/, '')}/${key}`;

/** The key of a file from its public URL; null for any URL that is not one of ours. */
export function pictureKeyOf(url: string): string | null {
  const base = `${setting('PICTURES_BASE_URL').replace(/\/+$/, '')}/`;
  if (!url.startsWith(base)) return null;
  const key = url.slice(base.length);
  return /^pictures\/[A-Za-z0-9_-]{1,64}\/[A-Za-z0-9_-]{22}\.(jpg|png|webp)$/.test(key) ? key : null;
}

/** S3's error code, from its XML error document. */
const errorCode = (body: string): string | undefined => /<Code>([^<]+)<\/Code>/.exec(body)?.[1];

/** A request on the object `key` of the pictures bucket: 503 when storage is unavailable. */
async function objectRequest(method: 'PUT' | 'DELETE', key: string, headers: Record<string, string> = {}, body?: Buffer): Promise<void> {
  const { awsRequest, configuredEndpoint, region } = await import('../aws-request.js');
  const bucket = picturesBucket();
  const escaped = key.split('/').map(encodeURIComponent).join('/');
  const endpoint = configuredEndpoint('s3');
  const [url, path] = endpoint ? [endpoint, `/${bucket}/${escaped}`] : [new URL(`https://${bucket}.s3.${region()}.amazonaws.com`), `/${escaped}`];
  try {
    await awsRequest('s3', { method, url, path, headers, ...(body ? { body } : {}) }, errorCode);
  } catch (err) {
    if (isUnavailable(err)) throw serviceUnavailable();
    throw err;
  }
}

export interface StoredPicture {
  key: string;
  url: string;
}

/** A new key for an image of a person (never used before), chosen before it is stored (an upload guards it first). */
export const newPictureKey = (personId: string, image: Pick<JudgedImage, 'type'>): string => `${PICTURES_PREFIX}${personId}/${newId()}.${IMAGE_TYPES[image.type].ext}`;

/** Stores an accepted image of a person, its bytes as judged (under `key`, default a new one); its key and public URL. */
export async function storePicture(personId: string, image: JudgedImage, key = newPictureKey(personId, image)): Promise<StoredPicture> {
  const type = IMAGE_TYPES[image.type];
  await objectRequest('PUT', key, { 'content-type': type.mime, 'cache-control': PICTURE_CACHE_CONTROL }, image.bytes);
  return { key, url: pictureUrl(key) };
}

/** Deletes a stored file; a file that is already gone is fine (S3 answers a deletion of nothing with success). */
export async function deleteStoredFile(key: string): Promise<void> {
  await objectRequest('DELETE', key);
}

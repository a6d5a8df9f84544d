/**
 * Pictures (API.md §3.10, §4.9): the body of `POST /api/persons/{id}/create-picture/`, a
 * multipart form (shared/http/multipart.ts) of an `image` file judged by its content
 * (shared/domain/images.ts) and an optional `name`.
 */
import * as z from 'zod/mini';
import { filePart, type UploadedFile } from './file-parts.js';
import { line } from './fields.js';
import { ImageRejected, judgeImage, MAX_IMAGE_BYTES, type JudgedImage } from './images.js';

/** The `image` part of an upload: a file judged by judgeImage (its errors are `errors.image`), whose bytes to store it gives. */
export function imagePart() {
  return z.pipe(filePart({ maxBytes: MAX_IMAGE_BYTES }), z.transform((file: UploadedFile, ctx): JudgedImage => {
    try {
      return judgeImage(file.bytes);
    } catch (err) {
      if (!(err instanceof ImageRejected)) throw err;
      ctx.issues.push({ code: 'custom', message: err.message, input: file });
      return z.NEVER;
    }
  }));
}

/** The upload's body: `image` (required) and `name` (optional, 0–100 characters, default ""). */
export const pictureUploadBody = z.strictObject({
  image: imagePart().check(z.describe('A JPEG, PNG or WebP image (judged by its content) of at most 2 MiB, 1–3,000 pixels on each side, a single frame.')),
  name: z.pipe(z.optional(line({ max: 100 })), z.transform((v) => v ?? '')).check(z.describe('The picture’s name (0–100 characters, default "").')),
});

/**
 * File parts of `multipart/form-data` bodies as the domain declares them (a picture's `image`,
 * shared/domain/pictures.ts): the value a parsed file part becomes, and the schema that declares
 * one with its size limit. shared/http/multipart.ts parses bodies against these declarations.
 */
import * as z from 'zod/mini';
import { MSG } from './fields.js';

/** A file part as sent: its bytes (see MultipartLimits.fileBytes) and what the client said it is. */
export class UploadedFile {
  constructor(
    readonly bytes: Buffer,
    readonly filename?: string,
    /** The part's Content-Type, as sent (never trusted: the content decides, shared/domain/images.ts). */
    readonly declaredType?: string,
  ) {}
}

const FILE_PARTS = new WeakMap<z.ZodMiniType, { maxBytes: number }>();

/**
 * The schema of a file part of at most `maxBytes` (an UploadedFile; in the OpenAPI document a
 * binary string). Refine or transform it to judge the content (e.g. shared/domain/images.ts).
 */
export function filePart(opts: { maxBytes: number }) {
  const schema = z.custom<UploadedFile>((v) => v instanceof UploadedFile, {
      error: (issue) => (issue.input === undefined ? MSG.required : 'Expected a file (a part with a filename).'),
    }).check(z.meta({ type: 'string', format: 'binary' }));
  FILE_PARTS.set(schema, opts);
  return schema;
}

/** The file part declaration inside a schema (through optional, default, pipe, transform), if any. */
export function fileDeclaration(schema: z.ZodMiniType): { maxBytes: number } | undefined {
  let s: z.ZodMiniType | undefined = schema;
  while (s) {
    const found = FILE_PARTS.get(s);
    if (found) return found;
    const def = s._zod.def as { in?: z.ZodMiniType; innerType?: z.ZodMiniType };
    s = def.in ?? def.innerType;
  }
  return undefined;
}

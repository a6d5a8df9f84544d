/**
 * `multipart/form-data` request bodies (API.md §1.2; `POST /api/persons/{id}/create-picture/`,
 * §4.9), for routes declared with `bodyType: 'multipart'` (route.ts). API Gateway hands the body
 * over base64-encoded (request.ts bodyBytes); busboy parses it (multipart-parser.ts, which only
 * the functions of such routes import and hand to createHandler: the parser is in no other
 * function's package).
 *
 * Two steps, so the handler chain keeps the precedence of §1.4:
 *  - parseMultipart (with the request checks): a body that cannot be parsed → 400
 *    malformed-request. It keeps the first value of every part, files as bytes (at most one byte
 *    over the part's limit: enough to tell that a file is too large without holding it all);
 *  - formBody (when the operation asks for its body): the parts against the route's body schema,
 *    a strict object of parts whose files are declared with filePart(). Unknown, repeated,
 *    missing and invalid parts → 400 validation-error, every one of them at once.
 *
 * Part names are a client's keys: they go into Maps and prototype-free objects only (decision 66).
 */
import type * as z from 'zod/mini';
import { issuesToErrors } from '../domain/fields.js';
import { fileDeclaration, type UploadedFile } from '../domain/file-parts.js';
import { addError, fieldErrors, validationError } from '../problem.js';

export interface MultipartForm {
  /** File parts (a `filename`, or Content-Type application/octet-stream), the first of each name. */
  files: ReadonlyMap<string, UploadedFile>;
  /** Text parts (UTF-8, or the part's charset), the first of each name. */
  fields: ReadonlyMap<string, string>;
  /** Names sent more than once (as files, texts or both). */
  repeated: ReadonlySet<string>;
  /** Text parts cut at busboy's field size (1 MiB). */
  truncated: ReadonlySet<string>;
  /** More parts were sent than MultipartLimits.maxParts (those after one more were not read). */
  tooManyParts: boolean;
}

export interface MultipartLimits {
  /**
   * Bytes kept of each declared file part, by part name. One byte more is kept, so a file over
   * its limit shows as longer than the limit; the rest is not kept, and files of undeclared parts
   * are not kept at all (the body is at most 3 MiB anyway: this bounds what is copied).
   */
  fileBytes: ReadonlyMap<string, number>;
  /** Parts a valid body may have; more are reported (formBody), and not read beyond one more. */
  maxParts: number;
}

/** `multipart/form-data` (any case, with parameters); the boundary is checked by the parse. */
export function isMultipartContentType(header: string | undefined): boolean {
  return header !== undefined && header.split(';')[0]!.trim().toLowerCase() === 'multipart/form-data';
}

/** Parses a complete multipart/form-data body (multipart-parser.ts parseMultipart). */
export type MultipartParser = (body: Buffer | Uint8Array, contentType: string, limits: MultipartLimits) => Promise<MultipartForm>;

/** The limits of a route's body schema (a strict object of parts). */
export function multipartLimits(schema: z.ZodMiniObject): MultipartLimits {
  const fileBytes = new Map<string, number>();
  for (const [name, part] of Object.entries(schema.shape)) {
    const file = fileDeclaration(part as z.ZodMiniType);
    if (file) fileBytes.set(name, file.maxBytes);
  }
  // Every declared part once, and some room so unknown ones are named in the 400.
  return { fileBytes, maxParts: Object.keys(schema.shape).length + 10 };
}

/**
 * The parts validated against the route's body schema (unknown parts are errors of a strict
 * object). All errors at once: 400 validation-error keyed by part name.
 */
export function formBody<S extends z.ZodMiniObject>(form: MultipartForm, schema: S): z.output<S> {
  const errors = fieldErrors();
  const values = Object.create(null) as Record<string, unknown>;
  const shape = schema.shape as Record<string, z.ZodMiniType>;
  for (const [name, file] of form.files) {
    values[name] = file;
    if (Object.hasOwn(shape, name) && !fileDeclaration(shape[name]!)) addError(errors, name, 'Expected a text part, not a file.');
  }
  for (const [name, text] of form.fields) values[name] = text;
  for (const name of form.truncated) addError(errors, name, 'This part is too long.');
  for (const name of form.repeated) addError(errors, name, 'This part may not be repeated.');
  if (form.tooManyParts) addError(errors, 'non_field_errors', 'Too many parts.');
  const out = schema.safeParse(values, { reportInput: true });
  if (!out.success) {
    // A part already refused above is not judged again (its value is the first one, or of the wrong kind).
    for (const [path, messages] of Object.entries(issuesToErrors(out.error.issues))) {
      if (Object.hasOwn(errors, path.split('.')[0]!)) continue;
      for (const m of messages) addError(errors, path, m);
    }
  }
  if (Object.keys(errors).length > 0) throw validationError(errors);
  return out.data!;
}

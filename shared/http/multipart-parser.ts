/**
 * The multipart/form-data parser (busboy) of multipart.ts's first step: a function whose route is
 * declared with `bodyType: 'multipart'` imports it and hands it to createHandler (handler.ts).
 * busboy's multipart parser is used without busboy's entry module, which picks the parser by the
 * content type and so also brings its urlencoded parser (5 KB minified) into the package: the
 * handler has already refused any other content type (415).
 */
import type { Busboy } from 'busboy';
import Multipart from 'busboy/lib/types/multipart.js';
import busboyUtils from 'busboy/lib/utils.js';
import { HttpError } from '../problem.js';
import { UploadedFile } from '../domain/file-parts.js';
import type { MultipartForm, MultipartLimits } from './multipart.js';

const malformed = (why: string) => new HttpError('malformed-request', `The multipart body cannot be parsed: ${why}.`);

/** Parses a complete multipart/form-data body; 400 malformed-request when it cannot be parsed. */
export function parseMultipart(body: Buffer | Uint8Array, contentType: string, limits: MultipartLimits): Promise<MultipartForm> {
  const files = new Map<string, UploadedFile>();
  const fields = new Map<string, string>();
  const repeated = new Set<string>();
  const truncated = new Set<string>();
  let tooManyParts = false;
  let unnamed = false;
  const first = (name: string) => {
    if (files.has(name) || fields.has(name)) repeated.add(name);
    return !repeated.has(name);
  };
  const largest = Math.max(0, ...limits.fileBytes.values());
  return new Promise((resolve, reject) => {
    let parser: Busboy;
    try {
      const conType = busboyUtils.parseContentType(contentType);
      if (!conType || !Multipart.detect(conType)) throw new Error('not multipart/form-data');
      parser = new Multipart({
        headers: { 'content-type': contentType },
        conType,
        defParamCharset: 'utf8',
        preservePath: false,
        // Busboy stops every file here; the limit of each part is applied below.
        limits: { fileSize: largest + 1, parts: limits.maxParts + 1 },
      });
    } catch {
      reject(malformed('no boundary'));
      return;
    }
    parser.on('file', (name: string | undefined, stream, info) => {
      const keep = name === undefined ? 0 : (limits.fileBytes.get(name) ?? -1) + 1;
      const chunks: Buffer[] = [];
      let size = 0;
      // A file cut short fails the whole parse (the parser's error below).
      stream.on('error', () => undefined);
      stream.on('data', (chunk: Buffer) => {
        if (size >= keep) return;
        const part = chunk.subarray(0, keep - size);
        chunks.push(part);
        size += part.length;
      });
      stream.on('end', () => {
        if (name === undefined) unnamed = true;
        else if (first(name)) files.set(name, new UploadedFile(Buffer.concat(chunks, size), info.filename, info.mimeType));
      });
    });
    parser.on('field', (name: string | undefined, value: string, info) => {
      if (name === undefined) unnamed = true;
      else if (first(name)) {
        fields.set(name, value);
        if (info.valueTruncated) truncated.add(name);
      }
    });
    parser.on('partsLimit', () => (tooManyParts = true));
    parser.on('error', (err: Error) => reject(malformed(err.message.replace(/^Multipart: /, '').toLowerCase())));
    parser.on('close', () => {
      if (unnamed) reject(malformed('a part has no name'));
      else resolve({ files, fields, repeated, truncated, tooManyParts });
    });
    parser.end(Buffer.from(body.buffer, body.byteOffset, body.byteLength));
  });
}

/**
 * multipart/form-data bodies (shared/http/multipart.ts, API.md §1.2, §4.9): parsing (400
 * malformed-request when the body cannot be parsed), the parts against the upload's schema
 * (400 validation-error keyed by part: unknown, repeated, missing, of the wrong kind, invalid
 * `name`, an image refused by its content), and the handler chain of a route declared with
 * `bodyType: 'multipart'`: 413 over 3 MiB, 415, precedence, base64 bodies as API Gateway sends
 * them; JSON routes unchanged. The OpenAPI document shows the multipart body.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import * as z from 'zod/mini';
import { describe, expect, it } from 'vitest';
import { judgeImage, MAX_IMAGE_BYTES, type JudgedImage } from '../../shared/domain/images.js';
import { pictureUploadBody } from '../../shared/domain/pictures.js';
import { createHandler, type ApiEvent } from '../../shared/http/handler.js';
import { UploadedFile } from '../../shared/domain/file-parts.js';
import { formBody, isMultipartContentType, multipartLimits, type MultipartForm } from '../../shared/http/multipart.js';
import { parseMultipart } from '../../shared/http/multipart-parser.js';
import { HttpError } from '../../shared/problem.js';
import { defineRoute } from '../../shared/http/route.js';
import { openApiDocument } from '../../shared/openapi.js';
import { encodePng, fixture } from '../support/images.js';
import { apiEvent, invokeApi } from '../support/lambda.js';
import { BOUNDARY, formData, type Part } from '../support/multipart.js';

const LIMITS = multipartLimits(pictureUploadBody);
const png = fixture('rgba.png');
const image: Part = { name: 'image', filename: 'picture.png', type: 'image/png', data: png };

async function rejected(promise: Promise<unknown>): Promise<HttpError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof HttpError) return err;
    throw err;
  }
  throw new Error('expected an HttpError');
}

const parse = (parts: Part[]) => {
  const { body, contentType } = formData(parts);
  return parseMultipart(body, contentType, LIMITS);
};

/** The validation errors of a form against the upload's schema. */
function errorsOf(form: MultipartForm): Record<string, string[]> {
  try {
    formBody(form, pictureUploadBody);
  } catch (err) {
    expect(err).toBeInstanceOf(HttpError);
    expect((err as HttpError).type).toBe('validation-error');
    return (err as HttpError).extras.errors!;
  }
  throw new Error('the form was accepted');
}

describe('parseMultipart', () => {
  it('files and text parts, with the file name and declared type as sent', async () => {
    const form = await parse([image, { name: 'name', value: 'Portrait' }]);
    expect(form.files.get('image')).toEqual(new UploadedFile(png, 'picture.png', 'image/png'));
    expect(form.fields.get('name')).toBe('Portrait');
    expect(form.repeated.size + form.truncated.size).toBe(0);
    expect(form.tooManyParts).toBe(false);
  });

  it('the content type: multipart/form-data in any case, with parameters', () => {
    expect(isMultipartContentType('multipart/form-data; boundary=x')).toBe(true);
    expect(isMultipartContentType('Multipart/Form-Data;boundary="x"')).toBe(true);
    for (const other of [undefined, '', 'application/json', 'multipart/mixed; boundary=x', 'text/plain']) expect(isMultipartContentType(other)).toBe(false);
  });

  it('keeps one byte over a declared file part’s limit, and nothing of undeclared file parts', async () => {
    const big = encodePng(900, 800, { noise: true });
    const form = await parse([{ ...image, data: big }, { name: 'other', filename: 'x.bin', data: big }]);
    // (Buffer.equals: a deep comparison of megabytes takes seconds.)
    expect(form.files.get('image')!.bytes.equals(big.subarray(0, MAX_IMAGE_BYTES + 1))).toBe(true);
    expect(form.files.get('other')!.bytes).toHaveLength(0);
  });

  it('records repeated names (the first value is kept) and too many parts', async () => {
    const form = await parse([image, { ...image, data: fixture('lossy.webp') }, { name: 'name', value: 'a' }, { name: 'name', filename: 'n.txt', data: Buffer.from('b') }]);
    expect([...form.repeated].sort()).toEqual(['image', 'name']);
    expect(form.files.get('image')!.bytes).toEqual(png);
    expect(form.fields.get('name')).toBe('a');
    const many = await parse(Array.from({ length: 30 }, (_, i) => ({ name: `p${i}`, value: 'x' })));
    expect(many.tooManyParts).toBe(true);
    expect(many.fields.size).toBeLessThan(30);
  });

  it('a body that cannot be parsed → 400 malformed-request', async () => {
    const { body, contentType } = formData([image]);
    const cases: [Buffer, string][] = [
      [body.subarray(0, body.length - 10), contentType], // cut short: no closing boundary
      [body.subarray(0, 300), contentType], // cut inside the file
      [Buffer.from('not a multipart body at all'), contentType],
      [body, 'multipart/form-data'], // no boundary
      [body, 'multipart/form-data; boundary=another'],
      [Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="image"\r\nbroken header line\r\n\r\nx\r\n--${BOUNDARY}--\r\n`), contentType],
      [Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data\r\n\r\nno name\r\n--${BOUNDARY}--\r\n`), contentType],
    ];
    for (const [bytes, type] of cases) {
      const e = await rejected(parseMultipart(bytes, type, LIMITS));
      expect(e.type, bytes.subarray(0, 60).toString()).toBe('malformed-request');
    }
  });

  it('an empty form (only the closing boundary) parses to no parts', async () => {
    const form = await parse([]);
    expect(form.files.size + form.fields.size).toBe(0);
  });
});

describe('the upload’s parts (formBody)', () => {
  it('image and name: the image judged by its content, the name a contract string (NFC, trimmed)', async () => {
    const out = formBody(await parse([image, { name: 'name', value: '  Cafe\u0301 portrait  ' }]), pictureUploadBody);
    // The bytes to store: the PNG without the text and time chunks ImageMagick wrote (test/unit/images.test.ts).
    expect(out.image).toEqual({ type: 'png', width: 5, height: 3, bytes: judgeImage(png).bytes } satisfies JudgedImage);
    expect(out.name).toBe('Café portrait');
    // `name` is optional (default ""), and may be empty.
    expect(formBody(await parse([image]), pictureUploadBody).name).toBe('');
    expect(formBody(await parse([image, { name: 'name', value: '' }]), pictureUploadBody).name).toBe('');
    expect(formBody(await parse([image, { name: 'name', value: 'x'.repeat(100) }]), pictureUploadBody).name).toHaveLength(100);
  });

  it('a missing image → errors.image', async () => {
    expect(errorsOf(await parse([{ name: 'name', value: 'x' }]))).toEqual({ image: ['This field is required.'] });
  });

  it('any other part → an entry for that part, prototype names included; all errors at once', async () => {
    const errors = errorsOf(await parse([image, { name: '__proto__', value: 'x' }, { name: 'constructor', filename: 'a.png', data: png }, { name: 'toString', value: '' }]));
    expect(Object.getPrototypeOf(errors)).toBeNull();
    expect(Object.keys(errors).sort()).toEqual(['__proto__', 'constructor', 'toString']);
    expect(JSON.parse(JSON.stringify(errors))).toHaveProperty(['__proto__']);
  });

  it('repeated parts → 400 for that part', async () => {
    expect(errorsOf(await parse([image, image]))).toEqual({ image: ['This part may not be repeated.'] });
    expect(Object.keys(errorsOf(await parse([image, { name: 'name', value: 'a' }, { name: 'name', value: 'b' }])))).toEqual(['name']);
  });

  it('too many parts → non_field_errors, with the unknown ones named', async () => {
    const errors = errorsOf(await parse([image, ...Array.from({ length: 20 }, (_, i) => ({ name: `p${i}`, value: 'x' }))]));
    expect(errors.non_field_errors).toEqual(['Too many parts.']);
    expect(errors).toHaveProperty('p0');
  });

  it('name: at most 100 characters, no control characters, a text part', async () => {
    expect(Object.keys(errorsOf(await parse([image, { name: 'name', value: 'x'.repeat(101) }])))).toEqual(['name']);
    expect(Object.keys(errorsOf(await parse([image, { name: 'name', value: 'a\u0007b' }])))).toEqual(['name']);
    expect(errorsOf(await parse([image, { name: 'name', filename: 'name.txt', data: Buffer.from('x') }]))).toEqual({ name: ['Expected a text part, not a file.'] });
  });

  it('the image as a text part, a text file named .png, an image over 2 MiB, one over 3,000 px → errors.image', async () => {
    expect(errorsOf(await parse([{ name: 'image', value: 'x' }])).image).toEqual(['Expected a file (a part with a filename).']);
    const text = { name: 'image', filename: 'picture.png', type: 'image/png', data: Buffer.from('hello, I am text\n') };
    expect(errorsOf(await parse([text])).image).toEqual(['The file is not a JPEG, PNG or WebP image.']);
    const big = { ...image, data: encodePng(900, 800, { noise: true }) };
    expect(errorsOf(await parse([big])).image![0]).toMatch(/larger than 2 MiB/);
    expect(errorsOf(await parse([{ ...image, data: fixture('3001x1.png') }])).image![0]).toMatch(/3001×1/);
    // Both parts wrong: both reported.
    expect(Object.keys(errorsOf(await parse([text, { name: 'name', value: 'x'.repeat(101) }]))).sort()).toEqual(['image', 'name']);
  });
});

/** A stand-in for the upload route (the route itself comes with persons). */
const uploadRoute = defineRoute({
  name: 'persons.create_picture',
  method: 'POST',
  path: '/api/persons/{id}/create-picture/',
  access: 'contributor',
  summary: 'Upload a picture of the person',
  body: pictureUploadBody,
  bodyType: 'multipart',
  response: { status: 201, etag: false },
  keys: {},
});
const upload = createHandler(
  uploadRoute,
  async (req) => {
    if (req.params.id !== 'known') throw new HttpError('not-found', 'No such person.');
    const { image: img, name } = req.body();
    return { status: 201, body: { name, type: img.type, width: img.width, height: img.height, bytes: img.bytes.length } };
  },
  { parseMultipart },
);
const jsonRoute = defineRoute({
  name: 'genres.create',
  method: 'POST',
  path: '/api/genres/',
  access: 'contributor',
  summary: 'Create',
  body: z.strictObject({ name: z.string() }),
  response: { status: 201, etag: false },
  keys: {},
});
const json = createHandler(jsonRoute, async (req) => ({ status: 201, body: req.body() }));

/** The event API Gateway sends for a multipart upload: the body base64-encoded. */
function uploadEvent(body: Buffer, contentType: string | undefined, id = 'known'): ApiEvent {
  const event = apiEvent('api/genres-create.json', { headers: { 'content-type': contentType, 'content-length': String(body.length) }, body: body.toString('base64') });
  event.isBase64Encoded = true;
  event.rawPath = `/api/persons/${id}/create-picture/`;
  event.routeKey = 'POST /api/persons/{id}/create-picture/';
  event.pathParameters = { id };
  return event;
}

describe('a route with bodyType multipart', () => {
  it('a valid upload reaches the operation, decoded from base64 byte for byte', async () => {
    const webp = fixture('extended.webp');
    const { body, contentType } = formData([{ name: 'name', value: 'Side' }, { name: 'image', filename: 'p.webp', type: 'image/webp', data: webp }]);
    const res = await invokeApi(upload, uploadEvent(body, contentType));
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ name: 'Side', type: 'webp', width: 5, height: 3, bytes: webp.length });
    expect(res.headers.etag).toBeUndefined();
  });

  it('a body over 3 MiB → 413; up to 3 MiB is read (a 2.1 MB image is a 400 errors.image, not a 413)', async () => {
    const big = encodePng(900, 800, { noise: true });
    const { body, contentType } = formData([{ ...image, data: big }]);
    expect(body.length).toBeGreaterThan(1_048_576);
    const res = await invokeApi(upload, uploadEvent(body, contentType));
    expect(res.status).toBe(400);
    expect(res.body.errors.image[0]).toMatch(/larger than 2 MiB/);
    const over = formData([{ ...image, data: Buffer.concat([big, Buffer.alloc(3_145_728 - big.length)]) }]);
    const tooLarge = await invokeApi(upload, uploadEvent(over.body, over.contentType));
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.type).toBe('urn:problem:payload-too-large');
    // JSON routes keep their 1 MiB.
    const e = apiEvent('api/genres-create.json', { body: JSON.stringify({ name: 'x'.repeat(1_048_576) }) });
    expect((await invokeApi(json, e)).status).toBe(413);
  });

  it('another content type → 415; a JSON route refuses multipart → 415; an empty body is {} (image required)', async () => {
    const res = await invokeApi(upload, uploadEvent(Buffer.from('{"name":"x"}'), 'application/json'));
    expect(res.status).toBe(415);
    const { body, contentType } = formData([image]);
    expect((await invokeApi(json, apiEvent('api/genres-create.json', { headers: { 'content-type': contentType }, body: body.toString('latin1') }))).status).toBe(415);
    const empty = uploadEvent(Buffer.alloc(0), undefined);
    delete empty.body;
    const missing = await invokeApi(upload, empty);
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toEqual({ image: ['This field is required.'] });
  });

  it('precedence: malformed (400) before an unknown path id (404), which comes before part errors (400)', async () => {
    const { body, contentType } = formData([image, { name: 'extra', value: 'x' }]);
    const malformed = await invokeApi(upload, uploadEvent(body.subarray(0, 100), contentType, 'missing'));
    expect([malformed.status, malformed.body.type]).toEqual([400, 'urn:problem:malformed-request']);
    expect((await invokeApi(upload, uploadEvent(body, contentType, 'missing'))).status).toBe(404);
    const invalid = await invokeApi(upload, uploadEvent(body, contentType));
    expect([invalid.status, invalid.body.type, Object.keys(invalid.body.errors)]).toEqual([400, 'urn:problem:validation-error', ['extra']]);
  });
});

describe('the OpenAPI document', () => {
  it('a multipart body: multipart/form-data with a binary image and a string name; JSON bodies unchanged; a valid OpenAPI 3.1 document', async () => {
    const doc = openApiDocument([uploadRoute, jsonRoute], 'https://api.example.org') as any;
    expect((await new Validator().validate(doc)).valid).toBe(true);
    const multipart = doc.paths['/api/persons/{id}/create-picture/'].post.requestBody;
    expect(Object.keys(multipart.content)).toEqual(['multipart/form-data']);
    const schema = multipart.content['multipart/form-data'].schema;
    expect(schema.properties.image).toMatchObject({ type: 'string', format: 'binary' });
    expect(schema.properties.name).toMatchObject({ type: 'string', maxLength: 100 });
    expect(schema.required).toEqual(['image']);
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(doc.paths['/api/genres/'].post.requestBody.content)).toEqual(['application/json']);
  });
});

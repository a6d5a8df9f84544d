/**
 * The OpenAPI 3.1 document (GET /api/schema/), generated from the route declarations: paths,
 * parameters, request bodies, responses (the pagination envelope for lists) and problem types.
 */
import * as z from 'zod/mini';
import { PROBLEMS, type ProblemType } from './problem.js';
import { gatewayPath, needsAuthorizer, pathParamNames, takesIdempotencyKey, type RouteDecl } from './http/route.js';
import { pageQuerySchema } from './http/schemas.js';

type Json = Record<string, unknown>;

function jsonSchema(schema: z.ZodMiniType, io: 'input' | 'output'): Json {
  const out = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Json;
  delete out.$schema;
  return out;
}

const problemSchema: Json = {
  type: 'object',
  required: ['type', 'title', 'status', 'detail', 'instance', 'request_id'],
  properties: {
    type: { type: 'string', enum: Object.keys(PROBLEMS).map((t) => `urn:problem:${t}`) },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    instance: { type: 'string' },
    request_id: { type: 'string' },
    errors: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' }, minItems: 1 } },
    existing_id: { type: 'string' },
    retry_after: { type: 'integer' },
  },
};

function problemResponse(types: ProblemType[], headers?: Json): Json {
  const described = types.map((t) => `\`urn:problem:${t}\` (${PROBLEMS[t].title})`).join('; ');
  return {
    description: described,
    ...(headers ? { headers } : {}),
    content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
  };
}

/** The request header of a creation (API.md §8.7). */
const idempotencyKeyParameter: Json = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes a retry of this creation safe (API.md §8.7): a request with the same key, path and body within 24 hours gets the first answer again (`Idempotent-Replayed: true`) and changes nothing; another path or body → 422, while the first is still processed → 409 with `Retry-After`. Answers 4xx but 409 and 429 are kept too; 5xx, 409 and 429 are not. Use a new random value (e.g. a UUID) per creation.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7E]+$' },
};

/** The response header of an answer given again (API.md §8.7). */
const replayedHeaders: Json = {
  'Idempotent-Replayed': {
    description: 'Present when this answer is the stored one of an earlier request with the same Idempotency-Key.',
    schema: { type: 'string', enum: ['true'] },
  },
};

/**
 * Whether a creation's problem status may be a stored one given again: a 4xx the operation can
 * answer, but 409 (API.md §8.7; nor 413, 415 and 429, which come before the key is claimed, nor
 * 422, the claim's own answer).
 */
const kept = (status: number) => status >= 400 && status < 500 && ![409, 413, 415, 422, 429].includes(status);

function errorsOf(route: RouteDecl): Map<number, ProblemType[]> {
  const types: ProblemType[] = ['invalid-query', 'internal-error', 'service-unavailable', ...(route.errors ?? [])];
  if (route.body) types.push('malformed-request', 'payload-too-large', 'unsupported-media-type', 'validation-error');
  if (route.access !== 'credentials') types.push('invalid-token');
  if (needsAuthorizer(route)) types.push('authentication-required', 'forbidden');
  if (pathParamNames(route.path).length > 0) types.push('not-found');
  if (route.rateLimit) types.push('rate-limited');
  if (takesIdempotencyKey(route)) types.push('malformed-request', 'idempotency-in-progress', 'idempotency-key-reuse');
  const byStatus = new Map<number, ProblemType[]>();
  for (const t of new Set(types)) {
    const s = PROBLEMS[t].status;
    byStatus.set(s, [...(byStatus.get(s) ?? []), t]);
  }
  return byStatus;
}

/**
 * A JSON body, or a multipart one (API.md §1.2): its parts are the properties of the body
 * schema, file parts binary strings (shared/http/multipart.ts filePart).
 */
function requestBody(body: z.ZodMiniType, type: 'json' | 'multipart'): Json {
  const mediaType = type === 'multipart' ? 'multipart/form-data' : 'application/json';
  return { required: type === 'multipart', content: { [mediaType]: { schema: jsonSchema(body, 'input') } } };
}

/**
 * The representation of an operation that takes `fields` (API.md §1.6): the full one, or the
 * sparse one that `fields` asks for — `id` (where the record has one) and the requested keys,
 * which are present when the full representation has them. Documented as `anyOf` the two, so
 * a validator accepts both and a generated client can tell them apart (client/index.ts).
 */
function withSparse(full: Json, fields: readonly string[]): Json {
  const sparse = (schema: Json): Json => {
    for (const union of ['anyOf', 'oneOf'] as const) {
      if (Array.isArray(schema[union])) return { ...schema, [union]: (schema[union] as Json[]).map(sparse) };
    }
    const properties = schema.properties as Record<string, Json> | undefined;
    if (!properties) return schema;
    const kept = Object.keys(properties).filter((k) => k === 'id' || fields.includes(k));
    const required = ((schema.required as string[] | undefined) ?? []).filter((k) => k === 'id');
    return { ...schema, properties: Object.fromEntries(kept.map((k) => [k, properties[k]])), required };
  };
  return {
    anyOf: [
      { title: 'Full representation', ...full },
      { ...sparse(full), title: 'Sparse fieldset', description: 'With `fields`: `id` and the keys it names.' },
    ],
  };
}

function operation(route: RouteDecl): Json {
  const query = pageQuerySchema(route);
  const parameters: Json[] = [
    ...pathParamNames(route.path).map((name) => {
      // Declared path schemas (e.g. `{username}`); ids otherwise.
      const declared = route.params?.shape[name] as z.ZodMiniType | undefined;
      const schema = declared ? jsonSchema(declared, 'input') : { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' };
      return { name, in: 'path', required: true, schema };
    }),
    ...Object.entries(query.shape).map(([name, schema]) => {
      // A value read as an integer (`limit`) is documented as one (query values are text either way).
      const output = jsonSchema(schema as z.ZodMiniType, 'output');
      const { description, ...rest } = output.type === 'integer' ? output : jsonSchema(schema as z.ZodMiniType, 'input');
      return { name, in: 'query', required: false, ...(description ? { description } : {}), schema: rest };
    }),
    ...(takesIdempotencyKey(route) ? [idempotencyKeyParameter] : []),
  ];
  const { response } = route;
  let success: Json = { description: 'No content' };
  if (response.media) {
    success = { description: 'Success', content: { [response.media]: { schema: { type: 'string' } } } };
  } else if (response.schema) {
    const full = jsonSchema(response.schema, 'output');
    const item = response.fields ? withSparse(full, response.fields) : full;
    const schema = response.page
      ? {
          type: 'object',
          required: ['count', 'next', 'previous', 'results'],
          properties: {
            count: { type: ['integer', 'null'] },
            next: { type: ['string', 'null'], format: 'uri' },
            previous: { type: ['string', 'null'], format: 'uri' },
            results: { type: 'array', items: item },
            ...(response.envelope ? jsonSchema(z.object(response.envelope), 'output').properties as Json : {}),
          },
        }
      : item;
    success = { description: 'Success', content: { 'application/json': { schema } } };
  }
  const replayable = takesIdempotencyKey(route);
  const responses: Json = { [String(response.status)]: replayable ? { ...success, headers: replayedHeaders } : success };
  if (route.method === 'GET') responses['304'] = { description: 'Not modified (If-None-Match)' };
  for (const [status, types] of [...errorsOf(route)].sort(([a], [b]) => a - b)) responses[String(status)] = problemResponse(types, replayable && kept(status) ? replayedHeaders : undefined);
  return {
    operationId: route.name,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: [route.name.split('.')[0]],
    ...(route.access === 'credentials' ? {} : { security: route.access === 'public' ? [{}, { bearer: [] }] : [{ bearer: [] }] }),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.body ? { requestBody: requestBody(route.body, route.bodyType ?? 'json') } : {}),
    responses,
  };
}

export function openApiDocument(routes: readonly RouteDecl[], baseUrl: string): Json {
  const paths: Record<string, Json> = {};
  for (const route of routes) {
    const key = gatewayPath(route.path);
    paths[key] = { ...paths[key], [route.method.toLowerCase()]: operation(route) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Anime & Manga Catalogue API',
      version: '1',
      description: 'Public anime & manga catalogue. Errors are RFC 9457 problem documents; lists use cursor pagination.',
    },
    servers: [{ url: baseUrl }],
    paths,
    components: {
      schemas: { Problem: problemSchema },
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
    },
  };
}

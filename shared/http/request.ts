/**
 * Reading an API Gateway (HTTP API, payload 2.0) request: headers, body bytes, JSON bodies
 * (§1.2), query strings (§1.6: unknown, repeated and empty parameters are errors), entity tags.
 */
import { addError, fieldErrors, HttpError, invalidQuery } from '../problem.js';

export const JSON_BODY_LIMIT = 1_048_576;
export const MULTIPART_BODY_LIMIT = 3_145_728;

/** Header names in lower case, in an object without a prototype (a client may name a header `__proto__`). */
export function lowerCaseHeaders(headers: Record<string, string | undefined> | undefined): Record<string, string> {
  const out = Object.create(null) as Record<string, string>;
  for (const [k, v] of Object.entries(headers ?? {})) if (v !== undefined) out[k.toLowerCase()] = v;
  return out;
}

export function bodyBytes(body: string | undefined, isBase64Encoded: boolean): Buffer {
  if (!body) return Buffer.alloc(0);
  return isBase64Encoded ? Buffer.from(body, 'base64') : Buffer.from(body, 'utf8');
}

/** `application/json`, optionally with `charset=utf-8` (any other charset → 415). */
export function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const [type, ...params] = header.split(';').map((p) => p.trim());
  if (type?.toLowerCase() !== 'application/json') return false;
  for (const p of params) {
    const [name, value = ''] = p.split('=').map((s) => s.trim());
    if (name?.toLowerCase() === 'charset' && value.replace(/^"|"$/g, '').toLowerCase() !== 'utf-8') return false;
  }
  return true;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Parses a JSON object body; anything else is `400 malformed-request`. */
export function parseJsonObject(bytes: Buffer): Record<string, unknown> {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new HttpError('malformed-request', 'The body is not valid UTF-8.');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HttpError('malformed-request', 'The body is not valid JSON.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new HttpError('malformed-request', 'The body must be a JSON object.');
  }
  return value as Record<string, unknown>;
}

const PAGE_NUMBER_PARAMS = new Set(['offset', 'page', 'p']);

/**
 * Splits a raw query string into decoded pairs and checks the rules that do not depend on the
 * values: only `allowed` names, none repeated (but `repeatable` ones, whose values are joined with
 * commas), none empty (except `q`), and no offset paging.
 */
export function parseQuery(
  raw: string,
  allowed: ReadonlySet<string>,
  repeatable: ReadonlySet<string> = new Set(),
): { pairs: [string, string][]; values: Record<string, string> } {
  const pairs: [string, string][] = [];
  const errors = fieldErrors();
  const add = (k: string, m: string) => addError(errors, k, m);
  for (const part of raw.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const rawKey = eq < 0 ? part : part.slice(0, eq);
    const rawValue = eq < 0 ? '' : part.slice(eq + 1);
    let key: string;
    let value: string;
    try {
      key = decodeURIComponent(rawKey.replace(/\+/g, ' '));
      value = decodeURIComponent(rawValue.replace(/\+/g, ' '));
    } catch {
      add(rawKey, 'Invalid percent-encoding.');
      continue;
    }
    pairs.push([key, value]);
  }
  if (pairs.some(([k]) => PAGE_NUMBER_PARAMS.has(k))) {
    const e = fieldErrors();
    for (const [k] of pairs) if (PAGE_NUMBER_PARAMS.has(k)) e[k] = ['Not supported: use `cursor` (from `next`/`previous`) to page.'];
    throw invalidQuery(e, 'Offset and page-number pagination are not supported; follow the `next` and `previous` links (cursor).');
  }
  const values = new Map<string, string>();
  for (const [k, v] of pairs) {
    if (!allowed.has(k)) add(k, 'Unknown query parameter.');
    else if (values.has(k) && !repeatable.has(k)) add(k, 'This parameter may not be repeated.');
    else if (v === '' && k !== 'q') add(k, 'This parameter may not be empty.');
    values.set(k, values.has(k) ? `${values.get(k)},${v}` : v);
  }
  if (Object.keys(errors).length > 0) throw invalidQuery(errors);
  return { pairs, values: Object.fromEntries(values) };
}

export type EntityTags = '*' | { tag: string; weak: boolean }[];

/** Parses an If-Match / If-None-Match header (`*` or a list of entity tags). */
export function parseEntityTags(header: string | undefined): EntityTags | null {
  if (header === undefined) return null;
  if (header.trim() === '*') return '*';
  const tags: { tag: string; weak: boolean }[] = [];
  for (const m of header.matchAll(/(W\/)?"([^"]*)"/g)) tags.push({ weak: m[1] !== undefined, tag: m[2]! });
  return tags;
}

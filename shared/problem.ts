/**
 * Problem types of API.md §1.4 and the typed error every layer throws to produce one.
 */

export const PROBLEMS = {
  'malformed-request': { status: 400, title: 'Malformed request' },
  'invalid-query': { status: 400, title: 'Invalid query parameter' },
  'validation-error': { status: 400, title: 'Validation failed' },
  'authentication-required': { status: 401, title: 'Authentication required' },
  'invalid-token': { status: 401, title: 'Invalid token' },
  'invalid-credentials': { status: 401, title: 'Invalid credentials' },
  'account-inactive': { status: 401, title: 'Account inactive' },
  forbidden: { status: 403, title: 'Forbidden' },
  'stale-token': { status: 403, title: 'Stale token' },
  'not-found': { status: 404, title: 'Not found' },
  'method-not-allowed': { status: 405, title: 'Method not allowed' },
  gone: { status: 410, title: 'Gone' },
  conflict: { status: 409, title: 'Conflict' },
  'idempotency-in-progress': { status: 409, title: 'Request in progress' },
  'precondition-failed': { status: 412, title: 'Precondition failed' },
  'payload-too-large': { status: 413, title: 'Payload too large' },
  'unsupported-media-type': { status: 415, title: 'Unsupported media type' },
  'idempotency-key-reuse': { status: 422, title: 'Idempotency key reused' },
  'rate-limited': { status: 429, title: 'Too many requests' },
  'service-unavailable': { status: 503, title: 'Service unavailable' },
  'internal-error': { status: 500, title: 'Internal error' },
} as const;

export type ProblemType = keyof typeof PROBLEMS;
/** `errors` of a problem: field paths → messages. Keys are often named by the client. */
export type FieldErrors = Record<string, string[]>;

/**
 * Empty `errors` without a prototype, so that any name a client sends (`__proto__`,
 * `constructor`, `toString`, …) is an ordinary key (docs/decisions.md, decision 66).
 */
export const fieldErrors = (): FieldErrors => Object.create(null) as FieldErrors;

/** Adds a message to `errors[field]` (once). `errors` must come from fieldErrors(). */
export function addError(errors: FieldErrors, field: string, message: string): void {
  const list = Object.hasOwn(errors, field) ? errors[field]! : (errors[field] = []);
  if (!list.includes(message)) list.push(message);
}

export interface ProblemExtras {
  errors?: FieldErrors;
  existing_id?: string;
  retry_after?: number;
  /** Response headers that belong to this problem (Allow, Retry-After, WWW-Authenticate). */
  headers?: Record<string, string>;
}

export class HttpError extends Error {
  readonly type: ProblemType;
  readonly status: number;
  readonly extras: ProblemExtras;

  constructor(type: ProblemType, detail: string, extras: ProblemExtras = {}) {
    super(detail);
    this.name = 'HttpError';
    this.type = type;
    this.status = PROBLEMS[type].status;
    this.extras = extras;
  }
}

export function problemBody(error: HttpError, instance: string, requestId: string): Record<string, unknown> {
  const { title, status } = PROBLEMS[error.type];
  const body: Record<string, unknown> = {
    type: `urn:problem:${error.type}`,
    title,
    status,
    detail: error.message,
    instance,
    request_id: requestId,
  };
  if (error.extras.errors) body.errors = error.extras.errors;
  if (error.extras.existing_id !== undefined) body.existing_id = error.extras.existing_id;
  if (error.extras.retry_after !== undefined) body.retry_after = error.extras.retry_after;
  return body;
}

/** Headers every problem of this type carries (§1.4: 401 → WWW-Authenticate; 429/503 → Retry-After). */
export function problemHeaders(error: HttpError): Record<string, string> {
  const headers: Record<string, string> = { ...error.extras.headers };
  if (error.status === 401) {
    headers['www-authenticate'] =
      error.type === 'invalid-token' ? 'Bearer realm="api", error="invalid_token"' : 'Bearer realm="api"';
  }
  if (error.extras.retry_after !== undefined) headers['retry-after'] = String(error.extras.retry_after);
  return headers;
}

// Constructors for the errors handlers throw most often.
export const notFound = (what = 'Not found.') => new HttpError('not-found', what);
export const forbidden = (why = 'You do not have permission to perform this action.') =>
  new HttpError('forbidden', why);
export const preconditionFailed = () =>
  new HttpError('precondition-failed', 'The If-Match header does not match the current representation.');
export const validationError = (errors: FieldErrors) => {
  const n = Object.keys(errors).length;
  return new HttpError('validation-error', n === 1 ? '1 field is invalid.' : `${n} fields are invalid.`, { errors });
};
export const invalidQuery = (errors: FieldErrors, detail?: string) =>
  new HttpError('invalid-query', detail ?? `Invalid query parameter: ${Object.keys(errors).join(', ')}.`, { errors });
export const conflict = (field: string, message: string, existingId?: string) =>
  new HttpError('conflict', message, {
    errors: { [field]: [message] },
    ...(existingId === undefined ? {} : { existing_id: existingId }),
  });
/** Sign-in refusals (§4.19; social sign-in, §4.17). */
export const invalidCredentials = () => new HttpError('invalid-credentials', 'No active account found with the given credentials.');
export const accountInactive = () => new HttpError('account-inactive', 'This account is not active.');
export const serviceUnavailable = (retryAfter = 2) =>
  new HttpError('service-unavailable', 'A dependency is temporarily unavailable; retry later.', {
    retry_after: retryAfter,
  });

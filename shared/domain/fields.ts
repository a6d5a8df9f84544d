/**
 * Field builders for request bodies and query values (API.md §1.2, §1.6), and the mapping of
 * validation issues to the `errors` member of a problem. Every resource schema is built from
 * these, so strings, URLs, dates and enums follow one set of rules everywhere. Schemas use
 * zod/mini, whose functions a bundle keeps only when it uses them (docs/decisions.md W6).
 */
import * as z from 'zod/mini';
import { en } from 'zod/locales';
import { addError, fieldErrors, type FieldErrors } from '../problem.js';
import { codePoints, hasControlChars, hasTextControlChars } from '../text.js';

// zod/mini loads no messages of its own: the English ones, as the full zod has, for the issues
// whose message reaches an `errors` member as is (issuesToErrors' default case).
z.config(en());

export const MSG = {
  required: 'This field is required.',
  blank: 'This field may not be blank.',
  null: 'This field may not be null.',
  unknown: 'Unknown field.',
  control: 'Control characters are not allowed.',
  unicode: 'Not valid Unicode text (unpaired surrogate).',
  maxLength: (n: number) => `Ensure this field has no more than ${n} characters.`,
  minLength: (n: number) => `Ensure this field has at least ${n} characters.`,
  // An object is shown as JSON: String() of one whose own `toString` is not a function throws.
  choice: (v: unknown) => `"${typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v)}" is not a valid choice.`,
  url: 'Enter a valid URL.',
  https: 'The URL must use https.',
  date: 'Enter a valid date in the format YYYY-MM-DD.',
} as const;

const TYPE_MESSAGES: Record<string, string> = {
  string: 'Not a valid string.',
  int: 'A valid integer is required.',
  number: 'A valid number is required.',
  boolean: 'Must be a valid boolean.',
  array: 'Expected a list of items.',
  object: 'Expected an object.',
};

/** Converts zod issues into `errors` (dotted field paths → messages). */
export function issuesToErrors(issues: readonly z.core.$ZodIssue[]): FieldErrors {
  const errors = fieldErrors();
  const add = (path: readonly PropertyKey[], message: string) =>
    addError(errors, path.length === 0 ? 'non_field_errors' : path.map(String).join('.'), message);
  for (const issue of issues) {
    switch (issue.code) {
      case 'unrecognized_keys':
        for (const key of issue.keys) add([...issue.path, key], MSG.unknown);
        break;
      case 'invalid_type':
        if (issue.input === undefined) add(issue.path, MSG.required);
        else if (issue.input === null) add(issue.path, MSG.null);
        else add(issue.path, TYPE_MESSAGES[issue.expected] ?? `Expected ${issue.expected}.`);
        break;
      case 'invalid_value':
        add(issue.path, MSG.choice(issue.input));
        break;
      case 'too_big':
        add(issue.path, issue.origin === 'array' ? `Ensure this field has no more than ${String(issue.maximum)} items.` : `Ensure this value is less than or equal to ${String(issue.maximum)}.`);
        break;
      case 'too_small':
        add(issue.path, issue.origin === 'array' ? `Ensure this field has at least ${String(issue.minimum)} items.` : `Ensure this value is greater than or equal to ${String(issue.minimum)}.`);
        break;
      default:
        add(issue.path, issue.message);
    }
  }
  return errors;
}

type Ctx = { issues: z.core.$ZodRawIssue[] };
const fail = (ctx: Ctx, input: unknown, message: string) => ctx.issues.push({ code: 'custom', message, input });

/**
 * A string field: well-formed Unicode, NFC, length in code points within [min, max], and either
 * single-line (trimmed, no control characters) or multi-line text (stored as sent, only \n \r \t).
 */
function checkedString(opts: { max: number; min?: number }, kind: 'line' | 'text') {
  const min = opts.min ?? 0;
  return z
    .pipe(
      z.string(),
      z.transform((raw: string, ctx) => {
        if (!raw.isWellFormed()) {
          fail(ctx, raw, MSG.unicode);
          return raw;
        }
        const nfc = raw.normalize('NFC');
        const v = kind === 'line' ? nfc.trim() : nfc;
        if (kind === 'line' ? hasControlChars(v) : hasTextControlChars(v)) fail(ctx, raw, MSG.control);
        const n = codePoints(v);
        if (min > 0 && v.trim() === '') fail(ctx, raw, MSG.blank);
        else if (n < min) fail(ctx, raw, MSG.minLength(min));
        if (n > opts.max) fail(ctx, raw, MSG.maxLength(opts.max));
        return v;
      }),
    )
    .check(z.meta({ maxLength: opts.max, ...(min > 0 ? { minLength: min } : {}) }));
}

/** Single-line string: NFC, trimmed, no control characters, length in code points. */
export const line = (opts: { max: number; min?: number }) => checkedString(opts, 'line');

/** Multi-line text: NFC, stored as sent, only \n \r \t as control characters. */
export const text = (opts: { max: number; min?: number }) => checkedString(opts, 'text');

/**
 * Absolute URL (§1.2): https (or http where allowed), a host, no credentials, no white space.
 * `accept`: URLs accepted whatever their scheme (the server's own, e.g. local picture files).
 */
export function url(opts: { allowHttp?: boolean; accept?: (v: string) => boolean } = {}) {
  return z
    .pipe(
      z.string(),
      z.transform((raw: string, ctx) => {
        const v = raw.normalize('NFC').trim();
        if (codePoints(v) > 2048 || /\s/.test(v) || hasControlChars(v)) {
          fail(ctx, raw, MSG.url);
          return v;
        }
        let parsed: URL;
        try {
          parsed = new URL(v);
        } catch {
          fail(ctx, raw, MSG.url);
          return v;
        }
        const okScheme = parsed.protocol === 'https:' || (opts.allowHttp === true && parsed.protocol === 'http:') || opts.accept?.(v) === true;
        if (!okScheme) fail(ctx, raw, opts.allowHttp ? MSG.url : MSG.https);
        else if (parsed.hostname === '' || parsed.username !== '' || parsed.password !== '') fail(ctx, raw, MSG.url);
        return v;
      }),
    )
    .check(z.meta({ format: 'uri', maxLength: 2048 }));
}

/** The HTML "valid e-mail address" syntax (§1.2), at most 254 characters; stored in lower case. */
const EMAIL = /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

export function email() {
  return z
    .pipe(
      z.string(),
      z.transform((raw: string, ctx) => {
        const v = raw.trim().toLowerCase();
        if (v === '') fail(ctx, raw, MSG.blank);
        else if (v.length > 254 || !EMAIL.test(v)) fail(ctx, raw, 'Enter a valid email address.');
        return v;
      }),
    )
    .check(z.meta({ format: 'email', maxLength: 254 }));
}

const todayUtc = () => new Date().toISOString().slice(0, 10);

/** Calendar date `YYYY-MM-DD` within [min, max]; `max: 'today'` means today in UTC. */
export function date(opts: { min: string; max: string | 'today' }) {
  return z
    .pipe(
      z.string(),
      z.transform((v: string, ctx) => {
        const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
        const d = m ? new Date(`${v}T00:00:00.000Z`) : null;
        if (!m || !d || Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== v) {
          fail(ctx, v, MSG.date);
          return v;
        }
        const max = opts.max === 'today' ? todayUtc() : opts.max;
        if (v < opts.min || v > max) fail(ctx, v, `Enter a date between ${opts.min} and ${max}.`);
        return v;
      }),
    )
    .check(z.meta({ format: 'date' }));
}

export function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values);
}

/** Path ids and body references: opaque server ids (§1.3). */
export const ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const id = () => z.string().check(z.regex(ID_PATTERN, 'Not a valid id.'));

/**
 * A field of a write shape: its schema and, for optional fields, the default a `POST`/`PUT`
 * applies when the field is omitted. Optional string fields accept `null` as a synonym of `""`.
 */
export interface FieldSpec {
  schema: z.ZodMiniType;
  /** Absent: the field is required. */
  default?: () => unknown;
  /** A short description for the OpenAPI document. */
  description?: string;
}

export const required = (schema: z.ZodMiniType, description?: string): FieldSpec => ({ schema, description });
export const optional = (schema: z.ZodMiniType, fallback: () => unknown, description?: string): FieldSpec => ({
  schema,
  default: fallback,
  description,
});
/** Optional string/text field: `null` and omission both mean `""`. */
export const optionalText = (schema: z.ZodMiniType, description?: string): FieldSpec => ({
  schema: z.pipe(z.nullable(schema), z.transform((v: unknown) => v ?? '')),
  default: () => '',
  description,
});
/** Optional nullable field (`T|null`, default null). */
export const optionalNullable = (schema: z.ZodMiniType, description?: string): FieldSpec => ({
  schema: z.nullable(schema),
  default: () => null,
  description,
});

export type FieldSpecs = Record<string, FieldSpec>;

/**
 * The three body schemas of a write shape: create/replace (`POST`, `PUT`: required fields must
 * be present, omitted optional ones take their defaults) and patch (every field optional, no
 * defaults). All are strict: unknown fields are errors.
 */
export function writeSchemas(fields: FieldSpecs) {
  const full: Record<string, z.ZodMiniType> = {};
  const partial: Record<string, z.ZodMiniType> = {};
  for (const [name, spec] of Object.entries(fields)) {
    const described = spec.description ? spec.schema.check(z.describe(spec.description)) : spec.schema;
    full[name] = spec.default ? z.pipe(z.optional(described), z.transform((v: unknown) => (v === undefined ? spec.default!() : v))) : described;
    partial[name] = z.optional(described);
  }
  return { full: z.strictObject(full), partial: z.strictObject(partial) };
}

/**
 * An array of at most `max` items whose keys are distinct ("distinct" in §3): a repeated item is
 * an error at its position (or at `field` inside it, e.g. `characters.3.character_id`).
 */
export function distinctList<T extends z.ZodMiniType>(
  item: T,
  opts: { max: number; min?: number; key?: (v: z.output<T>) => string; field?: string; message?: string },
) {
  const key = opts.key ?? ((v: z.output<T>) => JSON.stringify(v));
  return z.array(item).check(
    z.maxLength(opts.max),
    ...(opts.min === undefined ? [] : [z.minLength(opts.min)]),
    z.superRefine((values: z.output<T>[], ctx) => {
      const seen = new Set<string>();
      values.forEach((v, i) => {
        const k = key(v);
        if (seen.has(k)) ctx.addIssue({ code: 'custom', message: opts.message ?? 'Duplicate item.', path: opts.field ? [i, opts.field] : [i] });
        seen.add(k);
      });
    }),
  );
}

/** `id[]` of distinct references (§1.2): at most `max`. */
export const idList = (max: number) => distinctList(id(), { max, message: 'Duplicate id.' });

/** §3.3, §3.4: `to` requires `from` and is not before it (dates as ISO strings; checked on the resulting record, §1.8). */
export function dateOrderErrors(errors: FieldErrors, v: Record<string, unknown>, from: string, to: string): void {
  if (v[to] === null || v[to] === undefined) return;
  if (v[from] === null || v[from] === undefined) addError(errors, to, `Requires ${from}.`);
  else if ((v[to] as string) < (v[from] as string)) addError(errors, to, `Must not be before ${from}.`);
}

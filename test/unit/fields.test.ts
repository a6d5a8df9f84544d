/**
 * Field builders of shared/domain/fields.ts against API.md §1.2 (strings, text, URLs, dates),
 * the write schemas (§1.8: defaults, strictness) and the `errors` paths of §1.4.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod/mini';
import { date, issuesToErrors, line, optional, optionalNullable, optionalText, required, text, url, writeSchemas } from '../../shared/domain/fields.js';

/** The value a schema produces, or the messages of its issues. */
function check(schema: z.ZodMiniType, input: unknown): { ok: true; value: unknown } | { ok: false; errors: Record<string, string[]> } {
  const out = schema.safeParse(input, { reportInput: true });
  return out.success ? { ok: true, value: out.data } : { ok: false, errors: issuesToErrors(out.error.issues) };
}
const ok = (schema: z.ZodMiniType, input: unknown) => {
  const r = check(schema, input);
  if (!r.ok) throw new Error(`refused ${JSON.stringify(input)}: ${JSON.stringify(r.errors)}`);
  return r.value;
};
const refused = (schema: z.ZodMiniType, input: unknown) => {
  const r = check(schema, input);
  if (r.ok) throw new Error(`accepted ${JSON.stringify(input)}`);
  return r.errors.non_field_errors ?? Object.values(r.errors).flat();
};

describe('line (single-line string)', () => {
  const name = line({ min: 1, max: 5 });

  it('converts to NFC and counts code points after normalisation', () => {
    expect(ok(name, 'Cafe\u0301')).toBe('Caf\u00e9');
    expect(ok(name, 'e\u0301'.repeat(5))).toBe('\u00e9'.repeat(5)); // 10 code points sent, 5 stored
    expect(ok(name, '😀😀😀😀😀')).toBe('😀😀😀😀😀'); // 10 UTF-16 units, 5 characters
    expect(refused(name, '😀😀😀😀😀😀')).toEqual(['Ensure this field has no more than 5 characters.']);
  });

  it('trims leading and trailing white space (before counting)', () => {
    expect(ok(name, '  abc \t')).toBe('abc');
    expect(ok(name, '\u3000abcde\u00a0')).toBe('abcde');
    expect(ok(name, ' a b ')).toBe('a b');
  });

  it('a required string that is empty after trimming is blank', () => {
    expect(refused(name, '')).toEqual(['This field may not be blank.']);
    expect(refused(name, '   ')).toEqual(['This field may not be blank.']);
    expect(ok(line({ max: 5 }), '  ')).toBe('');
  });

  it('refuses control characters inside the value', () => {
    for (const s of ['a\u0000b', 'a\nb', 'a\tb', 'a\rb', 'a\u001fb', 'a\u007fb']) {
      expect(refused(name, s), JSON.stringify(s)).toContain('Control characters are not allowed.');
    }
    expect(ok(name, 'a\u0080b')).toBe('a\u0080b'); // C1 is not in the contract's list
  });

  it('refuses other JSON types (no coercion)', () => {
    for (const v of [5, true, null, ['a'], { a: 1 }]) expect(check(name, v).ok).toBe(false);
  });

  it('refuses unpaired surrogates (not Unicode text)', () => {
    for (const s of ['a\ud800', '\udc00b', 'x\ud83dy']) {
      expect(check(name, s).ok, JSON.stringify(s)).toBe(false);
      expect(check(text({ max: 10 }), s).ok, JSON.stringify(s)).toBe(false);
    }
  });

  it('min greater than 1 is counted in code points', () => {
    const two = line({ min: 2, max: 5 });
    expect(refused(two, 'a')).toEqual(['Ensure this field has at least 2 characters.']);
    expect(ok(two, '😀😀')).toBe('😀😀');
  });
});

describe('text (multi-line)', () => {
  const about = text({ max: 10 });

  it('is stored as sent (not trimmed), in NFC', () => {
    expect(ok(about, '  a\n b  ')).toBe('  a\n b  ');
    expect(ok(about, 'Cafe\u0301')).toBe('Caf\u00e9');
  });

  it('allows \\n \\r \\t and no other control character', () => {
    expect(ok(about, 'a\r\n\tb')).toBe('a\r\n\tb');
    for (const s of ['a\u0000', 'a\u000b', 'a\u000c', 'a\u001b', 'a\u007f']) {
      expect(refused(about, s), JSON.stringify(s)).toContain('Control characters are not allowed.');
    }
  });

  it('counts code points', () => {
    expect(ok(about, '😀'.repeat(10))).toBe('😀'.repeat(10));
    expect(check(about, '😀'.repeat(11)).ok).toBe(false);
  });

  it('a required text that is only white space is blank', () => {
    expect(refused(text({ min: 1, max: 10 }), ' \n ')).toEqual(['This field may not be blank.']);
  });
});

describe('url', () => {
  const https = url();
  const httpOk = url({ allowHttp: true });

  it('accepts absolute https URLs', () => {
    for (const u of ['https://example.org', 'https://example.org/a/b?c=d#e', 'https://例え.jp/パス', 'https://127.0.0.1:8443/x', 'HTTPS://EXAMPLE.ORG/']) {
      expect(ok(https, u), u).toBe(u);
    }
  });

  it('http only where the field says http(s)', () => {
    expect(refused(https, 'http://example.org')).toEqual(['The URL must use https.']);
    expect(ok(httpOk, 'http://example.org')).toBe('http://example.org');
    expect(ok(httpOk, 'https://example.org')).toBe('https://example.org');
  });

  it('refuses other schemes, relative URLs and URLs without a host', () => {
    for (const u of ['ftp://example.org', 'javascript:alert(1)', 'mailto:a@example.org', 'data:text/plain,x', 'example.org', '/relative', '//example.org/x', 'https://', 'https:', '']) {
      expect(check(https, u).ok, u).toBe(false);
      expect(check(httpOk, u).ok, u).toBe(false);
    }
  });

  it('refuses credentials in the URL', () => {
    for (const u of ['https://user:pw@example.org/', 'https://user@example.org/', 'https://:pw@example.org/']) {
      expect(refused(https, u), u).toEqual(['Enter a valid URL.']);
    }
  });

  it('refuses white space and control characters inside', () => {
    for (const u of ['https://exa mple.org', 'https://example.org/a b', 'https://example.org/\ta', 'https://example.org/\u0000']) {
      expect(check(https, u).ok, JSON.stringify(u)).toBe(false);
    }
  });

  it('accepts up to 2,048 characters', () => {
    const base = 'https://example.org/';
    expect(ok(https, base + 'a'.repeat(2048 - base.length))).toHaveLength(2048);
    expect(check(https, base + 'a'.repeat(2049 - base.length)).ok).toBe(false);
  });

  it('counts characters as code points (2,048 astral characters are 4,096 UTF-16 units)', () => {
    const base = 'https://example.org/';
    expect(check(https, base + '😀'.repeat(2048 - base.length)).ok).toBe(true);
    expect(check(https, base + '😀'.repeat(2049 - base.length)).ok).toBe(false);
  });
});

describe('date', () => {
  afterEach(() => {
    vi.useRealTimers();
  });
  const range = date({ min: '1800-01-01', max: '2100-12-31' });

  it('accepts real calendar dates', () => {
    for (const d of ['2024-02-29', '2000-02-29', '1800-01-01', '2100-12-31', '1999-12-31']) expect(ok(range, d)).toBe(d);
  });

  it('refuses impossible dates and other formats', () => {
    for (const d of ['2023-02-29', '1900-02-29', '2024-04-31', '2024-13-01', '2024-00-10', '2024-01-00', '2024-1-01', '20240101', '2024/01/01', '2024-01-01T00:00:00Z', ' 2024-01-01', '', 'today']) {
      expect(refused(range, d), d).toEqual(['Enter a valid date in the format YYYY-MM-DD.']);
    }
  });

  it('refuses dates outside the range', () => {
    expect(refused(range, '1799-12-31')[0]).toMatch(/between 1800-01-01 and 2100-12-31/);
    expect(check(range, '2101-01-01').ok).toBe(false);
  });

  it('"today" is the current UTC date', () => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2025-06-15T23:30:00.000Z'));
    const upToToday = date({ min: '1800-01-01', max: 'today' });
    expect(ok(upToToday, '2025-06-15')).toBe('2025-06-15');
    expect(refused(upToToday, '2025-06-16')[0]).toMatch(/between 1800-01-01 and 2025-06-15/);
    vi.setSystemTime(new Date('2025-06-16T00:00:01.000Z'));
    expect(ok(upToToday, '2025-06-16')).toBe('2025-06-16');
  });
});

describe('write schemas (§1.8)', () => {
  const fields = {
    name: required(line({ min: 1, max: 10 })),
    about: optionalText(text({ max: 10 })),
    website: optionalNullable(url({ allowHttp: true })),
    episodes: optional(z.int().check(z.gte(0)), () => 0),
  };
  const { full, partial } = writeSchemas(fields);

  it('POST/PUT: omitted optional fields take their defaults; null is "" for optional strings', () => {
    expect(ok(full, { name: 'A' })).toEqual({ name: 'A', about: '', website: null, episodes: 0 });
    expect(ok(full, { name: 'A', about: null, website: null })).toEqual({ name: 'A', about: '', website: null, episodes: 0 });
  });

  it('PATCH: only the fields present', () => {
    expect(ok(partial, {})).toEqual({});
    expect(ok(partial, { about: null })).toEqual({ about: '' });
  });

  it('null is refused where the type does not say |null', () => {
    expect(check(full, { name: null }).ok).toBe(false);
    expect(check(full, { name: 'A', episodes: null }).ok).toBe(false);
  });

  it('no coercion: "5" is not an integer, 1.5 is not an integer', () => {
    expect(Object.keys((check(full, { name: 'A', episodes: '5' }) as { errors: object }).errors)).toEqual(['episodes']);
    expect(Object.keys((check(full, { name: 'A', episodes: 1.5 }) as { errors: object }).errors)).toEqual(['episodes']);
    expect(ok(full, { name: 'A', episodes: 5.0 })).toMatchObject({ episodes: 5 });
  });

  it('unknown and read-only fields are errors, reported with all other errors', () => {
    const r = check(full, { id: 'x', name: '', score: 1, website: 'ftp://x' });
    expect(r.ok).toBe(false);
    expect(Object.keys((r as { errors: object }).errors).sort()).toEqual(['id', 'name', 'score', 'website']);
  });
});

describe('issuesToErrors: field paths (§1.4)', () => {
  const schema = z.strictObject({
    name: line({ min: 1, max: 3 }),
    tags: z.array(line({ min: 1, max: 5 })),
    nested: z.strictObject({ inner: z.int() }),
    characters: z.array(z.strictObject({ voice_actors: z.array(z.strictObject({ person_id: z.string() })) })),
  });

  it('names nested fields with dots and array items by index', () => {
    const r = check(schema, {
      tags: ['ok', '', 'too long value'],
      nested: { inner: '5', extra: 1 },
      characters: [{ voice_actors: [] }, { voice_actors: [{ person_id: 'a' }, { x: 1 }] }],
      unknown: 1,
    });
    expect(r.ok).toBe(false);
    const errors = (r as { errors: Record<string, string[]> }).errors;
    expect(Object.keys(errors).sort()).toEqual(
      [
        'name',
        'tags.1',
        'tags.2',
        'nested.inner',
        'nested.extra',
        'characters.1.voice_actors.1.person_id',
        'characters.1.voice_actors.1.x',
        'unknown',
      ].sort(),
    );
    expect(errors.name).toEqual(['This field is required.']);
    expect(errors.unknown).toEqual(['Unknown field.']);
    expect(errors['nested.extra']).toEqual(['Unknown field.']);
    for (const messages of Object.values(errors)) expect(messages.length).toBeGreaterThan(0);
  });

  it('problems with the whole value go to non_field_errors', () => {
    expect(check(schema, null)).toEqual({ ok: false, errors: { non_field_errors: ['This field may not be null.'] } });
    expect(Object.keys((check(schema, []) as { errors: object }).errors)).toEqual(['non_field_errors']);
  });

  it('null and missing are told apart', () => {
    const errors = (check(schema, { name: null, tags: [], nested: { inner: 1 }, characters: [] }) as { errors: Record<string, string[]> }).errors;
    expect(errors).toEqual({ name: ['This field may not be null.'] });
  });

  it('one message once per field', () => {
    const errors = (check(z.strictObject({ a: z.string() }), { b: 1, c: 2 }) as { errors: Record<string, string[]> }).errors;
    expect(errors).toEqual({ a: ['This field is required.'], b: ['Unknown field.'], c: ['Unknown field.'] });
  });
});

/**
 * Request bodies of the taxonomy writes (API.md §1.2, §1.8, §3.7): field validation, string
 * normalisation, body syntax, content types, size, and uniqueness of names.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../shared/auth/roles.js';
import {
  KINDS,
  create,
  expectErrors,
  expectJson,
  expectProblem,
  full,
  minimal,
  send,
  uniqueName,
  usersByRole,
} from '../support/contract.js';
import { useServer } from '../support/server.js';

const server = useServer();
let users: Record<Role, Record<string, string>>;
beforeAll(async () => {
  users = await usersByRole(server);
});

const MiB = 1_048_576;
const EMOJI = '\u{1F600}';

describe.each(KINDS.map((k) => [k.segment, k] as const))('/api/%s/', (_segment, k) => {
  const collection = `/api/${k.segment}/`;
  const item = (id: string) => `/api/${k.segment}/${id}/`;
  const contrib = () => users.contributor;
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    send(server, 'POST', collection, { body, headers: { ...contrib(), ...headers } });
  const count = async () => (await send(server, 'GET', collection)).body.count as number;
  const textField = Object.keys(k.texts)[0];

  describe('fields', () => {
    it('a missing required field → 400 with an error for it; nothing is created', async () => {
      const before = await count();
      expectErrors(await post({ ...k.filled }), 400, 'validation-error', ['name', ...Object.keys(k.required)]);
      expectErrors(await post({ ...k.required }), 400, 'validation-error', ['name']);
      expect(await count()).toBe(before);
    });

    it.each([
      ['a number', 5],
      ['a boolean', true],
      ['an array', ['Name']],
      ['an object', { name: 'Name' }],
    ])('a name that is %s → 400', async (_what, value) => {
      expectErrors(await post({ ...minimal(k, 'x'), name: value }), 400, 'validation-error', ['name']);
    });

    it('unknown and read-only fields → 400 with an error for each (no coercion of "5")', async () => {
      const extra = { colour: 'red', id: 'abc', created_at: '2020-01-01T00:00:00.000Z', updated_at: '2020-01-01T00:00:00.000Z' } as Record<string, unknown>;
      for (const c of k.counters) extra[c] = '5';
      const res = await post({ ...minimal(k, uniqueName()), ...extra });
      expectErrors(res, 400, 'validation-error', Object.keys(extra));
      const numeric = await post({ ...minimal(k, uniqueName()), [k.counters[0]!]: 5 });
      expectErrors(numeric, 400, 'validation-error', [k.counters[0]!]);
      const patch = await send(server, 'PATCH', item((await create(server, k, contrib(), minimal(k, uniqueName()))).id), {
        body: { id: 'other' },
        headers: contrib(),
      });
      expectErrors(patch, 400, 'validation-error', ['id']);
    });

    it('null for the required name → 400 (POST, PUT and PATCH)', async () => {
      expectErrors(await post({ ...minimal(k, 'x'), name: null }), 400, 'validation-error', ['name']);
      const created = await create(server, k, contrib(), minimal(k, uniqueName('Nul')));
      for (const method of ['PUT', 'PATCH']) {
        const res = await send(server, method, item(created.id), { body: { ...minimal(k, 'x'), name: null }, headers: contrib() });
        expectErrors(res, 400, 'validation-error', ['name']);
      }
    });

    it.runIf(textField !== undefined)('null for an optional text field means "" (POST and PATCH)', async () => {
      const created = await create(server, k, contrib(), { ...minimal(k, uniqueName('Null')), [textField!]: null });
      expect(created[textField!]).toBe('');
      const filled = await create(server, k, contrib(), full(k, uniqueName('Null')));
      const res = await send(server, 'PATCH', item(filled.id), { body: { [textField!]: null }, headers: contrib() });
      expect(expectJson(res, 200)[textField!]).toBe('');
    });

    it.runIf(textField !== undefined)('an optional text field of the wrong type → 400', async () => {
      for (const value of [5, true, [], {}]) {
        expectErrors(await post({ ...minimal(k, uniqueName()), [textField!]: value }), 400, 'validation-error', [textField!]);
      }
    });

    it.each([
      ['empty', ''],
      ['spaces', '   '],
      ['white space', ' \u00a0\u2003 '],
    ])('a blank name (%s) → 400', async (_what, name) => {
      expectErrors(await post(minimal(k, name)), 400, 'validation-error', ['name']);
    });

    it('name length is counted in code points after normalisation and trimming', async () => {
      const max = k.nameMax;
      const emoji = await post(minimal(k, EMOJI.repeat(max)));
      expect(expectJson(emoji, 201).name).toBe(EMOJI.repeat(max));
      expectErrors(await post(minimal(k, EMOJI.repeat(max + 1))), 400, 'validation-error', ['name']);
      // `é` sent decomposed (2 code points each) is 1 code point after NFC.
      const decomposed = await post(minimal(k, `  ${'e\u0301'.repeat(max)}  `));
      expect(expectJson(decomposed, 201).name).toBe('\u00e9'.repeat(max));
      expectErrors(await post(minimal(k, 'b'.repeat(max + 1))), 400, 'validation-error', ['name']);
    });

    it('names are converted to NFC and trimmed', async () => {
      const created = await create(server, k, contrib(), minimal(k, ' \t Cafe\u0301  Noir \n'));
      expect(created.name).toBe('Caf\u00e9  Noir');
      const got = await send(server, 'GET', item(created.id));
      expect(got.body.name).toBe('Caf\u00e9  Noir');
      const patched = await send(server, 'PATCH', item(created.id), { body: { name: '  Cre\u0300me  ' }, headers: contrib() });
      expect(expectJson(patched, 200).name).toBe('Cr\u00e8me');
    });

    it.each([
      ['NUL', '\u0000'],
      ['BEL', '\u0007'],
      ['line feed', '\n'],
      ['tab', '\t'],
      ['unit separator', '\u001f'],
      ['DEL', '\u007f'],
    ])('a name containing a control character (%s) → 400', async (_what, ch) => {
      expectErrors(await post(minimal(k, `Bad${ch}name`)), 400, 'validation-error', ['name']);
    });

    it('a string with an unpaired surrogate (a JSON \\ud800 escape) → 400, never stored', async () => {
      const withEscape = (fields: object, escape: string) => JSON.stringify(fields).replace('@@', escape);
      expectErrors(await post(withEscape(minimal(k, 'Bad@@name'), '\\ud800')), 400, 'validation-error', ['name']);
      if (textField) {
        const body = withEscape({ ...minimal(k, uniqueName('Surrogate')), [textField]: 'x@@y' }, '\\udc00');
        expectErrors(await post(body), 400, 'validation-error', [textField]);
      }
    });

    it.runIf(textField !== undefined)('text fields keep line breaks, tabs and surrounding white space, in NFC', async () => {
      const value = '  Line one,\r\n\tline two. Cafe\u0301  ';
      const created = await create(server, k, contrib(), { ...minimal(k, uniqueName('Text')), [textField!]: value });
      expect(created[textField!]).toBe('  Line one,\r\n\tline two. Caf\u00e9  ');
      for (const ch of ['\u0000', '\u0008', '\u000b', '\u000c', '\u001b', '\u007f']) {
        expectErrors(await post({ ...minimal(k, uniqueName()), [textField!]: `a${ch}b` }), 400, 'validation-error', [textField!]);
      }
    });

    it.runIf(textField !== undefined)('text field length is counted in code points', async () => {
      const max = k.texts[textField!]!;
      const ok = await post({ ...minimal(k, uniqueName('Long')), [textField!]: EMOJI.repeat(max) });
      expect(expectJson(ok, 201)[textField!]).toBe(EMOJI.repeat(max));
      const tooLong = await post({ ...minimal(k, uniqueName('Long')), [textField!]: 'x'.repeat(max + 1) });
      expectErrors(tooLong, 400, 'validation-error', [textField!]);
    });

    it('every field error is reported in one response', async () => {
      const body: Record<string, unknown> = { name: '', bogus: 1 };
      const keys = ['name', 'bogus'];
      if (textField) {
        body[textField] = 42;
        keys.push(textField);
      }
      for (const f of Object.keys(k.required)) {
        body[f] = 'not-a-valid-value';
        keys.push(f);
      }
      const res = await post(body);
      expectErrors(res, 400, 'validation-error', keys);
      const created = await create(server, k, contrib(), minimal(k, uniqueName('All')));
      const put = await send(server, 'PUT', item(created.id), { body, headers: contrib() });
      expectErrors(put, 400, 'validation-error', keys);
      const patch = await send(server, 'PATCH', item(created.id), { body, headers: contrib() });
      expectErrors(patch, 400, 'validation-error', keys);
      expect((await send(server, 'GET', item(created.id))).body).toEqual(created);
    });

    it('duplicate keys: the last one wins', async () => {
      const a = uniqueName('First');
      const b = uniqueName('Last');
      const raw = `{"name": ${JSON.stringify(a)}, ${Object.entries(k.required).map(([f, v]) => `"${f}": ${JSON.stringify(v)}, `).join('')}"name": ${JSON.stringify(b)}}`;
      const res = await post(raw);
      expect(expectJson(res, 201).name).toBe(b);
    });
  });

  describe('body syntax, content type and size', () => {
    it.each([
      ['truncated JSON', '{"name": "x"'],
      ['not JSON', 'name=x'],
      ['single quotes', "{'name': 'x'}"],
      ['trailing comma', '{"name": "x",}'],
      ['a JSON array', '[{"name": "x"}]'],
      ['a JSON string', '"x"'],
      ['a JSON number', '42'],
      ['JSON null', 'null'],
      ['JSON true', 'true'],
    ])('%s → 400 malformed-request', async (_what, raw) => {
      const before = await count();
      expectProblem(await post(raw), 400, 'malformed-request');
      expect(await count()).toBe(before);
    });

    it('malformed bodies on PUT and PATCH → 400 malformed-request', async () => {
      const created = await create(server, k, contrib(), minimal(k, uniqueName('Syntax')));
      for (const method of ['PUT', 'PATCH']) {
        for (const raw of ['{', '[]']) {
          expectProblem(await send(server, method, item(created.id), { body: raw, headers: contrib() }), 400, 'malformed-request');
        }
      }
    });

    it.each([
      ['a lone continuation byte', [0x80]],
      ['an invalid byte', [0xff]],
      ['an overlong encoding', [0xc0, 0xaf]],
      ['an encoded surrogate', [0xed, 0xa0, 0x80]],
      ['a truncated sequence', [0xe2, 0x82]],
    ])('a body that is not UTF-8 (%s) → 400 malformed-request', async (_what, bytes) => {
      const raw = Buffer.concat([Buffer.from('{"name": "ab'), Buffer.from(bytes), Buffer.from('cd"}')]);
      const res = await send(server, 'POST', collection, { raw, headers: { ...contrib(), 'content-type': 'application/json' } });
      expectProblem(res, 400, 'malformed-request');
    });

    it.each([
      ['text/plain', 'text/plain'],
      ['form data', 'application/x-www-form-urlencoded'],
      ['another charset', 'application/json; charset=iso-8859-1'],
      ['another JSON type', 'application/merge-patch+json'],
      ['XML', 'application/xml'],
    ])('a body sent as %s → 415', async (_what, type) => {
      const before = await count();
      const res = await post(JSON.stringify(minimal(k, uniqueName('Typed'))), { 'content-type': type });
      expectProblem(res, 415, 'unsupported-media-type');
      expect(await count()).toBe(before);
      const created = await create(server, k, contrib(), minimal(k, uniqueName('Typed')));
      for (const method of ['PUT', 'PATCH']) {
        const r = await send(server, method, item(created.id), { body: JSON.stringify(minimal(k, 'x')), headers: { ...contrib(), 'content-type': type } });
        expectProblem(r, 415, 'unsupported-media-type');
      }
    });

    it('a body without Content-Type → 415', async () => {
      const res = await send(server, 'POST', collection, { raw: Buffer.from(JSON.stringify(minimal(k, uniqueName()))), headers: contrib() });
      expectProblem(res, 415, 'unsupported-media-type');
    });

    it('application/json with charset=utf-8 (any case) is accepted', async () => {
      for (const type of ['application/json; charset=utf-8', 'application/json;charset=UTF-8', 'Application/JSON']) {
        expect((await post(minimal(k, uniqueName('Charset')), { 'content-type': type })).status, type).toBe(201);
      }
    });

    it('an empty POST body is treated as {} whatever the Content-Type → 400 for the missing name', async () => {
      for (const type of [undefined, 'application/json', 'text/plain']) {
        const res = await send(server, 'POST', collection, { raw: new Uint8Array(0), headers: { ...contrib(), ...(type ? { 'content-type': type } : {}) } });
        expectErrors(res, 400, 'validation-error', ['name', ...Object.keys(k.required)]);
      }
    });

    it('an empty PUT body is treated as {} → 400 for the missing name', async () => {
      const created = await create(server, k, contrib(), minimal(k, uniqueName('EmptyPut')));
      const res = await send(server, 'PUT', item(created.id), { body: '', headers: contrib() });
      expectErrors(res, 400, 'validation-error', ['name', ...Object.keys(k.required)]);
    });

    it('a body of exactly 1 MiB is read; one byte more → 413', async () => {
      const before = await count();
      const name = uniqueName('Big');
      const head = JSON.stringify(minimal(k, name)).slice(0, -1);
      const exact = `${head}${' '.repeat(MiB - head.length - 1)}}`;
      expect(Buffer.byteLength(exact)).toBe(MiB);
      const ok = await post(exact);
      expect(expectJson(ok, 201).name).toBe(name);
      const over = `${head}${' '.repeat(MiB - head.length)}}`;
      expectProblem(await post(over), 413, 'payload-too-large');
      expect(await count()).toBe(before + 1);
      for (const method of ['PUT', 'PATCH']) {
        const res = await send(server, method, item(ok.body.id), { body: over, headers: contrib() });
        expectProblem(res, 413, 'payload-too-large');
      }
      expect((await send(server, 'GET', item(ok.body.id))).body).toEqual(ok.body);
    });
  });

  describe('uniqueness of names (§1.8)', () => {
    it('the same name differing in case, white space or normalisation → 409 with errors.name and existing_id', async () => {
      const base = uniqueName('Mecha Café');
      const original = await create(server, k, contrib(), minimal(k, base));
      const before = await count();
      const variants = [base, base.toUpperCase(), base.toLowerCase(), `  ${base}\t`, base.replace('\u00e9', 'e\u0301')];
      for (const v of variants) {
        const res = await post(minimal(k, v));
        const problem = expectErrors(res, 409, 'conflict', ['name']);
        expect(problem.existing_id, JSON.stringify(v)).toBe(original.id);
      }
      expect(await count()).toBe(before);
    });

    it('full case folding: ß, ẞ and ss are the same name', async () => {
      const original = await create(server, k, contrib(), minimal(k, uniqueName('Straße')));
      const res = await post(minimal(k, original.name.replace('ße', 'ẞE')));
      expect(expectErrors(res, 409, 'conflict', ['name']).existing_id).toBe(original.id);
      const res2 = await post(minimal(k, original.name.replace('ße', 'SSE')));
      expect(expectErrors(res2, 409, 'conflict', ['name']).existing_id).toBe(original.id);
    });

    it('renaming onto another record’s name (PUT or PATCH) → 409; nothing changes', async () => {
      const a = await create(server, k, contrib(), full(k, uniqueName('Taken')));
      const b = await create(server, k, contrib(), full(k, uniqueName('Mine')));
      for (const method of ['PUT', 'PATCH']) {
        const res = await send(server, method, item(b.id), { body: minimal(k, ` ${a.name.toUpperCase()} `), headers: contrib() });
        expect(expectErrors(res, 409, 'conflict', ['name']).existing_id).toBe(a.id);
      }
      expect((await send(server, 'GET', item(b.id))).body).toEqual(b);
      expect((await send(server, 'GET', item(a.id))).body).toEqual(a);
    });

    it('a record may change the case of its own name', async () => {
      const a = await create(server, k, contrib(), minimal(k, uniqueName('Own case')));
      const res = await send(server, 'PATCH', item(a.id), { body: { name: a.name.toUpperCase() }, headers: contrib() });
      expect(expectJson(res, 200).name).toBe(a.name.toUpperCase());
    });

    it('a renamed record frees its old name; a deleted record frees its name', async () => {
      const a = await create(server, k, contrib(), minimal(k, uniqueName('Old name')));
      await send(server, 'PATCH', item(a.id), { body: { name: uniqueName('New name') }, headers: contrib() });
      const reuse = await create(server, k, contrib(), minimal(k, a.name));
      expect(reuse.id).not.toBe(a.id);
      expect((await send(server, 'DELETE', item(reuse.id), { headers: contrib() })).status).toBe(204);
      const again = await create(server, k, contrib(), minimal(k, a.name.toLowerCase()));
      expect(again.id).not.toBe(reuse.id);
    });
  });
});

describe('uniqueness is per kind', () => {
  it('genres, themes, demographics, magazines and producers may share a name', async () => {
    const name = uniqueName('Shared');
    const ids = new Set<string>();
    for (const k of KINDS) ids.add((await create(server, k, users.contributor, minimal(k, name))).id);
    expect(ids.size).toBe(KINDS.length);
  });
});

/**
 * Reading requests (shared/http/request.ts): query strings (API.md §1.5, §1.6), JSON content
 * types and bodies (§1.2), entity tags (§1.7).
 */
import { describe, expect, it } from 'vitest';
import { bodyBytes, isJsonContentType, lowerCaseHeaders, parseEntityTags, parseJsonObject, parseQuery } from '../../shared/http/request.js';
import { thrown } from '../support/errors.js';

const ALLOWED = new Set(['q', 'ordering', 'limit', 'cursor', 'type', 'fields']);

describe('parseQuery', () => {
  it('decodes the pairs in order (percent-encoding and +)', () => {
    expect(parseQuery('q=shingeki+no%20kyo&ordering=-name&limit=2', ALLOWED)).toEqual({
      pairs: [['q', 'shingeki no kyo'], ['ordering', '-name'], ['limit', '2']],
      values: { q: 'shingeki no kyo', ordering: '-name', limit: '2' },
    });
    expect(parseQuery('', ALLOWED)).toEqual({ pairs: [], values: {} });
    expect(parseQuery('&&q=a&', ALLOWED).values).toEqual({ q: 'a' });
    expect(parseQuery('q=%E9%80%B2%E6%92%83', ALLOWED).values.q).toBe('進撃');
    expect(parseQuery('q=a%3Db%26c', ALLOWED).values.q).toBe('a=b&c');
  });

  it('an unknown parameter → invalid-query keyed by its name', () => {
    const e = thrown(() => parseQuery('q=a&colour=red', ALLOWED));
    expect(e.type).toBe('invalid-query');
    expect(Object.keys(e.extras.errors!)).toEqual(['colour']);
    // Names are case-sensitive.
    expect(Object.keys(thrown(() => parseQuery('Q=a', ALLOWED)).extras.errors!)).toEqual(['Q']);
  });

  it('a repeated parameter → invalid-query', () => {
    const e = thrown(() => parseQuery('type=studio&type=licensor', ALLOWED));
    expect(e.type).toBe('invalid-query');
    expect(Object.keys(e.extras.errors!)).toEqual(['type']);
    expect(Object.keys(thrown(() => parseQuery('q=&q=', ALLOWED)).extras.errors!)).toEqual(['q']);
  });

  it('an empty value → invalid-query, except for q', () => {
    for (const raw of ['limit=', 'ordering', 'type=&q=a', 'cursor=']) {
      const e = thrown(() => parseQuery(raw, ALLOWED));
      expect(e.type, raw).toBe('invalid-query');
    }
    expect(parseQuery('q=', ALLOWED).values).toEqual({ q: '' });
    expect(parseQuery('q', ALLOWED).values).toEqual({ q: '' });
  });

  it('reports every bad parameter at once', () => {
    const e = thrown(() => parseQuery('a=1&limit=&b=2&type=x&type=y', ALLOWED));
    expect(Object.keys(e.extras.errors!).sort()).toEqual(['a', 'b', 'limit', 'type']);
  });

  it('offset, page and p → invalid-query that says to use the cursor, whatever else is wrong', () => {
    for (const name of ['offset', 'page', 'p']) {
      const e = thrown(() => parseQuery(`${name}=2&unknown=1`, ALLOWED));
      expect(e.type).toBe('invalid-query');
      expect(e.extras.errors).toHaveProperty(name);
      expect(e.message).toMatch(/cursor/);
    }
    expect(Object.keys(thrown(() => parseQuery('offset=0&page=1', ALLOWED)).extras.errors!).sort()).toEqual(['offset', 'page']);
  });

  it('bad percent-encoding → invalid-query keyed by the name as sent', () => {
    const e = thrown(() => parseQuery('q=%E0%A4%A', ALLOWED));
    expect(e.type).toBe('invalid-query');
    expect(Object.keys(e.extras.errors!)).toEqual(['q']);
    expect(thrown(() => parseQuery('q=%', ALLOWED)).type).toBe('invalid-query');
    expect(thrown(() => parseQuery('%zz=1', ALLOWED)).extras.errors).toHaveProperty('%zz');
  });
});

describe('isJsonContentType', () => {
  it('accepts application/json with no charset or charset utf-8, in any case', () => {
    for (const h of [
      'application/json',
      'application/json; charset=utf-8',
      'application/json;charset=UTF-8',
      'Application/JSON; Charset=Utf-8',
      'application/json; charset="utf-8"',
      'application/json ; charset = utf-8',
    ]) {
      expect(isJsonContentType(h), h).toBe(true);
    }
  });

  it('refuses other types and other charsets', () => {
    for (const h of [
      undefined,
      '',
      'text/plain',
      'text/json',
      'application/jsonx',
      'application/problem+json',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/json; charset=latin1',
      'application/json; charset=utf-16',
      'application/json; charset=utf8',
    ]) {
      expect(isJsonContentType(h), String(h)).toBe(false);
    }
  });
});

describe('parseJsonObject', () => {
  const parse = (s: string | Buffer) => parseJsonObject(typeof s === 'string' ? Buffer.from(s, 'utf8') : s);

  it('parses an object; duplicate keys: the last one wins', () => {
    expect(parse('{"name":"A","n":{"x":[1,2]}}')).toEqual({ name: 'A', n: { x: [1, 2] } });
    expect(parse('{"name":"first","name":"last"}')).toEqual({ name: 'last' });
    expect(parse(' \n{}\t')).toEqual({});
    expect(parse('{"name":"進撃 😀"}')).toEqual({ name: '進撃 😀' });
  });

  it('invalid UTF-8 → malformed-request', () => {
    expect(thrown(() => parse(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]))).type).toBe('malformed-request');
    expect(thrown(() => parse(Buffer.from([0x7b, 0xc3, 0x7d]))).type).toBe('malformed-request'); // truncated sequence
    expect(thrown(() => parse(Buffer.from([0x7b, 0xed, 0xa0, 0x80, 0x7d]))).type).toBe('malformed-request'); // encoded surrogate
  });

  it('not JSON, or not an object at the top → malformed-request', () => {
    for (const s of ['', '{', '{"a":1,}', "{'a':1}", '[]', '[{"a":1}]', 'null', '1', '"text"', 'true', '{"a":1} {"b":2}', 'NaN']) {
      expect(thrown(() => parse(s)).type, JSON.stringify(s)).toBe('malformed-request');
    }
  });
});

describe('parseEntityTags', () => {
  it('reads *, strong and weak tags', () => {
    expect(parseEntityTags(undefined)).toBeNull();
    expect(parseEntityTags('*')).toBe('*');
    expect(parseEntityTags(' * ')).toBe('*');
    expect(parseEntityTags('"abc"')).toEqual([{ tag: 'abc', weak: false }]);
    expect(parseEntityTags('W/"abc"')).toEqual([{ tag: 'abc', weak: true }]);
    expect(parseEntityTags('"a", W/"b" ,"c"')).toEqual([
      { tag: 'a', weak: false },
      { tag: 'b', weak: true },
      { tag: 'c', weak: false },
    ]);
    expect(parseEntityTags('""')).toEqual([{ tag: '', weak: false }]);
  });

  it('a header without any quoted tag matches nothing', () => {
    expect(parseEntityTags('abc')).toEqual([]);
    expect(parseEntityTags('')).toEqual([]);
  });
});

describe('headers and bodies of the event', () => {
  it('lower-cases header names and drops undefined values', () => {
    expect(lowerCaseHeaders({ 'Content-Type': 'application/json', 'X-A': undefined, authorization: 'x' })).toEqual({ 'content-type': 'application/json', authorization: 'x' });
    expect(lowerCaseHeaders(undefined)).toEqual({});
  });

  it('decodes base64 bodies', () => {
    expect(bodyBytes(Buffer.from('{"a":1}').toString('base64'), true).toString()).toBe('{"a":1}');
    expect(bodyBytes('{"a":1}', false).toString()).toBe('{"a":1}');
    expect(bodyBytes(undefined, false)).toHaveLength(0);
    expect(bodyBytes('', true)).toHaveLength(0);
  });
});

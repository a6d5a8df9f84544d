/**
 * The LRU cache bundled in place of mnemonist's (infra/aws/shims/lru-cache.ts) answers the calls
 * the DynamoDB client's endpoint cache (@aws-sdk/endpoint-cache) makes as mnemonist's does.
 */
import MnemonistModule from 'mnemonist/lru-cache.js';
import { describe, expect, it } from 'vitest';
import LRUCache from '../../infra/aws/shims/lru-cache.js';

// A CommonJS module whose typings declare an ES default export: the default import is the class.
const MnemonistLru = MnemonistModule as unknown as typeof LRUCache;

describe('LRU cache shim', () => {
  it('answers get, peek, has, size and evicts the least recently used, as mnemonist does', () => {
    const ours = new LRUCache<string, number>(3);
    const theirs = new MnemonistLru<string, number>(3);
    const trace = (c: typeof ours | typeof theirs) => {
      const out: unknown[] = [];
      c.set('a', 1);
      c.set('b', 2);
      c.set('c', 3);
      out.push(c.get('a'), c.size); // a is now the most recent
      c.set('d', 4); // evicts b
      out.push(c.has('b'), c.peek('c'), c.has('a'), c.size);
      c.set('c', 30); // c refreshed
      c.set('e', 5); // evicts a (peek did not refresh c, but set did)
      out.push(c.has('a'), c.get('c'), c.get('missing'), c.size);
      c.clear();
      out.push(c.size, c.get('c'));
      return out;
    };
    expect(trace(ours)).toEqual(trace(theirs));
  });

  it('refuses a capacity that is not a positive integer', () => {
    expect(() => new LRUCache(0)).toThrow(/capacity/);
  });

});

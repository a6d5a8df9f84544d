/**
 * Bundled in place of `mnemonist/lru-cache` (ALIASES in ../bundling.ts). Its only user in a
 * function package is the DynamoDB client's endpoint-discovery cache (@aws-sdk/endpoint-cache),
 * which needs an LRU map with get, set, peek, has and clear; mnemonist's typed-array
 * implementation and its helpers are about 6 KB minified in every package, this is a few
 * hundred bytes over a Map (insertion order is recency order). Local runs are not bundled and
 * keep mnemonist.
 */
export default class LRUCache<K, V> {
  private readonly items = new Map<K, V>();

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity <= 0) throw new Error('LRUCache: capacity should be a positive number.');
  }

  get size(): number {
    return this.items.size;
  }

  clear(): void {
    this.items.clear();
  }

  /** The value, now the most recently used. */
  get(key: K): V | undefined {
    if (!this.items.has(key)) return undefined;
    const value = this.items.get(key) as V;
    this.items.delete(key);
    this.items.set(key, value);
    return value;
  }

  /** The value, without changing the order. */
  peek(key: K): V | undefined {
    return this.items.get(key);
  }

  has(key: K): boolean {
    return this.items.has(key);
  }

  set(key: K, value: V): void {
    this.items.delete(key);
    this.items.set(key, value);
    if (this.items.size > this.capacity) this.items.delete(this.items.keys().next().value as K);
  }
}

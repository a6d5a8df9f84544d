/** JSON with object keys sorted: equal values give equal text (DynamoDB keeps no order of a map's keys). */
export const canonicalJson = (v: unknown): string =>
  JSON.stringify(v, (_k, x: unknown) => (x && typeof x === 'object' && !Array.isArray(x) && !(x instanceof Set) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : x));

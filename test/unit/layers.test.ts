/**
 * The layers of shared/ (docs/decisions.md L1, L2): shared/db, shared/domain, shared/auth and
 * shared/storage never import shared/http — what both sides need lives in the lower one
 * (query parameters: shared/domain/params.ts; listing types: shared/domain/listings.ts; file
 * parts: shared/domain/file-parts.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../shared/', import.meta.url).pathname;
const importsOf = (dir: string) =>
  readdirSync(join(ROOT, dir))
    .filter((f) => f.endsWith('.ts'))
    .flatMap((f) => [...readFileSync(join(ROOT, dir, f), 'utf8').matchAll(/^import [^;]*? from '([^']+)';/gms)].map((m) => ({ file: `${dir}/${f}`, target: m[1]! })));

describe('layers', () => {
  it('shared/db, shared/domain, shared/auth and shared/storage import nothing from shared/http', () => {
    const upward = ['db', 'domain', 'auth', 'storage'].flatMap(importsOf).filter((i) => i.target.startsWith('../http/'));
    expect(upward.map((i) => `${i.file} → ${i.target}`)).toEqual([]);
  });
});

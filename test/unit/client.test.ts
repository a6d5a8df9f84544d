/**
 * The typed client (client/): its generated types are what `npm run client` generates now, and
 * they say what a request gets back (checked by the type checker, `npm run typecheck`; the
 * example runs against the server in test/e2e/client.test.ts).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { clientTypes, SCHEMA_FILE } from '../../client/generate.js';
import type { CatalogueClient, Problem } from '../../client/index.js';

type Get = CatalogueClient['GET'];
type DataOf<R> = R extends Promise<infer F> ? (F extends { data: infer D; error?: never } ? D : never) : never;

describe('the typed client', () => {
  it('client/schema.ts is what `npm run client` generates from the current declarations', { timeout: 60_000 }, async () => {
    expect(readFileSync(SCHEMA_FILE, 'utf8'), 'client/schema.ts is stale: run `npm run client`').toBe(await clientTypes());
  });

  it('the README quotes the example that test/e2e/client.test.ts runs, as it is', () => {
    const example = readFileSync(new URL('../../client/example.ts', import.meta.url), 'utf8');
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    expect(readme).toContain(`\`\`\`ts\n${example.slice(example.indexOf('import '))}\`\`\``);
  });

  it('a GET without `fields` is typed as the full representation, with a literal `fields` as `id` and those keys', () => {
    const api = {} as CatalogueClient;
    const _full = () => api.GET('/api/genres/{id}/', { params: { path: { id: 'x' } } });
    expectTypeOf<DataOf<ReturnType<typeof _full>>>().toEqualTypeOf<{
      id: string;
      name: string;
      description: string;
      explicit: boolean;
      anime_count: number;
      manga_count: number;
      created_at: string;
      updated_at: string;
    }>();
    const _named = () => api.GET('/api/genres/', { params: { query: { fields: 'name,anime_count' } } });
    expectTypeOf<DataOf<ReturnType<typeof _named>>['results'][number]>().toEqualTypeOf<{ id: string; name: string; anime_count: number }>();
    const _some = (fields: string) => api.GET('/api/genres/{id}/', { params: { path: { id: 'x' }, query: { fields } } });
    expectTypeOf<DataOf<ReturnType<typeof _some>>['name']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<DataOf<ReturnType<typeof _some>>['id']>().toEqualTypeOf<string>();
    // Operations without `fields` are as generated.
    const _jwks = () => api.GET('/.well-known/jwks.json');
    expectTypeOf<DataOf<ReturnType<typeof _jwks>>['keys'][number]['use']>().toEqualTypeOf<'sig'>();
    expectTypeOf<Get>().toBeFunction();
    expectTypeOf<Problem['type']>().toExtend<string>();
  });
});

/**
 * The bangumi-data data set of the installed npm package (about 8,500 items, 7 MB of JSON), in a
 * module of its own: only what imports it (the season refresh job, `npm start`'s first import,
 * `npm run import-catalogue`) carries the data in its bundle (docs/decisions.md I6).
 */
export async function loadBangumiData(): Promise<unknown> {
  const mod: { default?: unknown } = await import('bangumi-data', { with: { type: 'json' } });
  return mod.default;
}

/**
 * Runs `work` for every item with at most `limit` running at once; results in input order. When
 * one fails, no further item starts and the call rejects with the first error only once the
 * items already running have settled: nothing it started still runs (and writes) after it
 * failed — a caller that tries again, or the next invocation of a Lambda function, never races
 * its own leftovers.
 */
export async function mapLimit<T, R>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (next < items.length && !failure) {
      const i = next++;
      try {
        results[i] = await work(items[i]!, i);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure) throw failure.error;
  return results;
}

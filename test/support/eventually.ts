/** Polls `check` until it passes (a stream consumer's lag), failing with its last error after `ms`. */
export async function eventually<T>(check: () => Promise<T>, ms = 30_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > until) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** Polls (every 20 ms) until a condition holds; throws, naming what never came, after the timeout. */
export async function until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

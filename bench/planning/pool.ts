/**
 * A fixed number of tasks at a time over a list, results in the list's order. The tasks here
 * are child processes, each a core's worth of CPU, so the width is the machine's core count by
 * default (--jobs).
 */
export async function runPool<T, R>(items: readonly T[], width: number, task: (item: T, index: number) => Promise<R>, onDone?: (result: R, index: number) => void): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      const result = await task(items[index] as T, index);
      results[index] = result;
      onDone?.(result, index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(width, items.length)) }, lane));
  return results;
}

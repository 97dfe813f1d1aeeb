/**
 * Runs `work` for every item, at most `concurrency` at once, in item order of starting (the one worker pool of
 * the kernel: parallel tool calls, benchmark trials). A worker takes the next item when it is done with one;
 * no new item starts once `stop()` is true or a `work` threw. Resolves when every started item is done, then
 * rejects with the first error if there was one.
 */
export async function forEachConcurrent<T>(
  items: readonly T[],
  concurrency: number,
  work: (item: T, index: number) => Promise<void>,
  stop?: () => boolean,
): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (next < items.length && !failure && !stop?.()) {
      const i = next++;
      try {
        await work(items[i], i);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  const n = Math.max(1, Math.min(concurrency, items.length));
  await Promise.all(Array.from({ length: n }, worker));
  if (failure) throw failure.error;
}

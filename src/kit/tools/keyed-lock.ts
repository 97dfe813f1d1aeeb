/**
 * Runs async work one at a time per key; different keys run freely. The edit tool holds one per tool instance,
 * keyed by file, so two edits of one file in the same step (parallel tool calls) cannot both read the old text
 * and lose one of the changes.
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const before = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const turn = new Promise<void>((resolve) => (release = resolve));
    const tail = before.then(() => turn);
    this.tails.set(key, tail);
    await before;
    try {
      return await fn();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}

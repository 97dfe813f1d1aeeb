/**
 * A counting semaphore shared by several suite runs (the cells of a sweep), so that all of them together run at
 * most `size` trials at once, whichever run a trial belongs to. Waiters are served first come, first served.
 */
export class TrialSlots {
  private free: number;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1)
      throw new RangeError(`TrialSlots: size must be a positive integer, got ${size}`);
    this.free = size;
  }

  /** Waits for a free slot; call the returned function once to give it back. */
  async acquire(): Promise<() => void> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    };
  }
}

/**
 * A bounded queue between a run (producer) and one `for await` consumer. `push` returns a promise while the
 * queue holds `capacity` items or more: a producer that awaits it waits for the consumer (backpressure). A
 * producer that cannot wait (a synchronous hook point) still enqueues, so the bound is a high-water mark.
 * `close(last)` ends the stream after `last`; `cancel()` (the consumer left) drops everything and releases
 * waiting producers.
 */
export class EventStream<T> implements AsyncIterableIterator<T> {
  private readonly items: T[] = [];
  private head = 0;
  private closed = false;
  private cancelled = false;
  /** The consumer waiting for an item. */
  private reader: ((r: IteratorResult<T>) => void) | undefined;
  /** Producers waiting for room, released together when the queue drains below capacity. */
  private room: { promise: Promise<void>; release: () => void } | undefined;

  constructor(
    private readonly capacity: number,
    private readonly onReturn: () => Promise<void>,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError(`stream buffer must be a positive integer, got ${String(capacity)}`);
  }

  /** Items waiting for the consumer. */
  get size(): number {
    return this.items.length - this.head;
  }

  push(item: T): void | Promise<void> {
    if (this.closed || this.cancelled) return;
    if (this.reader) {
      const r = this.reader;
      this.reader = undefined;
      r({ value: item, done: false });
      return;
    }
    this.items.push(item);
    if (this.size < this.capacity) return;
    if (!this.room) {
      let release!: () => void;
      const promise = new Promise<void>((resolve) => (release = resolve));
      this.room = { promise, release };
    }
    return this.room.promise;
  }

  /** Ends the stream: the consumer gets what is queued, then `last`, then done. */
  close(last: T): void {
    if (this.closed) return;
    this.push(last);
    this.closed = true;
    if (this.reader && this.size === 0) {
      this.reader({ value: undefined, done: true });
      this.reader = undefined;
    }
  }

  /** The consumer left: nothing more is delivered, producers waiting for room go on at once. */
  cancel(): void {
    this.cancelled = true;
    this.items.length = this.head = 0;
    this.releaseRoom();
  }

  next(): Promise<IteratorResult<T>> {
    if (this.size > 0) {
      const value = this.items[this.head];
      this.items[this.head++] = undefined as T;
      if (this.head > 1024 && this.head * 2 > this.items.length) {
        this.items.splice(0, this.head);
        this.head = 0;
      }
      if (this.size < this.capacity) this.releaseRoom();
      return Promise.resolve({ value, done: false });
    }
    if (this.closed || this.cancelled) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => (this.reader = resolve));
  }

  /** The consumer stopped early (`break`, `return`, a throw in the loop body). */
  async return(): Promise<IteratorResult<T>> {
    if (!this.closed) {
      this.cancel();
      await this.onReturn();
    }
    return { value: undefined, done: true };
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private releaseRoom(): void {
    const room = this.room;
    this.room = undefined;
    room?.release();
  }
}

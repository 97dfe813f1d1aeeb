/**
 * Per-run memory of a policy instance. One policy instance may serve many runs, one after another or at once
 * (a benchmark runs tasks concurrently through one Engine), so nothing a policy remembers may live in a module
 * global or on the policy object itself: it lives here, keyed by the run id.
 *
 * Policies reset a run's entry in `start` and drop it when they end the run. A run that ends for another reason
 * has no end hook to tell us, so the map is a small LRU: every step touches its run's entry, and past `capacity`
 * entries the least recently touched one (a finished run) is evicted. Each entry is bounded, so the memory of a
 * policy instance is bounded whatever the number of runs.
 */
export class RunMemory<T> {
  private readonly entries = new Map<string, T>();

  constructor(
    private readonly create: () => T,
    private readonly capacity = 1024,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new Error(`RunMemory capacity must be a positive integer, got ${capacity}`);
  }

  /** The entry of a run, created when missing; marks it as recently used. */
  get(runId: string): T {
    let entry = this.entries.get(runId);
    if (entry === undefined) {
      entry = this.create();
      this.entries.set(runId, entry);
      if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as string);
    } else {
      // Re-insert: a Map iterates in insertion order, so the first key is always the least recently used.
      this.entries.delete(runId);
      this.entries.set(runId, entry);
    }
    return entry;
  }

  /** Starts a run afresh (the engine calls `Policy.start` before step 1). */
  reset(runId: string): T {
    this.entries.delete(runId);
    return this.get(runId);
  }

  /** Forgets a run. */
  delete(runId: string): void {
    this.entries.delete(runId);
  }

  /** How many runs are remembered (for tests and diagnostics). */
  get size(): number {
    return this.entries.size;
  }
}

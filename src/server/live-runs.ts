import type { HookEvent, State } from '../core/index.js';
import type { RunEvent, RunResult } from '../engine/engine.js';

/**
 * One run the server started, while it runs: every event so far (so a late reader of `/v1/runs/:id/events`
 * starts from the beginning), the readers waiting for the next one, and the result once it ends.
 */
export class LiveRun {
  readonly events: HookEvent[] = [];
  result: RunResult<State> | undefined;
  private waiting: Array<() => void> = [];

  constructor(
    readonly runId: string,
    /** Ends the run (`interrupted`): a client that disconnects, or shutdown. */
    readonly abort: (reason: Error) => void,
  ) {}

  push(event: HookEvent): void {
    this.events.push(event);
    this.wake();
  }

  finish(result: RunResult<State>): void {
    this.result = result;
    this.wake();
  }

  /** Resolves with the run's result when it ends. */
  async done(): Promise<RunResult<State>> {
    let last: RunEvent<State> | undefined;
    for await (const e of this.follow()) last = e;
    return (last as { type: 'result'; result: RunResult<State> }).result;
  }

  /** The run's events from the first, live, then `{ type: 'result' }`. Leaving early does not touch the run. */
  async *follow(): AsyncGenerator<RunEvent<State>> {
    for await (const batch of this.batches()) yield* batch;
  }

  /**
   * The same events in batches: each batch is every event that arrived since the last one, up to the end of the
   * event-loop turn it arrived in (so a reader that writes to a socket writes once per batch, not once per stream
   * delta); the last batch ends with the result.
   */
  async *batches(): AsyncGenerator<Array<RunEvent<State>>> {
    for (let i = 0; ;) {
      if (i < this.events.length || this.result) {
        const batch: Array<RunEvent<State>> = this.events.slice(i);
        i = this.events.length;
        if (this.result) {
          batch.push({ type: 'result', result: this.result });
          yield batch;
          return;
        }
        yield batch;
        continue;
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
      // Let the events of this turn of the event loop gather (a model's deltas come several per turn), so a
      // reader writes them to its socket at once, not one syscall per delta; after the result nothing more comes.
      if (!this.result) await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  private wake(): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const w of waiting) w();
  }
}

/**
 * The runs a server has going, by run id; a run leaves when it ends (its trace is then the record). A slot is
 * reserved before a run starts, synchronously, so requests arriving together cannot all pass the limit.
 */
export class LiveRuns {
  private readonly runs = new Map<string, LiveRun>();
  private slots = 0;

  /** Runs started or starting. */
  get active(): number {
    return this.slots;
  }

  /** Takes a slot when fewer than `max` are taken; false when the server is full. */
  reserve(max: number): boolean {
    if (this.slots >= max) return false;
    this.slots++;
    return true;
  }

  /** Gives a slot back (its run ended, or failed to start). */
  release(): void {
    this.slots--;
  }

  get(runId: string): LiveRun | undefined {
    return this.runs.get(runId);
  }

  all(): LiveRun[] {
    return [...this.runs.values()];
  }

  add(run: LiveRun): void {
    this.runs.set(run.runId, run);
  }

  remove(runId: string): void {
    this.runs.delete(runId);
  }
}

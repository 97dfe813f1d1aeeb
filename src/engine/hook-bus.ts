import type { Hook, HookEvent } from '../core/index.js';
import { errorMessage } from '../core/index.js';

/**
 * Delivers events to hooks. A hook that throws (or rejects) is reported through `onError` as a
 * `hook_error` and, by default, the run goes on; with `failOnError` the engine ends the run.
 */
export class HookBus {
  /** The first hook failure when `failOnError` is set; the engine checks it between phases. */
  failure: Error | undefined;

  constructor(
    private readonly hooks: readonly Hook[],
    private readonly onError: (event: HookEvent, err: unknown) => void,
    private readonly failOnError = false,
  ) {}

  get active(): boolean {
    return this.hooks.length > 0;
  }

  emit(event: HookEvent): void {
    for (const hook of this.hooks) {
      try {
        const r = hook(event);
        if (r && typeof (r as Promise<void>).then === 'function')
          (r as Promise<void>).then(undefined, (err) => this.fail(event, err));
      } catch (err) {
        this.fail(event, err);
      }
    }
  }

  private fail(event: HookEvent, err: unknown): void {
    if (this.failOnError && !this.failure)
      this.failure = new Error(`hook failed on ${event.type}: ${errorMessage(err)}`);
    this.onError(event, err);
  }
}

import type { Failure, Hook, HookEvent, Phase, Redactor } from '../core/index.js';
import { errorMessage } from '../core/index.js';
import type { RunRecorder } from '../trace/index.js';
import { eventRedaction } from './event-redaction.js';
import { HookBus } from './hook-bus.js';

/** Where a run's events go besides hooks and the trace: an `Engine.stream` consumer. */
export interface EventSink {
  push(event: HookEvent): void | Promise<void>;
}

/**
 * Where a run's events go: its hooks, its trace recorder and an `Engine.stream` consumer. One per run; `emit` is
 * the one way an event leaves a run. A hook that throws becomes a `hook_error` event and a failure of the run
 * (`hookFailed`), and with `failOnHookError` the loop ends the run at the next phase boundary (`hooks.failure`).
 */
export class RunEvents {
  readonly hooks: HookBus;
  /** True when someone watches phases (hooks or a stream consumer): phase events are made only then. */
  readonly observed: boolean;

  constructor(
    /** The run the events are of: their step and phase, and where hook failures are counted. */
    private readonly run: { readonly step: number; readonly phase: Phase; readonly failures: Failure[] },
    hooks: readonly Hook[],
    private readonly recorder: RunRecorder | undefined,
    private readonly sink: EventSink | undefined,
    private readonly failOnHookError = false,
    /** The run's secrets: taken out of what the trace and the stream get (hooks see events as they are). */
    redactor?: Redactor,
  ) {
    this.hooks = new HookBus(hooks, (event, err) => this.hookFailed(event, err), failOnHookError);
    this.observed = this.hooks.active || sink !== undefined;
    this.redacted = redactor ? eventRedaction(redactor) : (event) => [event];
  }

  private readonly redacted: (event: HookEvent) => HookEvent[];

  /** Tells hooks, the trace and a stream consumer; a promise means a slow consumer wants the run to wait. */
  emit(event: HookEvent): void | Promise<void> {
    if (this.hooks.active) this.hooks.emit(event);
    let pushed: void | Promise<void> = undefined;
    for (const e of this.redacted(event)) {
      this.recorder?.event(this.run.step, this.run.phase, e);
      pushed = this.sink?.push(e);
    }
    return pushed;
  }

  /** A hook threw on `event`: a failure of the run, and a `hook_error` event (never sent again to hooks for a hook_error). */
  private hookFailed(event: HookEvent, err: unknown): void {
    const run = this.run;
    const ev: HookEvent = { type: 'hook_error', step: run.step, event: event.type, message: errorMessage(err) };
    run.failures.push({
      step: run.step,
      kind: 'hook',
      message: `hook failed on ${event.type}: ${errorMessage(err)}`,
      fatal: this.failOnHookError,
    });
    if (event.type !== 'hook_error') this.hooks.emit(ev);
    for (const e of this.redacted(ev)) {
      this.recorder?.event(run.step, run.phase, e);
      void this.sink?.push(e);
    }
  }
}

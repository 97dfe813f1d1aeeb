import type { ActionRunner, State, Task, TaskInput } from '../core/index.js';
import {
  AbortedError,
  Breakpoint,
  QitosError,
  Task as TaskSchema,
  formatZodIssue,
  newId,
  parsePermissionConfig,
} from '../core/index.js';
import type { AgentModule } from './agent-module.js';
import { ActionExecutor } from './action-executor.js';
import type { EngineOptions, RunEvent, RunOptions, RunResult, StreamOptions } from './engine-options.js';
import { EventStream } from './event-stream.js';
import { openRun } from './open-run.js';
import { RunLoop } from './run-loop.js';

export type { TraceOptions } from '../trace/index.js';
export type { EngineOptions, RunEvent, RunOptions, RunResult, StreamOptions } from './engine-options.js';

/**
 * Runs an AgentModule through the loop OBSERVE -> DECIDE -> ACT -> REDUCE -> CHECK_STOP, with RECOVER on errors.
 * One Engine may run many tasks, one after another or concurrently: each run has its own state, services and
 * policy instances (`openRun`), and its own `RunLoop`, whose methods are the loop's phases.
 */
export class Engine<S extends State = State> {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any observation type (AgentModule is invariant in it)
  readonly agent: AgentModule<S, any>;
  private readonly executor: ActionRunner;

  constructor(readonly options: EngineOptions<S>) {
    this.agent = options.agent;
    if (options.permission !== undefined) parsePermissionConfig(options.permission, 'EngineOptions.permission');
    if (options.memoryInput && !options.memory)
      throw new TypeError(
        "EngineOptions.memoryInput retrieves from the run's memory: pass a memory too (EngineOptions.memory)",
      );
    if (options.breakpoints !== undefined) checkBreakpoints(options);
    this.executor = options.executor ?? new ActionExecutor(this.agent.tools, options.tools);
  }

  /** Runs one task to its end. Never throws for anything the run does: the result carries the stop reason. */
  run(input: TaskInput | string, opts: RunOptions<S> = {}): Promise<RunResult<S>> {
    return this.execute(input, opts, undefined);
  }

  /**
   * Runs one task and yields its events as they happen (the same typed events hooks get: stream deltas, tool
   * state moves, phases, policy decisions), then `{ type: 'result', result }`. A consumer slower than the run
   * holds it back: past `buffer` waiting events the run waits for the consumer before it goes on. Leaving the
   * loop early (`break`, `return`, a throw) ends the run `interrupted`, with its trace finalized before the
   * loop statement completes.
   */
  stream(input: TaskInput | string, opts: StreamOptions<S> = {}): AsyncIterableIterator<RunEvent<S>> {
    const controller = new AbortController();
    const onAbort = () => controller.abort(opts.signal?.reason);
    if (opts.signal?.aborted) onAbort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    let done: Promise<void> = Promise.resolve();
    const stream = new EventStream<RunEvent<S>>(opts.buffer ?? 256, async () => {
      controller.abort(new AbortedError('the stream consumer stopped reading'));
      await done;
    });
    done = this.execute(input, { ...opts, signal: controller.signal }, stream).then((result) => {
      opts.signal?.removeEventListener('abort', onAbort);
      // The stream is what a server answers from: the run's secrets stay out of it (the result of run() is the caller's own).
      stream.close({
        type: 'result',
        result: this.options.redactor ? this.options.redactor.redactValue(result) : result,
      });
    });
    return stream;
  }

  private execute(
    input: TaskInput | string,
    opts: RunOptions<S>,
    sink: EventStream<RunEvent<S>> | undefined,
  ): Promise<RunResult<S>> {
    const parsed = TaskSchema.safeParse(typeof input === 'string' ? { id: newId('task'), objective: input } : input);
    const task: Task = parsed.success
      ? parsed.data
      : {
          id: 'invalid',
          objective: '',
          inputs: {},
          resources: {},
          budget: {},
          successCriteria: [],
          metadata: { input },
        };
    const invalid = parsed.success ? undefined : `invalid task: ${formatZodIssue(parsed.error.issues[0], '(task)')}`;
    const { run, services } = openRun(this.options, task, sink);
    return new RunLoop(this.options, this.executor, run, services).execute(opts, invalid);
  }
}

/** Bad breakpoints are named when the Engine is made, not found to never match during a run. */
function checkBreakpoints<S extends State>(options: EngineOptions<S>): void {
  const list: unknown = options.breakpoints;
  if (!Array.isArray(list)) throw new QitosError('internal', 'EngineOptions.breakpoints: expected an array');
  const points = list.map((b, i) => {
    const r = Breakpoint.safeParse(b);
    if (!r.success)
      throw new QitosError('internal', `EngineOptions.breakpoints[${i}]: ${formatZodIssue(r.error.issues[0])}`);
    return r.data;
  });
  if (points.length && !options.onBreak)
    throw new QitosError('internal', 'EngineOptions.breakpoints needs onBreak, which is called at each stop');
  const expr = points.find((b) => b.on === 'expr');
  if (expr && !options.breakCondition)
    throw new QitosError(
      'internal',
      `EngineOptions.breakpoints: an expr breakpoint (${expr.expr}) needs breakCondition to evaluate it`,
    );
}

import type {
  BreakCommand,
  BreakContext,
  Breakpoint,
  OnBreak,
  SimpleDecision,
  State,
  StepRecord,
} from '../core/index.js';
import { SimpleDecision as SimpleDecisionSchema } from '../core/index.js';

/** The id prefix of the breakpoints a replay sets to serve recorded edits (a debugger hides them from its user). */
export const REPLAY_EDIT_ID = 'replay-edit';

/**
 * Serves a trace's debugger changes to its replay: at the `act` edge of each step whose decision was edited at a
 * breakpoint it answers `edit` with the recorded decision, and `skip` for each call that was skipped, so the
 * replay acts as the run did (and records the edit too). Its `breakpoints` go into the Engine's; `onBreak(inner)`
 * is the Engine's `onBreak`.
 */
export class ReplayEdits {
  readonly breakpoints: Breakpoint[] = [];
  private readonly edits = new Map<number, SimpleDecision>();
  private readonly skips = new Map<number, number[]>();

  constructor(steps: readonly StepRecord[]) {
    for (const s of steps) {
      const edited = s.edited && SimpleDecisionSchema.safeParse(s.decision);
      if (edited?.success) this.edits.set(s.step, edited.data);
      const skipped = s.results.flatMap((r, i) => (r.status === 'skipped' ? [i] : []));
      if (skipped.length) this.skips.set(s.step, skipped);
      if (edited?.success || skipped.length)
        this.breakpoints.push({ on: 'step', step: s.step, phase: 'act', id: `${REPLAY_EDIT_ID}-${s.step}` });
    }
  }

  /** True when the trace holds an edit or a skip. */
  get recorded(): boolean {
    return this.breakpoints.length > 0;
  }

  /** The recorded change still to make at this stop, or undefined. */
  serve(ctx: BreakContext<State>): BreakCommand | undefined {
    if (ctx.phase !== 'act') return undefined;
    const decision = this.edits.get(ctx.step);
    if (decision && ctx.original === undefined) return { command: 'edit', decision };
    const skip = this.skips.get(ctx.step)?.find((i) => !ctx.skipped.includes(i));
    return skip === undefined ? undefined : { command: 'skip', call: skip };
  }

  /**
   * The Engine's `onBreak`: the recorded changes first, then `inner` (a debugger of the replay, which also stops
   * where a recorded change was made: the stop says so in its `reason`), or on without one.
   */
  onBreak<S extends State>(inner?: OnBreak<S>): OnBreak<S> {
    return (ctx) => this.serve(ctx) ?? (inner ? inner(ctx) : { command: 'continue' });
  }
}

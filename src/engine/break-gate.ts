import type {
  Action,
  ActionResult,
  ActionRunner,
  ActContext,
  BreakCondition,
  BreakContext,
  BreakPhase,
  Breakpoint,
  Decision,
  ModelMessage,
  OnBreak,
  Phase,
  State,
} from '../core/index.js';
import {
  AbortedError,
  BreakCommand,
  Breakpoint as BreakpointSchema,
  QitosError,
  SimpleDecision as SimpleDecisionSchema,
  describeBreakpoint,
  errorMessage,
  formatZodIssue,
  newActionId,
} from '../core/index.js';
import type { EngineOptions } from './engine-options.js';
import { replaceToolCalls } from './replace-tool-calls.js';
import type { ActiveRun } from './run-context.js';
import type { StepRecordBuilder } from './step-record-builder.js';

/** Where the run goes after a stop: on to the next breakpoint, or stepping to an edge a command named. */
type Mode =
  | { kind: 'run' }
  | { kind: 'step' }
  | { kind: 'next'; after: number }
  | { kind: 'until'; step: number | undefined; phase: BreakPhase | undefined };

/** Why the run stops at an edge. */
interface Stop {
  hits: Breakpoint[];
  reason: string;
  /** A `step`, `next` or `until` stops here too. */
  stepping: boolean;
}

const BREAK_PHASES: ReadonlySet<Phase> = new Set<Phase>([
  'observe',
  'decide',
  'act',
  'reduce',
  'critique',
  'check_stop',
]);

/**
 * The step debugger's side of a run (the Engine's `breakpoints` and `onBreak`, docs/debugging.md). The loop calls
 * it at its phase edges: `before(phase)` before each phase, `beforeAct(decision)` between DECIDE and ACT (the edge
 * where a decision can be edited and calls skipped). At an edge where a breakpoint matches, or where a `step`,
 * `next` or `until` said to stop, it awaits `onBreak` and carries out its commands. A run without `onBreak` has
 * no gate: the loop pays one `if` per phase.
 */
export class BreakGate<S extends State> {
  /** The run's own copy of the breakpoints (`onBreak` may change it). */
  private readonly points: Breakpoint[];
  private readonly onBreak: OnBreak<S>;
  private readonly condition: BreakCondition | undefined;
  private mode: Mode = { kind: 'run' };
  /** Indexes of this step's calls to skip (set at the `act` edge, read by the executor). */
  private readonly skips = new Set<number>();

  constructor(
    options: EngineOptions<S>,
    onBreak: OnBreak<S>,
    private readonly loop: ActiveRun<S>,
  ) {
    this.points = [...(options.breakpoints ?? [])];
    this.onBreak = onBreak;
    this.condition = options.breakCondition;
  }

  /** Before `phase` (ACT's edge is `beforeAct`, which every step passes). */
  async before(phase: Phase, rec: StepRecordBuilder): Promise<void> {
    if (phase === 'act' || !BREAK_PHASES.has(phase)) return;
    const stop = this.find(phase as BreakPhase, rec, null);
    if (stop) await this.pause(phase as BreakPhase, rec, stop, null);
  }

  /** Between DECIDE and ACT: returns the decision to act on (an `edit` may have replaced it). */
  async beforeAct(decision: Decision, rec: StepRecordBuilder): Promise<Decision> {
    this.skips.clear();
    const stop = this.find('act', rec, decision);
    return stop ? ((await this.pause('act', rec, stop, decision)) ?? decision) : decision;
  }

  /** The run's action runner: `inner`, but the calls skipped at this step's `act` edge get a skipped result. */
  runner(inner: ActionRunner): ActionRunner {
    return {
      run: async (actions: readonly Action[], ctx: ActContext): Promise<ActionResult[]> => {
        if (!this.skips.size) return inner.run(actions, ctx);
        const ran = await inner.run(
          actions.filter((_, i) => !this.skips.has(i)),
          ctx,
        );
        const out: ActionResult[] = [];
        let j = 0;
        for (let i = 0; i < actions.length; i++)
          out.push(this.skips.has(i) ? await skippedResult(actions[i], ctx) : ran[j++]);
        return out;
      },
    };
  }

  /** The breakpoints that match this edge and whether stepping stops here; undefined when the run goes on. */
  private find(phase: BreakPhase, rec: StepRecordBuilder, decision: Decision | null): Stop | undefined {
    let hits: Breakpoint[] | undefined;
    let reason = '';
    for (let i = 0; i < this.points.length; i++) {
      const bp = this.points[i];
      const failed = this.matches(bp, phase, rec, decision);
      if (failed === false) continue;
      (hits ??= []).push(bp);
      const what = `breakpoint ${bp.id ?? i + 1} (${describeBreakpoint(bp)})`;
      reason += (reason ? '; ' : '') + (typeof failed === 'string' ? `${what}: ${failed}` : what);
    }
    const stepping = this.stepping(phase);
    if (!hits) return stepping ? { hits: [], reason: stepping, stepping: true } : undefined;
    // A one-time breakpoint is gone once hit (so a `list` at this stop no longer shows it).
    for (const bp of hits) if (bp.once) this.points.splice(this.points.indexOf(bp), 1);
    return { hits, reason: stepping ? `${reason}; ${stepping}` : reason, stepping: stepping !== undefined };
  }

  /** True when `bp` matches this edge, false when not, a message when its expression failed (which stops too). */
  private matches(
    bp: Breakpoint,
    phase: BreakPhase,
    rec: StepRecordBuilder,
    decision: Decision | null,
  ): boolean | string {
    switch (bp.on) {
      case 'phase':
        return bp.phase === phase;
      case 'step':
        return bp.step === this.loop.run.step && phase === (bp.phase ?? 'observe');
      case 'tool':
        return phase === 'act' && decision?.mode === 'act' && decision.actions.some((a) => a.name === bp.tool);
      case 'expr': {
        if (phase !== (bp.phase ?? 'observe')) return false;
        if (!this.condition) return 'no breakCondition to evaluate it';
        const run = this.loop.run;
        const scope = { state: run.state, step: run.step, phase, observation: rec.record.observation, decision };
        try {
          return this.condition(bp.expr, scope);
        } catch (err) {
          return `the expression failed: ${errorMessage(err)}`;
        }
      }
    }
  }

  /** Why a `step`, `next` or `until` stops at this edge, or undefined. */
  private stepping(phase: BreakPhase): string | undefined {
    const m = this.mode;
    const step = this.loop.run.step;
    switch (m.kind) {
      case 'run':
        return undefined;
      case 'step':
        return 'step';
      case 'next':
        return step > m.after ? 'next' : undefined;
      case 'until':
        if (m.step !== undefined && step < m.step) return undefined;
        if (m.phase !== undefined && phase !== m.phase) return undefined;
        return `until ${[m.step === undefined ? '' : `step ${m.step}`, m.phase ?? ''].filter(Boolean).join(' ')}`;
    }
  }

  /** The stop: asks `onBreak` until it answers with a command that lets the run go on (or stop). */
  private async pause(
    phase: BreakPhase,
    rec: StepRecordBuilder,
    stop: Stop,
    decision: Decision | null,
  ): Promise<Decision | null> {
    this.mode = { kind: 'run' };
    let current = decision;
    let original: Decision | undefined;
    for (;;) {
      const answer = await this.onBreak(this.context(phase, rec, stop, current, original));
      const parsed = BreakCommand.safeParse(withActionIds(answer));
      if (!parsed.success)
        throw new QitosError(
          'internal',
          `onBreak answered ${preview(answer)}: ${formatZodIssue(parsed.error.issues[0], '(command)')}`,
        );
      this.checkBreakpoints();
      const cmd = parsed.data;
      if (cmd.command === 'edit') {
        original ??= current ?? undefined;
        current = this.edit(phase, rec, original, cmd.decision);
      } else if (cmd.command === 'skip') this.skip(phase, current, cmd.call);
      else {
        this.go(cmd);
        return current;
      }
    }
  }

  /** `edit`: the step acts on `decision` from now on; the record keeps what DECIDE gave. */
  private edit(
    phase: BreakPhase,
    rec: StepRecordBuilder,
    original: Decision | undefined,
    decision: Decision,
  ): Decision {
    if (phase !== 'act' || original === undefined)
      throw new QitosError(
        'internal',
        `onBreak: a decision is edited at the act edge (after DECIDE), not before ${phase}`,
      );
    const edited = SimpleDecisionSchema.safeParse(decision);
    if (!edited.success)
      throw new QitosError('internal', `onBreak: an edited decision is act, final or wait, not ${decision.mode}`);
    rec.edited(original, edited.data);
    if (rec.reply) replaceToolCalls(rec.reply, edited.data);
    // The calls changed: skips named the old ones.
    this.skips.clear();
    return edited.data;
  }

  /** `skip`: call `call` (an index or an action id) of the decision does not run. */
  private skip(phase: BreakPhase, decision: Decision | null, call: number | string): void {
    if (phase !== 'act' || decision?.mode !== 'act')
      throw new QitosError('internal', 'onBreak: a tool call is skipped at the act edge of a step that calls tools');
    const actions = decision.actions;
    const i = typeof call === 'number' ? call : actions.findIndex((a) => a.id === call);
    if (i < 0 || i >= actions.length)
      throw new QitosError(
        'internal',
        `onBreak: skip ${JSON.stringify(call)}: the decision has calls 0..${actions.length - 1} (${actions.map((a) => a.id).join(', ')})`,
      );
    this.skips.add(i);
  }

  /** The commands that let the run go on (or stop it): where it stops next. */
  private go(cmd: Exclude<BreakCommand, { command: 'edit' | 'skip' }>): void {
    const { run, services } = this.loop;
    switch (cmd.command) {
      case 'stop':
        services.abort.abort(new AbortedError('stopped at a breakpoint'));
        throw new AbortedError('stopped at a breakpoint');
      case 'continue':
        this.mode = { kind: 'run' };
        return;
      case 'step':
        this.mode = { kind: 'step' };
        return;
      case 'next':
        this.mode = { kind: 'next', after: run.step };
        return;
      case 'until':
        this.mode = { kind: 'until', step: cmd.step, phase: cmd.phase };
        return;
    }
  }

  /** What `onBreak` sees at this stop. */
  private context(
    phase: BreakPhase,
    rec: StepRecordBuilder,
    stop: Stop,
    decision: Decision | null,
    original: Decision | undefined,
  ): BreakContext<S> {
    const { run, services } = this.loop;
    const record = rec.record;
    const skipped = [...this.skips].sort((a, b) => a - b);
    return {
      runId: run.runId,
      step: run.step,
      phase,
      hits: stop.hits,
      stepping: stop.stepping,
      reason: stop.reason,
      state: run.state,
      observation: record.observation,
      decision,
      original,
      skipped,
      results: record.results,
      get messages(): readonly ModelMessage[] {
        const sent = rec.sentMessages;
        if (sent) return sent;
        const state = run.state;
        return services.input.build(services.agent.buildSystemPrompt(state), state.messages).messages;
      },
      breakpoints: this.points,
    };
  }

  /** `onBreak` may change the list: a bad entry is named now, not silently never matched. */
  private checkBreakpoints(): void {
    for (let i = 0; i < this.points.length; i++) {
      const r = BreakpointSchema.safeParse(this.points[i]);
      if (!r.success)
        throw new QitosError(
          'internal',
          `onBreak left an invalid breakpoint at breakpoints[${i}]: ${formatZodIssue(r.error.issues[0])}`,
        );
      if (r.data.on === 'expr' && !this.condition)
        throw new QitosError(
          'internal',
          `breakpoint ${describeBreakpoint(r.data)} needs the Engine's breakCondition option`,
        );
    }
  }
}

/** An edited act decision's calls need ids: a human typing JSON leaves them out. */
function withActionIds(answer: unknown): unknown {
  const a = answer as { command?: unknown; decision?: { mode?: unknown; actions?: unknown } } | null;
  if (a?.command !== 'edit' || a.decision?.mode !== 'act' || !Array.isArray(a.decision.actions)) return answer;
  const actions = a.decision.actions.map((x: unknown) =>
    x && typeof x === 'object' && !('id' in x) ? { ...x, id: newActionId() } : x,
  );
  return { ...a, decision: { ...a.decision, actions } };
}

/** The result of a call skipped at a breakpoint (its tool state an error, so the model sees it did not run). */
async function skippedResult(action: Action, ctx: ActContext): Promise<ActionResult> {
  const t = Date.now();
  const error = 'Not executed: skipped at a breakpoint in the debugger';
  const state = { status: 'error' as const, input: action.args, error, time: { created: t, start: t, end: t } };
  const told = ctx.onState(action, state);
  if (told) await told;
  return { actionId: action.id, name: action.name, status: 'skipped', output: null, error, latencyMs: 0, state };
}

function preview(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 200 ? `${s.slice(0, 200)}...` : s;
}

import type { ActContext, Action, ActionResult, ActionRunner, StepRecord, ToolState } from '../core/index.js';
import { canonicalJson } from '../core/index.js';
import { ReplayDriftError, type ReplayDrift } from './replay-drift.js';

/** Options of a ReplayExecutor. */
export interface ReplayExecutorOptions {
  /** Serve the recorded result at the same position even when the call differs (the drift is still listed). */
  allowDrift?: boolean;
}

/**
 * Serves a trace's recorded tool results instead of running tools: the live step's i-th action gets the
 * recorded step's i-th result (with the live action id). A call whose tool name or arguments differ from
 * the recording, or a different number of calls, is drift: a ReplayDriftError unless `allowDrift`, in which
 * case the result at the same position is served, or an error result when there is none. Served results
 * keep their recorded outputs and timings; the tool state still moves pending -> completed | error.
 */
export class ReplayExecutor implements ActionRunner {
  readonly drifts: ReplayDrift[] = [];
  private readonly byStep = new Map<number, StepRecord>();

  constructor(
    steps: readonly StepRecord[],
    private readonly options: ReplayExecutorOptions = {},
  ) {
    for (const s of steps) this.byStep.set(s.step, s);
  }

  async run(actions: readonly Action[], ctx: ActContext): Promise<ActionResult[]> {
    const rec = this.byStep.get(ctx.step);
    // Calls skipped at a breakpoint never reached the runner: the replay skips them again (its debugger gate), so
    // what it asks this runner for is the recorded calls that ran.
    const ran = (rec?.results ?? []).map((r) => r.status !== 'skipped');
    const recActions = (rec?.decision?.mode === 'act' ? rec.decision.actions : []).filter((_, i) => ran[i] ?? true);
    const recResults = (rec?.results ?? []).filter((_, i) => ran[i]);
    const problems: string[] = [];
    if (recActions.length !== actions.length)
      problems.push(`${actions.length} tool call(s) where the recording has ${recActions.length}`);
    actions.forEach((a, i) => {
      const r = recActions[i];
      if (!r) return;
      if (r.name !== a.name) problems.push(`call ${i + 1} is ${a.name}, recorded ${r.name}`);
      else if (canonicalJson(r.args) !== canonicalJson(a.args))
        problems.push(`call ${i + 1} (${a.name}) has args ${canonicalJson(a.args)}, recorded ${canonicalJson(r.args)}`);
    });
    if (problems.length) {
      const drift: ReplayDrift = {
        step: ctx.step,
        parts: ['tool-call'],
        message: `replay drift at step ${ctx.step}: ${problems.join('; ')}`,
      };
      this.drifts.push(drift);
      if (!this.options.allowDrift) throw new ReplayDriftError(drift);
    }
    const ruled = await permissionDrift(actions, recResults, ctx);
    if (ruled.length) {
      const drift: ReplayDrift = {
        step: ctx.step,
        parts: ['permission'],
        message: `replay drift at step ${ctx.step}: ${ruled.join('; ')}`,
      };
      this.drifts.push(drift);
      if (!this.options.allowDrift) throw new ReplayDriftError(drift);
    }
    return actions.map((a, i) => this.serve(a, recResults[i], ctx));
  }

  private serve(action: Action, recorded: ActionResult | undefined, ctx: ActContext): ActionResult {
    const created = Date.now();
    ctx.onState(action, { status: 'pending', input: action.args, time: { created } });
    if (!recorded) {
      const error = `Replay has no recorded result for call ${action.name} at step ${ctx.step}`;
      const state: ToolState = {
        status: 'error',
        input: action.args,
        error,
        time: { created, start: created, end: created },
      };
      ctx.onState(action, state);
      return { actionId: action.id, name: action.name, status: 'error', output: null, error, latencyMs: 0, state };
    }
    const out = structuredClone(recorded);
    out.actionId = action.id;
    out.state = { ...out.state, input: action.args } as ToolState;
    ctx.onState(action, out.state);
    return out;
  }
}

/**
 * Where the replay's permission rules judge a call otherwise than the recorded run's did (a rule set that changed):
 * the recorded decision is still served (no one is asked again), the difference is drift.
 */
async function permissionDrift(
  actions: readonly Action[],
  recorded: readonly ActionResult[],
  ctx: ActContext,
): Promise<string[]> {
  const out: string[] = [];
  for (const [i, a] of actions.entries()) {
    const was = recorded[i]?.permission;
    const now = await ctx.judge?.(a);
    if (!was && !now) continue;
    const show = (p: { action: string; rule: { key: string; pattern: string } | null } | undefined) =>
      p
        ? `${p.action} (${p.rule ? `rule ${p.rule.key} ${JSON.stringify(p.rule.pattern)}` : 'no rule'})`
        : 'not checked (no rules)';
    if (was?.action !== now?.action || canonicalJson(was?.rule ?? null) !== canonicalJson(now?.rule ?? null))
      out.push(`call ${i + 1} (${a.name}) was ${show(was)} when recorded; the current rules say ${show(now)}`);
  }
  return out;
}

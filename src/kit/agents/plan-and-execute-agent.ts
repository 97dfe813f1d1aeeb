import { z } from 'zod';
import type { ActionResult, Decision, Model, State, Task } from '../../core/index.js';
import { baseState, decide, defineTool, responseText, totalTokens } from '../../core/index.js';
import { AgentModule, type AgentContext, type AgentModuleOptions } from '../../engine/agent-module.js';
import { reactParser } from '../parsers/index.js';

/** One step of the plan: its text, where it stands, and what it produced or why it failed. */
export const PlanItem = z.object({
  text: z.string().min(1),
  status: z.enum(['pending', 'done', 'failed']),
  result: z.string().optional(),
});
export type PlanItem = z.infer<typeof PlanItem>;

/** The state of a plan-and-execute run: the plan as a typed list, and how often it was re-planned. */
export interface PlanState extends State {
  plan: PlanItem[];
  /** True when the next step re-plans (no plan yet, or a step failed). */
  planNeeded: boolean;
  replans: number;
  /** The plan step the model was last told to work on (its index), so the prompt names each step once. */
  announced: number;
}

/** The planner's system prompt (documented in docs/planning.md). */
export const PLANNER_PROMPT = [
  'You plan the work of an autonomous agent that has tools. Break the task into a short numbered list of concrete steps',
  '(at most {max}), each doable with the tools, the last one producing the answer. One step per line: "1. ...".',
  'When told that steps are done or failed, plan only what remains, taking the failures into account. No preamble.',
].join('\n');

/** The tool the executor calls to close a plan step. */
export const PLAN_STEP_DONE = 'plan_step_done';

const stepDoneTool = defineTool({
  id: PLAN_STEP_DONE,
  description:
    'Closes the current plan step: success true with its result, or success false with why it ' +
    'cannot be done (the rest is then re-planned).',
  parameters: z.object({ result: z.string().min(1), success: z.boolean().default(true) }),
  execute: ({ result, success }) => (success ? `step done: ${result}` : `step failed: ${result}`),
});

/** Options of a {@link PlanAndExecuteAgent}. */
export interface PlanAndExecuteOptions extends AgentModuleOptions {
  /** The model that plans (default: the run's model). Its calls count in the run's usage and budgets. */
  plannerModel?: Model;
  /** Most steps in a plan (default 8). */
  maxPlanSteps?: number;
  /** Re-plans after failed steps before the agent goes on without one (default 2). */
  maxReplans?: number;
  /** The state's step limit (default 40). */
  maxSteps?: number;
}

/** The numbered items of a planner's reply. */
export function parsePlan(text: string, max: number): PlanItem[] {
  const items: PlanItem[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s*(?:\d+[.)]|[-*])\s+(.+?)\s*$/.exec(line);
    if (m && items.length < max) items.push({ text: m[1], status: 'pending' });
  }
  return items;
}

/**
 * Plan-and-execute: the first step asks the planner for a numbered plan (a typed list in the state); then the
 * executor (the model path, with the agent's tools) works through it one step at a time, closing each with the
 * `plan_step_done` tool; a step closed as failed makes the next step re-plan what remains (up to `maxReplans`).
 * Planning happens in REDUCE through `ctx.callModel` (purpose `plan`), so the plan, its calls and their usage are
 * in the trace and the state; `metrics` keeps the planner's and the executor's tokens apart.
 */
export class PlanAndExecuteAgent extends AgentModule<PlanState> {
  readonly plannerModel: Model | undefined;
  readonly maxPlanSteps: number;
  readonly maxReplans: number;
  readonly maxSteps: number;

  constructor(options: PlanAndExecuteOptions = {}) {
    const parser = options.parser ?? reactParser();
    super({
      ...options,
      parser,
      config: {
        parser: parser.name,
        maxPlanSteps: options.maxPlanSteps ?? 8,
        maxReplans: options.maxReplans ?? 2,
        ...options.config,
      },
    });
    if (!this.tools.has(PLAN_STEP_DONE)) this.tools.register(stepDoneTool);
    this.plannerModel = options.plannerModel;
    this.maxPlanSteps = options.maxPlanSteps ?? 8;
    this.maxReplans = options.maxReplans ?? 2;
    this.maxSteps = options.maxSteps ?? 40;
    for (const [k, v] of [
      ['maxPlanSteps', this.maxPlanSteps],
      ['maxSteps', this.maxSteps],
    ] as const) {
      if (!Number.isInteger(v) || v < 1)
        throw new RangeError(`PlanAndExecuteAgent: ${k} must be a positive integer, got ${v}`);
    }
  }

  initState(task: Task): PlanState {
    const state = baseState(task, this.maxSteps);
    state.metrics = { plannerCalls: 0, plannerTokens: 0, executorTokens: 0 };
    return { ...state, plan: [], planNeeded: true, replans: 0, announced: -1 };
  }

  /** A planning step (no action: REDUCE plans), or the model path working on the current plan step. */
  override decide(state: PlanState): Decision | undefined {
    return state.planNeeded
      ? decide.wait(state.plan.length ? 'a step failed: re-planning what remains' : 'planning')
      : undefined;
  }

  override buildSystemPrompt(): string {
    const parser = this.parser ?? reactParser();
    return [
      'You carry out a plan step by step, using the tools below.',
      `When the current step is done, call ${PLAN_STEP_DONE} with its result; if it cannot be ` +
        `done, call ${PLAN_STEP_DONE} with success false and why.`,
      'Give the final answer only when the last step is done.',
      '',
      parser.instructions(this.tools.specs()),
    ].join('\n');
  }

  /** Names the current plan step once, when the executor starts on it. */
  override prepare(state: PlanState): string | undefined {
    const current = state.plan.findIndex((p) => p.status === 'pending');
    if (current < 0 || current === state.announced) return undefined;
    const plan = state.plan
      .map(
        (p, i) => `${i + 1}. [${i === current ? 'current' : p.status}] ${p.text}${p.result ? ` -> ${p.result}` : ''}`,
      )
      .join('\n');
    const head = state.messages.length === 0 ? `Task: ${state.task}\n\n` : '';
    return `${head}Plan:\n${plan}\n\nWork on step ${current + 1}: ${state.plan[current].text}`;
  }

  override async reduce(
    state: PlanState,
    _o: unknown,
    decision: Decision,
    results: ActionResult[],
    ctx: AgentContext,
  ): Promise<PlanState> {
    let next: PlanState = { ...state, announced: this.announcedAfter(state) };
    if (decision.mode === 'wait' && state.planNeeded) next = await this.plan(next, ctx);
    for (const r of results) {
      if (r.name !== PLAN_STEP_DONE || r.status !== 'success') continue;
      const i = next.plan.findIndex((p) => p.status === 'pending');
      if (i < 0) continue;
      const failed = String(r.output).startsWith('step failed: ');
      const result = String(r.output).replace(/^step (done|failed): /, '');
      next = {
        ...next,
        plan: next.plan.map((p, j) => (j === i ? { ...p, status: failed ? 'failed' : 'done', result } : p)),
      };
      if (failed && next.replans < this.maxReplans) next = { ...next, planNeeded: true };
    }
    let executor = 0;
    for (const m of next.messages) if (m.role === 'assistant') executor += totalTokens(m.info.tokens);
    next.metrics = { ...next.metrics, executorTokens: executor };
    return next;
  }

  /** The index `prepare` announced this step (it runs before REDUCE, on the state REDUCE gets). */
  private announcedAfter(state: PlanState): number {
    const current = state.plan.findIndex((p) => p.status === 'pending');
    return state.planNeeded ? state.announced : current;
  }

  /** Asks the planner for a plan of what remains; done steps stay, failed ones are told to the planner. */
  private async plan(state: PlanState, ctx: AgentContext): Promise<PlanState> {
    const kept = state.plan.filter((p) => p.status === 'done');
    const failed = state.plan.filter((p) => p.status === 'failed');
    const lines = [`Task: ${state.task}`];
    if (kept.length) lines.push('', 'Done:', ...kept.map((p) => `- ${p.text} -> ${p.result ?? ''}`));
    if (failed.length) lines.push('', 'Failed:', ...failed.map((p) => `- ${p.text}: ${p.result ?? ''}`));
    const response = await ctx.callModel(
      {
        messages: [
          { role: 'system', content: PLANNER_PROMPT.replace('{max}', String(this.maxPlanSteps)) },
          { role: 'user', content: [{ type: 'text', text: lines.join('\n') }] },
        ],
        maxOutputTokens: 800,
      },
      { signal: ctx.signal, purpose: 'plan', ...(this.plannerModel ? { model: this.plannerModel } : {}) },
    );
    const items = parsePlan(responseText(response), this.maxPlanSteps);
    if (!items.length)
      throw new Error(`the planner's reply has no numbered steps: ${responseText(response).slice(0, 200)}`);
    const metrics = {
      ...state.metrics,
      plannerCalls: (state.metrics.plannerCalls ?? 0) + 1,
      plannerTokens: (state.metrics.plannerTokens ?? 0) + totalTokens(response.usage),
    };
    return {
      ...state,
      plan: [...kept, ...failed, ...items],
      planNeeded: false,
      replans: state.plan.length ? state.replans + 1 : state.replans,
      announced: -1,
      metrics,
    };
  }
}

/** Options of a {@link MultiLLMAgent}: a planner model and an executor model. */
export interface MultiLLMAgentOptions extends Omit<PlanAndExecuteOptions, 'model' | 'plannerModel'> {
  planner: Model;
  executor: Model;
}

/**
 * A multi-LLM agent: one model plans (e.g. a strong reasoning model), another executes with tools (e.g. a
 * fast, cheap one). Each model's tokens are kept apart in `metrics` (`plannerTokens`, `executorTokens`), and both
 * count in the run's usage and budgets.
 */
export class MultiLLMAgent extends PlanAndExecuteAgent {
  constructor(options: MultiLLMAgentOptions) {
    const { planner, executor, ...rest } = options;
    super({
      ...rest,
      model: executor,
      plannerModel: planner,
      config: { planner: planner.id, executor: executor.id, ...rest.config },
    });
  }
}

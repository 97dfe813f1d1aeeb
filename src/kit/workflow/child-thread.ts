import path from 'node:path';
import type { Budget, TaskInput, ToolContext } from '../../core/index.js';
import { borrowEnv, canonicalJson, tightestBudget } from '../../core/index.js';
import { Engine, type RunResult } from '../../engine/engine.js';
import type { AgentModule } from '../../engine/agent-module.js';
import type { ThreadState, WorkflowState } from './thread-state.js';
import type { WorkflowDefinition } from './workflow-definition.js';
import type { ResumeSource } from './previous-thread.js';

/** What the fork and subworkflow tools need of the agent that runs them (a WorkflowAgent). */
export interface ThreadHost {
  readonly workflow: WorkflowDefinition;
  /**
   * The agent of a child thread: another entry and stop node, or another workflow; `resumeOf` when it resumes one;
   * `thread` labels it in its manifest (`agent.config.thread`).
   */
  childAgent(spec: {
    workflow?: WorkflowDefinition;
    entry?: string;
    stopAt?: string;
    resumeOf?: ResumeSource;
    thread: Record<string, unknown>;
    subworkflowChain?: readonly string[];
  }): AgentModule<WorkflowState>;
  /** The subworkflow nodes the host runs inside, outermost first, and how deep they may nest. */
  readonly subworkflows: { chain: readonly string[]; max: number };
  /**
   * The run this one resumes, while node `nodeId` has not ended in `thread` since the resume: only a fork's first
   * visit after a resume reuses or resumes the old run's branches.
   */
  resumeSource(nodeId: string, thread: ThreadState): ResumeSource | undefined;
}

/**
 * Runs a child thread (a fork's branch, a subworkflow) as a child Engine run linked to the calling run
 * (`ctx.childLink()`: its manifest names the parent, it gets what is left of the parent's budget, or `budget`
 * when that is tighter, and its usage counts in the parent's), with its trace under `<parent trace>/threads/<runId>`.
 */
export async function runChildThread(
  agent: AgentModule<WorkflowState>,
  ctx: ToolContext,
  spec: {
    runId: string;
    objective: string;
    vars: Record<string, unknown>;
    resumeFrom?: { state: WorkflowState; step: number };
    budget?: Budget;
  },
): Promise<RunResult<WorkflowState>> {
  const traceBase = ctx.traceDir ? path.join(ctx.traceDir, 'threads') : undefined;
  const link = ctx.childLink();
  // A branch's own share (a fork splits what is left between its branches) narrows what the link gives.
  if (spec.budget) link.budget = tightestBudget(link.budget, spec.budget);
  const engine = new Engine<WorkflowState>({
    agent,
    env: borrowEnv(ctx.env),
    runId: spec.runId.replace(/[^A-Za-z0-9_.-]/g, '_'),
    services: ctx.services,
    parent: link,
    trace: traceBase ? { dir: traceBase } : false,
  });
  const task: TaskInput = { id: spec.runId, objective: spec.objective, inputs: spec.vars };
  return engine.run(task, { signal: ctx.signal, ...(spec.resumeFrom ? { resumeFrom: spec.resumeFrom } : {}) });
}

/** The variables a thread set or changed, compared with those it started from. */
export function changedVars(
  before: Readonly<Record<string, unknown>>,
  after: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(after))
    if (!Object.hasOwn(before, k) || canonicalJson(before[k]) !== canonicalJson(v)) out[k] = v;
  return out;
}

import type { ActionResult, Decision, Model, Task } from '../../core/index.js';
import { baseState } from '../../core/index.js';
import { AgentModule, type AgentContext, type AgentModuleOptions } from '../../engine/agent-module.js';
import { ToolRegistry } from '../../engine/tool-registry.js';
import { BUILTIN_CONTEXT_PROCESSORS, type ContextProcessor } from './context-processor.js';
import { FORK_TOOL, forkTool } from './fork-tool.js';
import type { Decided } from './handlers/node-handler.js';
import { handlerOf } from './handlers/node-handlers.js';
import type { NodeHost } from './handlers/node-host.js';
import { NodeStep } from './handlers/node-step.js';
import type { JoinReducer } from './join-reducer.js';
import type { ResumeSource } from './previous-thread.js';
import { SUBWORKFLOW_TOOL, subworkflowTool } from './subworkflow-tool.js';
import type { ThreadState, WorkflowState } from './thread-state.js';
import type { WorkflowDefinition } from './workflow-definition.js';
import { WorkflowError } from './workflow-error.js';
import { WorkflowRun } from './workflow-run.js';

/** Options of a WorkflowAgent: those of every agent (model, tools), the workflow, and what its nodes may name. */
export interface WorkflowAgentOptions extends Omit<AgentModuleOptions, 'parser'> {
  workflow: WorkflowDefinition;
  /** Custom join merges, by the name a join's `reducer` gives. */
  reducers?: Readonly<Record<string, JoinReducer>>;
  /** Custom context processors, by the name a context node's `processor` gives (besides summarise, trim, truncate-tool-outputs). */
  processors?: Readonly<Record<string, ContextProcessor>>;
  /** Makes the model an LLM node names in `model` (`provider:model`); required when a node names one. */
  resolveModel?: (id: string) => Model;
  /** Answers an interrupt node whose variable is not set yet; without it the thread stops `waiting`. */
  onInterrupt?: (request: { node: string; prompt: string; variable: string }) => unknown;
  /** The state's step limit (default 1000): every node step and every LLM turn is one engine step. */
  maxSteps?: number;
  /** Where this thread starts (default: the start node); a fork's branch starts at its first node. */
  entry?: string;
  /** The node this thread stops at without running it (a branch stops at its join). */
  stopAt?: string;
  /** The run this one resumes (`resumeWorkflow` sets it): forks reuse or resume that run's branch threads. */
  resumeOf?: ResumeSource;
  /**
   * How deep subworkflows may nest (default {@link DEFAULT_MAX_SUBWORKFLOW_DEPTH}): a subworkflow node past it fails
   * with an error naming the chain, so a workflow that includes itself stops instead of running until names get
   * too long. `workflow check` refuses such cycles between files before they run; this catches the rest.
   */
  maxSubworkflowDepth?: number;
  /** The subworkflow nodes this thread runs inside, outermost first (`file (node "id")`); the subworkflow tool sets it. */
  subworkflowChain?: readonly string[];
  /**
   * Record the workflow in the manifest by its hash (`agent.config.workflowRef`) instead of whole: for a child thread
   * whose parent run's manifest holds that exact workflow (`childAgent` sets it). Readers find it through the parent.
   */
  workflowByRef?: boolean;
}

/** How deep subworkflows nest unless `maxSubworkflowDepth` says otherwise. */
export const DEFAULT_MAX_SUBWORKFLOW_DEPTH = 10;

/**
 * Runs a WorkflowDefinition on the qitos loop, one engine step per node step, so a workflow run is an ordinary
 * trace (replay, diff, view, fork). The thread (variables, current node, each completed node's inputs and
 * outputs, tokens per node, loop rounds, the conversation) is the run's typed state. Each node kind has a handler
 * (`handlers/`): DECIDE asks the current node's for the step's decision (a tool node calls its tool, an LLM node
 * makes one model turn and acts on the calls it asked for, a fork or subworkflow node acts through an internal tool
 * that starts linked child runs, the other kinds are worked out and `wait`), REDUCE has it record the node and move
 * on. What DECIDE works out for REDUCE and when the node started are the run's own (`WorkflowRun`, in the run's
 * context): the agent keeps nothing of a run, so one agent may serve any number of runs at once.
 */
export class WorkflowAgent extends AgentModule<WorkflowState> {
  readonly workflow: WorkflowDefinition;
  private readonly options: WorkflowAgentOptions;
  /** What the node handlers use of this agent (fixed: the same for every run). */
  private readonly host: NodeHost;

  constructor(options: WorkflowAgentOptions) {
    // A registry of our own: the internal tools must not land in a registry the caller passed and still uses.
    const tools = options.tools instanceof ToolRegistry ? options.tools.list() : [...(options.tools ?? [])];
    super({
      ...options,
      tools,
      name: options.name ?? 'WorkflowAgent',
      config: {
        ...(options.workflowByRef
          ? { workflowRef: { sha256: options.workflow.sha256 } }
          : { workflow: options.workflow.toJSON() }),
        ...(options.entry ? { entry: options.entry } : {}),
        ...(options.stopAt ? { stopAt: options.stopAt } : {}),
        ...options.config,
      },
    });
    this.workflow = options.workflow;
    this.options = options;
    for (const id of [FORK_TOOL, SUBWORKFLOW_TOOL])
      if (this.tools.has(id)) throw new WorkflowError(`the tool id "${id}" is reserved for the workflow's own use`);
    this.tools.register(forkTool(this)).register(subworkflowTool(this));
    this.host = Object.freeze({
      workflow: this.workflow,
      tools: this.tools,
      processors: { ...BUILTIN_CONTEXT_PROCESSORS, ...options.processors },
      reducers: options.reducers,
      resolveModel: options.resolveModel,
      onInterrupt: options.onInterrupt,
    });
    // Names a node refers to must exist on this agent: tools, a model resolver, reducers and processors.
    for (const node of this.workflow.nodes.values()) handlerOf(node).check?.(node, this.host);
  }

  /**
   * The agent of a child thread: same options (model, tools, reducers, processors), another entry/stop or workflow,
   * labelled `thread` in its manifest. A child that runs this agent's workflow (a fork's branch) records it by hash.
   */
  childAgent(spec: {
    workflow?: WorkflowDefinition;
    entry?: string;
    stopAt?: string;
    resumeOf?: ResumeSource;
    thread: Record<string, unknown>;
    subworkflowChain?: readonly string[];
  }): WorkflowAgent {
    const tools = this.tools.list().filter((t) => t.id !== FORK_TOOL && t.id !== SUBWORKFLOW_TOOL);
    const { entry: _e, stopAt: _s, config: _c, resumeOf: _r, ...rest } = this.options;
    const workflow = spec.workflow ?? this.workflow;
    return new WorkflowAgent({
      ...rest,
      model: this.model,
      tools,
      workflow,
      // this run's manifest holds the workflow (whole, or by reference to its own parent's): the child names it
      workflowByRef: workflow === this.workflow || workflow.sha256 === this.workflow.sha256,
      ...(spec.entry ? { entry: spec.entry } : {}),
      ...(spec.stopAt ? { stopAt: spec.stopAt } : {}),
      ...(spec.resumeOf ? { resumeOf: spec.resumeOf } : {}),
      ...(spec.subworkflowChain ? { subworkflowChain: spec.subworkflowChain } : {}),
      config: { thread: spec.thread },
    });
  }

  /** The subworkflow nodes this thread runs inside (a fork's branches inherit it), and how deep they may nest. */
  get subworkflows(): { chain: readonly string[]; max: number } {
    return {
      chain: this.options.subworkflowChain ?? [],
      max: this.options.maxSubworkflowDepth ?? DEFAULT_MAX_SUBWORKFLOW_DEPTH,
    };
  }

  /**
   * The run this one resumes, while node `nodeId` has not ended since the resume (no record of it after the step the
   * run resumed after): the first visit of a fork after a resume reuses or resumes the old run's branches, a later one
   * (in a loop) runs them anew. Worked out from the run's thread, so every run of this agent gets its own answer.
   */
  resumeSource(nodeId: string, thread: ThreadState): ResumeSource | undefined {
    const source = this.options.resumeOf;
    if (source?.node !== nodeId) return undefined;
    return thread.completed.some((c) => c.node === nodeId && c.step > source.afterStep) ? undefined : source;
  }

  override initState(task: Task): WorkflowState {
    const state = baseState(task, this.options.maxSteps ?? 1000) as WorkflowState;
    const entry = this.options.entry ?? this.workflow.start.id;
    state.thread = {
      workflow: this.workflow.name,
      status: 'running',
      vars: { ...structuredClone(this.workflow.vars), ...structuredClone(task.inputs) },
      current: entry,
      attempts: 0,
      completed: [],
      tokens: {},
      loops: {},
      context: [],
      active: null,
      forks: {},
    };
    return state;
  }

  override decide(state: WorkflowState, _observation: unknown, ctx: AgentContext): Decision | Promise<Decision> {
    const t = state.thread;
    if (t.current === null) return { mode: 'final', answer: '' };
    if (t.current === this.options.stopAt)
      return { mode: 'final', answer: `thread reached "${t.current}"`, rationale: 'stop node' };
    const node = this.workflow.node(t.current);
    const run = ctx.local(WorkflowRun);
    run.enter(node.id);
    const decided = handlerOf(node).decide(node, new NodeStep(this.host, t, ctx, run));
    // Most nodes decide at once (a tool call, a condition): they pay for no promise.
    if (decided instanceof Promise) return handOver(decided, run, ctx.step, node.id);
    run.carry(ctx.step, node.id, decided.work);
    return decided.decision;
  }

  override reduce(
    state: WorkflowState,
    _observation: unknown,
    decision: Decision,
    results: ActionResult[],
    ctx: AgentContext,
  ): WorkflowState {
    const t = state.thread;
    const run = ctx.local(WorkflowRun);
    const work = run.take(ctx.step, t.current);
    if (t.current === null) return state;
    if (t.current === this.options.stopAt) {
      t.status = 'completed';
      return state;
    }
    const node = this.workflow.node(t.current);
    // Monitor events: every tool call of the node, as it ended.
    for (const r of results)
      ctx.emit('tool_call', {
        node: node.id,
        tool: r.name,
        status: r.status,
        latencyMs: r.latencyMs,
        ...(r.error ? { error: r.error } : {}),
      });
    handlerOf(node).reduce(node, new NodeStep(this.host, t, ctx, run), work, decision, results);
    return state;
  }

  override shouldStop(state: WorkflowState): boolean | string {
    const t = state.thread;
    if (t.status === 'failed') return `workflow failed: ${t.reason}`;
    if (t.status === 'waiting') return `workflow waiting for input: ${t.reason}`;
    return false;
  }
}

/** DECIDE's end for a node that decides asynchronously (a model turn, a processor, an interrupt's answer). */
async function handOver(
  decided: Promise<Decided<unknown>>,
  run: WorkflowRun,
  step: number,
  node: string,
): Promise<Decision> {
  const { decision, work } = await decided;
  run.carry(step, node, work);
  return decision;
}

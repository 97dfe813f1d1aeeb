import type {
  ActionResult,
  Decision,
  Model,
  ModelMessage,
  ModelRequest,
  ModelToolResultPart,
  ResponsePart,
  Task,
} from '../../core/index.js';
import { addTokens, baseState, emptyTokens, errorMessage, newActionId, toolSpec } from '../../core/index.js';
import { AgentModule, type AgentContext, type AgentModuleOptions } from '../../engine/agent-module.js';
import { ToolRegistry } from '../../engine/tool-registry.js';
import { evaluateCondition, evaluateExpr } from '../expr/index.js';
import {
  BUILTIN_CONTEXT_PROCESSORS,
  estimateTokens,
  summariseProcessor,
  type ContextProcessor,
} from './context-processor.js';
import { FORK_TOOL, forkTool } from './fork-tool.js';
import type { JoinReducer } from './join-reducer.js';
import type { NodeConfig } from './nodes/node-config.js';
import { llmNodeModelId, type LLMNodeConfig } from './nodes/llm-node-config.js';
import { renderParameters, renderTemplate } from './render-template.js';
import { SUBWORKFLOW_TOOL, subworkflowTool } from './subworkflow-tool.js';
import type { BranchOutcome, NodeRecord, ThreadState, WorkflowState } from './thread-state.js';
import type { WorkflowDefinition } from './workflow-definition.js';
import type { ResumeSource } from './previous-thread.js';
import { WorkflowError } from './workflow-error.js';
import { frozenRecord } from './frozen-record.js';

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

/** What DECIDE worked out for REDUCE to apply (kept per run between the two phases of one step). */
type Pending =
  | {
      kind: 'llm';
      node: LLMNodeConfig;
      response: { parts: ResponsePart[]; usage: ModelResponseUsage };
      userText: string | undefined;
      refused: ModelToolResultPart[];
      calls: number;
      context?: ModelMessage[];
      summarised?: { before: number; after: number };
    }
  | {
      kind: 'computed';
      status: NodeRecord['status'];
      inputs: unknown;
      outputs: unknown;
      next: string | null;
      apply?: (t: ThreadState) => void;
      waits?: true;
    };
type ModelResponseUsage = Parameters<typeof addTokens>[0];

/**
 * Runs a WorkflowDefinition on the qitos loop, one engine step per node step, so a workflow run is an ordinary
 * trace (replay, diff, view, fork). The thread (variables, current node, each completed node's inputs and
 * outputs, tokens per node, loop rounds, the conversation) is the run's typed state. DECIDE looks at the
 * current node: a tool node becomes an `act` decision calling that tool (with `{{var}}` arguments rendered);
 * an LLM node makes one model turn (`ctx.callModel`, counted in the run's usage) and acts on the tool calls it
 * asked for, one engine step per turn up to `maxIterations`; a fork or subworkflow node acts through an internal
 * tool that starts linked child runs; the other nodes (condition, loop, join, context processor, interrupt,
 * markers) are worked out in DECIDE and carried out in REDUCE. REDUCE records the node and moves to the next.
 */
export class WorkflowAgent extends AgentModule<WorkflowState> {
  readonly workflow: WorkflowDefinition;
  private readonly options: WorkflowAgentOptions;
  private readonly processors: Readonly<Record<string, ContextProcessor>>;
  private readonly pending = new Map<string, Pending>();
  private readonly resumed = new Set<string>();
  /** When the node a run is at started (its first DECIDE, retries and tool-loop turns included), by run id. */
  private readonly started = new Map<string, { node: string; at: number }>();

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
    this.processors = { ...BUILTIN_CONTEXT_PROCESSORS, ...options.processors };
    for (const id of [FORK_TOOL, SUBWORKFLOW_TOOL])
      if (this.tools.has(id)) throw new WorkflowError(`the tool id "${id}" is reserved for the workflow's own use`);
    this.tools.register(forkTool(this)).register(subworkflowTool(this));
    this.checkNames();
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

  /** The run this one resumes, once per node: only the first visit of a fork after a resume looks at the old threads. */
  takeResumeSource(nodeId: string): ResumeSource | undefined {
    if (!this.options.resumeOf || this.options.resumeOf.node !== nodeId || this.resumed.has(nodeId)) return undefined;
    this.resumed.add(nodeId);
    return this.options.resumeOf;
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

  override async decide(state: WorkflowState, _observation: unknown, ctx: AgentContext): Promise<Decision> {
    const t = state.thread;
    if (t.current === null) return { mode: 'final', answer: '' };
    if (t.current === this.options.stopAt)
      return { mode: 'final', answer: `thread reached "${t.current}"`, rationale: 'stop node' };
    const node = this.workflow.node(t.current);
    if (this.started.get(ctx.runId)?.node !== node.id) this.started.set(ctx.runId, { node: node.id, at: Date.now() });
    const why = `${node.kind} node "${node.id}"`;
    switch (node.kind) {
      case 'tool':
        return {
          mode: 'act',
          actions: [
            {
              id: newActionId(),
              name: node.toolName,
              args: renderParameters(node.parameters, t.vars, node.id) as Record<string, unknown>,
              ...(node.timeoutMs ? { timeoutMs: node.timeoutMs } : {}),
            },
          ],
          rationale: why,
        };
      case 'llm':
        return this.llmTurn(state, node, ctx);
      case 'fork':
        return {
          mode: 'act',
          actions: [{ id: newActionId(), name: FORK_TOOL, args: { fork: node.id }, timeoutMs: 2 ** 31 - 1 }],
          rationale: why,
        };
      case 'subworkflow':
        return {
          mode: 'act',
          actions: [{ id: newActionId(), name: SUBWORKFLOW_TOOL, args: { node: node.id }, timeoutMs: 2 ** 31 - 1 }],
          rationale: why,
        };
      case 'end': {
        const answer =
          node.result !== undefined ? renderTemplate(node.result, t.vars, node.id) : JSON.stringify(t.vars);
        this.pending.set(ctx.runId, {
          kind: 'computed',
          status: 'done',
          inputs: {},
          outputs: { result: answer },
          next: null,
          apply: (th) => void (th.status = 'completed'),
        });
        return { mode: 'final', answer, rationale: why };
      }
      default:
        this.pending.set(ctx.runId, await this.compute(state, node, ctx));
        return { mode: 'wait', rationale: why };
    }
  }

  override reduce(
    state: WorkflowState,
    _observation: unknown,
    decision: Decision,
    results: ActionResult[],
    ctx: AgentContext,
  ): WorkflowState {
    const t = state.thread;
    const pending = this.pending.get(ctx.runId);
    this.pending.delete(ctx.runId);
    if (t.current === null) return state;
    if (t.current === this.options.stopAt) {
      t.status = 'completed';
      return state;
    }
    const node = this.workflow.node(t.current);
    // Monitor events (seed 10.3): every tool call of the node, as it ended.
    for (const r of results)
      ctx.emit('tool_call', {
        node: node.id,
        tool: r.name,
        status: r.status,
        latencyMs: r.latencyMs,
        ...(r.error ? { error: r.error } : {}),
      });
    if (pending?.kind === 'llm') this.reduceLLM(t, pending, results, ctx);
    else if (pending?.kind === 'computed') {
      pending.apply?.(t);
      // an interrupt that waits has not run: it runs when the thread is resumed with its variable
      if (!pending.waits)
        this.finish(
          t,
          node,
          ctx,
          { status: pending.status, inputs: pending.inputs, outputs: pending.outputs },
          pending.next,
        );
    } else if (node.kind === 'tool' || node.kind === 'fork' || node.kind === 'subworkflow')
      this.reduceAction(t, node, decision, results, ctx);
    return state;
  }

  override shouldStop(state: WorkflowState): boolean | string {
    const t = state.thread;
    if (t.status === 'failed') return `workflow failed: ${t.reason}`;
    if (t.status === 'waiting') return `workflow waiting for input: ${t.reason}`;
    return false;
  }

  // ---- nodes ----

  /** One model turn of an LLM node: the thread's context, the node's turns so far, the tools it may use. */
  private async llmTurn(state: WorkflowState, node: LLMNodeConfig, ctx: AgentContext): Promise<Decision> {
    const t = state.thread;
    const active = t.active?.node === node.id ? t.active : null;
    const userText = active ? undefined : renderTemplate(node.userPrompt, t.vars, node.id);
    const turns: ModelMessage[] = active
      ? active.messages
      : [{ role: 'user', content: [{ type: 'text', text: userText! }] }];
    let context = t.context;
    let summarised: { before: number; after: number } | undefined;
    if (context.length && estimateTokens([...context, ...turns]) > node.tokenLimit) {
      const before = estimateTokens(context);
      context = await summariseProcessor(context, {
        nodeId: node.id,
        config: {},
        vars: t.vars,
        callModel: ctx.callModel,
        signal: ctx.signal,
        onFallback: (f) => ctx.emit('summary_fallback', { node: node.id, ...f }),
      });
      summarised = { before, after: estimateTokens(context) };
    }
    const tools = node.toolMode === 'none' ? [] : node.availableTools.map((id) => toolSpec(this.tools.get(id)!));
    const iteration = (active?.iteration ?? 0) + 1;
    const request: ModelRequest = {
      messages: [
        ...(node.systemPrompt
          ? [{ role: 'system' as const, content: renderTemplate(node.systemPrompt, t.vars, node.id) }]
          : []),
        ...context,
        ...turns,
      ],
      ...(tools.length
        ? {
            tools,
            toolChoice: node.toolMode === 'required' && iteration === 1 ? ('required' as const) : ('auto' as const),
          }
        : {}),
      ...(node.temperature !== undefined ? { temperature: node.temperature } : {}),
      ...(node.maxTokens !== undefined ? { maxOutputTokens: node.maxTokens } : {}),
    };
    const modelId = llmNodeModelId(node);
    const model = modelId ? this.options.resolveModel!(modelId) : undefined;
    // stream: the reply's deltas reach hooks and Engine.stream as model_events, announced by the node that streams
    if (node.stream) ctx.emit('llm_stream', { node: node.id, iteration });
    const response = await ctx.callModel(request, {
      purpose: `workflow:${node.id}`,
      signal: ctx.signal,
      stream: node.stream,
      ...(model ? { model } : {}),
    });
    if (summarised)
      ctx.emit('context_summarised', { node: node.id, tokensBefore: summarised.before, tokensAfter: summarised.after });
    ctx.emit('llm_call', {
      node: node.id,
      iteration,
      model: response.modelId ?? model?.id ?? null,
      finishReason: response.finishReason,
      toolCalls: response.parts.filter((p) => p.type === 'tool-call').length,
    });
    ctx.emit('token_usage', { node: node.id, tokens: response.usage, cost: response.cost });
    const calls = response.parts.filter(
      (p): p is Extract<ResponsePart, { type: 'tool-call' }> => p.type === 'tool-call',
    );
    const allowed = calls.filter((c) => c.args && node.toolMode !== 'none' && node.availableTools.includes(c.name));
    const refused: ModelToolResultPart[] = calls
      .filter((c) => !allowed.includes(c))
      .map((c) => ({
        type: 'tool-result',
        callId: c.callId,
        name: c.name,
        isError: true,
        output: !c.args
          ? `the arguments of ${c.name} are not a JSON object: ${c.input.slice(0, 200)}`
          : `tool "${c.name}" is not available here; ` +
            `available: ${node.toolMode === 'none' ? '(none)' : node.availableTools.join(', ') || '(none)'}`,
      }));
    this.pending.set(ctx.runId, {
      kind: 'llm',
      node,
      response: { parts: response.parts, usage: response.usage },
      userText,
      refused,
      calls: calls.length,
      ...(summarised ? { context, summarised } : {}),
    });
    const why = `llm node "${node.id}" turn ${iteration}`;
    return allowed.length
      ? { mode: 'act', actions: allowed.map((c) => ({ id: c.callId, name: c.name, args: c.args! })), rationale: why }
      : { mode: 'wait', rationale: why };
  }

  private reduceLLM(
    t: ThreadState,
    p: Extract<Pending, { kind: 'llm' }>,
    results: ActionResult[],
    ctx: AgentContext,
  ): void {
    const node = p.node;
    const active = t.active?.node === node.id ? t.active : null;
    const text = p.response.parts.map((x) => (x.type === 'text' ? x.text : '')).join('');
    const assistant: ModelMessage = {
      role: 'assistant',
      content: [
        ...(text ? [{ type: 'text' as const, text }] : []),
        ...p.response.parts.flatMap((x) =>
          x.type === 'tool-call'
            ? [{ type: 'tool-call' as const, callId: x.callId, name: x.name, args: x.args ?? {} }]
            : [],
        ),
      ],
    };
    const messages: ModelMessage[] = [
      ...(active
        ? active.messages
        : [{ role: 'user' as const, content: [{ type: 'text' as const, text: p.userText! }] }]),
      assistant,
    ];
    const toolParts: ModelToolResultPart[] = [
      ...results.map((r): ModelToolResultPart => ({
        type: 'tool-result',
        callId: r.actionId,
        name: r.name,
        output: r.status === 'success' ? String(r.output) : (r.error ?? 'the call failed'),
        isError: r.status !== 'success',
      })),
      ...p.refused,
    ];
    if (toolParts.length) messages.push({ role: 'tool', content: toolParts });
    if (p.context) t.context = p.context;
    t.tokens[node.id] = addTokens(t.tokens[node.id] ?? emptyTokens(), p.response.usage);
    const iteration = (active?.iteration ?? 0) + 1;
    const tokens = addTokens(active?.tokens ?? emptyTokens(), p.response.usage);
    const toolCalls = (active?.toolCalls ?? 0) + p.calls;
    const summarised = p.summarised ? { summarised: p.summarised } : {};
    if (p.calls > 0 && iteration < node.maxIterations) {
      t.active = { node: node.id, iteration, messages, text, toolCalls, tokens };
      if (p.summarised)
        t.completed.push(
          frozenRecord({
            node: node.id,
            kind: 'context',
            step: ctx.step,
            status: 'done',
            inputs: { tokenLimit: node.tokenLimit },
            outputs: summarised,
            attempts: 1,
          }),
        );
      return;
    }
    t.active = null;
    t.context = [...t.context, ...messages];
    t.vars[node.output ?? node.id] = text;
    const first = messages[0];
    const prompt = first.role === 'user' && first.content[0]?.type === 'text' ? first.content[0].text : '';
    this.finish(
      t,
      node,
      ctx,
      {
        status: 'done',
        inputs: { userPrompt: prompt },
        outputs: {
          text,
          iterations: iteration,
          toolCalls,
          stoppedBy: p.calls > 0 ? 'maxIterations' : 'answer',
          ...summarised,
        },
        tokens,
      },
      this.next(node),
    );
  }

  /** REDUCE of a node that acted through one tool call: a tool node, a fork, a subworkflow. */
  private reduceAction(
    t: ThreadState,
    node: NodeConfig,
    decision: Decision,
    results: ActionResult[],
    ctx: AgentContext,
  ): void {
    const r = results[0];
    const inputs = decision.mode === 'act' ? decision.actions[0].args : {};
    if (r?.status === 'success') {
      const output = String(r.output);
      if (node.kind === 'tool') {
        const value = node.extract === undefined ? output : this.extract(node.id, node.extract, output, r.state);
        t.vars[node.output ?? node.id] = value;
        this.finish(
          t,
          node,
          ctx,
          { status: 'done', inputs, outputs: node.extract === undefined ? { output } : { output, value } },
          this.next(node),
        );
      } else if (node.kind === 'fork') {
        const outcomes = JSON.parse(output) as BranchOutcome[];
        t.forks[node.id] = outcomes;
        const join = [...this.workflow.nodes.values()].find((n) => n.kind === 'join' && n.fork === node.id)!;
        this.finish(
          t,
          node,
          ctx,
          {
            status: 'done',
            inputs: { branches: this.workflow.successors(node.id) },
            outputs: { branches: outcomes.map(({ vars: _v, ...o }) => o) },
          },
          join.id,
        );
      } else if (node.kind === 'subworkflow') {
        const vars = JSON.parse(output) as Record<string, unknown>;
        t.vars[node.output ?? node.id] = vars;
        this.finish(
          t,
          node,
          ctx,
          {
            status: 'done',
            inputs: node.path ? { path: node.path } : { inline: true },
            outputs: { vars, ...(r.state.status === 'completed' ? r.state.metadata : {}) },
          },
          this.next(node),
        );
      }
      return;
    }
    const error = r?.error ?? 'no result';
    const ask = r?.permission;
    if (ask?.decidedBy === 'default' && ask.action === 'ask') {
      // A permission ask no one could answer: the thread waits on this node, as for an interrupt, until
      // `qitos workflow resume --approve` (or --reject) answers it; the node then runs again.
      t.status = 'waiting';
      t.reason =
        `node "${node.id}" needs approval ` +
        `for ${ask.key} ${ask.subjects.join(' ; ') || '(no input)'} (resume with --approve or ` +
        `--reject)`;
      return;
    }
    if (node.kind === 'tool' && t.attempts < node.retries) {
      t.attempts++; // the same node runs again next step; this attempt's result stays in the step record
      return;
    }
    if (node.kind === 'tool' && node.onError === 'continue') {
      t.vars[node.output ?? node.id] = null;
      this.finish(t, node, ctx, { status: 'error', inputs, outputs: null, error }, this.next(node));
      return;
    }
    this.fail(t, node, ctx, inputs, error);
  }

  /** DECIDE's work for nodes that need no action: what they output, where the thread goes, what changes. */
  private async compute(state: WorkflowState, node: NodeConfig, ctx: AgentContext): Promise<Pending> {
    const t = state.thread;
    const done = (
      inputs: unknown,
      outputs: unknown,
      next: string | null,
      apply?: (t: ThreadState) => void,
    ): Pending => ({ kind: 'computed', status: 'done', inputs, outputs, next, ...(apply ? { apply } : {}) });
    switch (node.kind) {
      case 'start':
        return done({}, {}, this.next(node));
      case 'condition': {
        const value = this.condition(node.id, 'expression', node.expression, t.vars);
        return done(
          { expression: node.expression },
          { value, next: value ? node.then : node.else },
          value ? node.then : node.else,
        );
      }
      case 'loop-start':
        return done(
          { max: node.max },
          { round: (t.loops[node.id] ?? 0) + 1 },
          this.next(node),
          (th) => void (th.loops[node.id] ??= 0),
        );
      case 'loop-end': {
        const start = this.workflow.node(node.loop);
        if (start.kind !== 'loop-start')
          throw new WorkflowError(`loop end "${node.id}" closes "${node.loop}", which is not a loop start`, {
            nodeId: node.id,
          });
        const round = (t.loops[start.id] ?? 0) + 1;
        const wants = node.while === undefined ? true : this.condition(node.id, 'while', node.while, t.vars);
        const again = wants && round < start.max;
        const outputs = { round, again, ...(wants && !again ? { bound: start.max } : {}) };
        return done(
          { loop: start.id, ...(node.while ? { while: node.while } : {}) },
          outputs,
          again ? this.next(start) : this.next(node),
          (th) => {
            if (again) th.loops[start.id] = round;
            else delete th.loops[start.id];
          },
        );
      }
      case 'join':
        return this.join(t, node);
      case 'context': {
        const processor = this.processors[node.processor];
        if (!processor)
          throw new WorkflowError(
            `node "${node.id}": processor "${node.processor}" is not registered; known: ${Object.keys(this.processors).join(', ')}`,
            { nodeId: node.id, field: 'processor' },
          );
        const before = t.context;
        const after = await processor(before, {
          nodeId: node.id,
          config: node.config,
          vars: t.vars,
          callModel: ctx.callModel,
          signal: ctx.signal,
          onFallback: (f) => ctx.emit('summary_fallback', { node: node.id, ...f }),
        });
        ctx.emit('context_summarised', {
          node: node.id,
          processor: node.processor,
          tokensBefore: estimateTokens(before),
          tokensAfter: estimateTokens(after),
          messagesBefore: before.length,
          messagesAfter: after.length,
        });
        return done(
          { processor: node.processor, config: node.config },
          {
            messages: { before: before.length, after: after.length },
            tokens: { before: estimateTokens(before), after: estimateTokens(after) },
          },
          this.next(node),
          (th) => void (th.context = after),
        );
      }
      case 'interrupt': {
        if (Object.hasOwn(t.vars, node.variable))
          return {
            kind: 'computed',
            status: 'skipped',
            inputs: { variable: node.variable },
            outputs: { value: t.vars[node.variable], given: 'before' },
            next: this.next(node),
          };
        const prompt = renderTemplate(node.prompt, t.vars, node.id);
        const waiting: Pending = {
          kind: 'computed',
          status: 'skipped',
          inputs: { prompt, variable: node.variable },
          outputs: null,
          next: node.id,
          waits: true,
          apply: (th) => (
            (th.status = 'waiting'),
            (th.reason = `node "${node.id}" asks: ${prompt} (set the variable "${node.variable}" and resume)`)
          ),
        };
        if (!this.options.onInterrupt && ctx.askHuman) {
          // Asked as a permission ask is: the terminal, the server's pending approvals, onApproval; its timeout.
          const answer = await ctx.askHuman({
            key: 'interrupt',
            title: `node "${node.id}" asks: ${prompt}`,
            subjects: [node.variable],
            input: { node: node.id, variable: node.variable, prompt },
          });
          if (answer.decidedBy === 'default') return waiting; // no one could answer: resume sets the variable
          const inputs = { prompt, variable: node.variable };
          if (answer.outcome === 'allow') {
            const value = answer.message ?? true;
            return done(inputs, { value }, this.next(node), (th) => {
              th.vars[node.variable] = value;
            });
          }
          const why =
            answer.decidedBy === 'timeout'
              ? 'no answer in time'
              : answer.decidedBy === 'abort'
                ? 'the run was stopped'
                : 'rejected';
          const error = `the interrupt was refused (${why})${answer.message ? `: ${answer.message}` : ''}`;
          return { ...waiting, apply: (th) => this.fail(th, node, ctx, inputs, error) };
        }
        if (!this.options.onInterrupt) return waiting;
        const value = await this.options.onInterrupt({ node: node.id, prompt, variable: node.variable });
        return done(
          { prompt, variable: node.variable },
          { value },
          this.next(node),
          (th) => void (th.vars[node.variable] = value),
        );
      }
      default:
        throw new WorkflowError(`node "${node.id}": ${node.kind} nodes are run through actions, not computed`, {
          nodeId: node.id,
        });
    }
  }

  /** A join: merges what the fork's branches set, by the join's strategy. */
  private join(t: ThreadState, node: Extract<NodeConfig, { kind: 'join' }>): Pending {
    const outcomes = t.forks[node.fork];
    if (!outcomes)
      throw new WorkflowError(
        `join "${node.id}" was reached without its fork "${node.fork}" having run in this thread`,
        { nodeId: node.id },
      );
    const ok = outcomes.filter((o) => o.status === 'done');
    const byBranch = Object.fromEntries(ok.map((o) => [o.branch, o]));
    const inputs = {
      fork: node.fork,
      merge: node.merge,
      branches: outcomes.map((o) => ({ branch: o.branch, status: o.status })),
    };
    const out = node.output ?? node.id;
    const drop = (th: ThreadState) => void delete th.forks[node.fork];
    if (node.merge === 'first') {
      const first = [...ok].sort((a, b) => a.finished - b.finished)[0];
      const vars = first?.vars ?? {};
      return {
        kind: 'computed',
        status: 'done',
        inputs,
        outputs: { branch: first?.branch ?? null, vars },
        next: this.next(node),
        apply: (th) => (Object.assign(th.vars, structuredClone(vars)), drop(th)),
      };
    }
    let value: unknown;
    if (node.merge === 'all') value = Object.fromEntries(ok.map((o) => [o.branch, o.vars]));
    else {
      const reducer = this.options.reducers?.[node.reducer!];
      if (!reducer)
        throw new WorkflowError(
          `join "${node.id}": reducer "${node.reducer}" is not registered on the WorkflowAgent (options.reducers)`,
          { nodeId: node.id, field: 'reducer' },
        );
      value = reducer(byBranch, t.vars);
    }
    return {
      kind: 'computed',
      status: 'done',
      inputs,
      outputs: { [out]: value },
      next: this.next(node),
      apply: (th) => ((th.vars[out] = structuredClone(value)), drop(th)),
    };
  }

  // ---- helpers ----

  private condition(nodeId: string, field: string, source: string, vars: Record<string, unknown>): boolean {
    try {
      return evaluateCondition(source, vars);
    } catch (err) {
      throw new WorkflowError(`node "${nodeId}": ${field}: ${errorMessage(err)}`, { nodeId, field });
    }
  }

  /** A tool node's `extract` over its call's output, title and metadata. */
  private extract(nodeId: string, source: string, output: string, state: ActionResult['state']): unknown {
    const done = state.status === 'completed' ? state : undefined;
    try {
      return evaluateExpr(source, { output, title: done?.title ?? null, metadata: done?.metadata ?? {} });
    } catch (err) {
      throw new WorkflowError(`node "${nodeId}": extract: ${errorMessage(err)}`, { nodeId, field: 'extract' });
    }
  }

  private next(node: NodeConfig): string | null {
    return this.workflow.successors(node.id)[0] ?? null;
  }

  private finish(
    t: ThreadState,
    node: NodeConfig,
    ctx: AgentContext,
    rec: Pick<NodeRecord, 'status' | 'inputs' | 'outputs'> & { error?: string; tokens?: NodeRecord['tokens'] },
    next: string | null,
  ): void {
    t.completed.push(
      frozenRecord({
        node: node.id,
        kind: node.kind,
        step: ctx.step,
        attempts: t.attempts + 1,
        ...rec,
        ...this.executionTime(node, ctx),
      }),
    );
    t.attempts = 0;
    if (t.status === 'waiting') return; // an interrupt stays on its node
    t.current = next;
  }

  /** How long the node took, from its first DECIDE to now (seed 001 section 4's `executionTime`), in ms. */
  private executionTime(node: NodeConfig, ctx: AgentContext): { executionTimeMs?: number } {
    const s = this.started.get(ctx.runId);
    if (s?.node !== node.id) return {};
    this.started.delete(ctx.runId);
    return { executionTimeMs: Date.now() - s.at };
  }

  private fail(t: ThreadState, node: NodeConfig, ctx: AgentContext, inputs: unknown, error: string): void {
    t.completed.push(
      frozenRecord({
        node: node.id,
        kind: node.kind,
        step: ctx.step,
        status: 'error',
        inputs,
        outputs: null,
        error,
        attempts: t.attempts + 1,
        ...this.executionTime(node, ctx),
      }),
    );
    t.status = 'failed';
    t.reason = `node "${node.id}" (${node.kind}) failed: ${error}`;
  }

  /** Names a node refers to that must exist on this agent: tools, a model resolver, reducers and processors. */
  private checkNames(): void {
    for (const n of this.workflow.nodes.values()) {
      if (n.kind === 'llm') {
        if (n.toolMode !== 'none')
          for (const id of n.availableTools)
            if (!this.tools.has(id) || id === FORK_TOOL || id === SUBWORKFLOW_TOOL)
              throw new WorkflowError(
                `node "${n.id}": availableTools: there is no tool "${id}"; registered: ${this.userTools().join(', ') || '(none)'}`,
                { nodeId: n.id, field: 'availableTools' },
              );
        if (n.model && !this.options.resolveModel)
          throw new WorkflowError(
            `node "${n.id}": model: "${llmNodeModelId(n)}" needs a resolveModel option on the WorkflowAgent`,
            { nodeId: n.id, field: 'model' },
          );
      }
      if (
        n.kind === 'tool' &&
        (!this.tools.has(n.toolName) || n.toolName === FORK_TOOL || n.toolName === SUBWORKFLOW_TOOL)
      )
        throw new WorkflowError(
          `node "${n.id}": toolName: there is no tool "${n.toolName}"; registered: ${this.userTools().join(', ') || '(none)'}`,
          { nodeId: n.id, field: 'toolName' },
        );
      if (n.kind === 'join' && n.merge === 'custom' && !this.options.reducers?.[n.reducer!])
        throw new WorkflowError(`node "${n.id}": reducer: "${n.reducer}" is not registered (options.reducers)`, {
          nodeId: n.id,
          field: 'reducer',
        });
      if (n.kind === 'context' && !this.processors[n.processor])
        throw new WorkflowError(
          `node "${n.id}": processor: "${n.processor}" is not registered; known: ${Object.keys(this.processors).join(', ')}`,
          { nodeId: n.id, field: 'processor' },
        );
    }
  }

  private userTools(): string[] {
    return this.tools.names.filter((id) => id !== FORK_TOOL && id !== SUBWORKFLOW_TOOL);
  }
}

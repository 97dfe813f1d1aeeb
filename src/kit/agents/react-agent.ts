import type { ActionResult, Decision, Parser, State, Task, ToolSpec } from '../../core/index.js';
import { baseState } from '../../core/index.js';
import { AgentModule, type AgentModuleOptions } from '../../engine/agent-module.js';
import { reactParser } from '../parsers/index.js';
import type { VariableContext, VariableEngine } from '../prompts/index.js';

/** Options of a ReActAgent: those of every AgentModule, plus the prompt and step limit. */
export interface ReActAgentOptions extends AgentModuleOptions {
  /** Extra text at the end of the system prompt (a template when `variables` is set). */
  systemPrompt?: string;
  /** The state's step limit (default 30); task and engine budgets may be tighter. */
  maxSteps?: number;
  /** Fills `{{…}}` placeholders in `systemPrompt` each step (time, task, state and custom providers). */
  variables?: VariableEngine;
}

const PREAMBLE =
  'You are a capable assistant that solves tasks step by step, using the tools below when ' +
  'they help. Check tool results before you rely on them.';

/**
 * A complete ReAct agent over any Model, parser (default `reactParser()`) and tools. The system prompt is a
 * short preamble, the parser's format instructions with every tool and its JSON Schema, then your
 * `systemPrompt`. The first user message is the task (with its inputs as JSON). Each step that acts adds
 * to `state.metrics`: `toolCalls` (calls made), `toolErrors` (calls that failed) and `actSteps`.
 */
export class ReActAgent extends AgentModule<State> {
  readonly maxSteps: number;
  readonly systemPromptExtra: string | undefined;
  readonly variables: VariableEngine | undefined;
  // the tool part of the prompt is rebuilt only when the parser or the tool set changes
  private base: { parser: Parser; specs: readonly ToolSpec[]; text: string } | undefined;

  constructor(options: ReActAgentOptions = {}) {
    if (options.maxSteps !== undefined && !(Number.isInteger(options.maxSteps) && options.maxSteps > 0)) {
      throw new RangeError(`ReActAgent: maxSteps must be a positive integer, got ${String(options.maxSteps)}`);
    }
    const parser = options.parser ?? reactParser();
    super({
      ...options,
      parser,
      config: {
        parser: parser.name,
        maxSteps: options.maxSteps ?? 30,
        ...(options.systemPrompt ? { systemPrompt: options.systemPrompt } : {}),
        ...options.config,
      },
    });
    this.maxSteps = options.maxSteps ?? 30;
    this.systemPromptExtra = options.systemPrompt;
    this.variables = options.variables;
  }

  override initState(task: Task): State {
    const state = baseState(task, this.maxSteps);
    state.metrics = { toolCalls: 0, toolErrors: 0, actSteps: 0 };
    if (Object.keys(task.inputs).length) state.metadata.taskInputs = task.inputs;
    return state;
  }

  override buildSystemPrompt(state: State): string {
    const parser = this.parser ?? reactParser();
    const specs = this.tools.specs();
    if (!this.base || this.base.parser !== parser || this.base.specs !== specs) {
      this.base = { parser, specs, text: `${PREAMBLE}\n\n${parser.instructions(specs)}` };
    }
    const extra =
      this.systemPromptExtra && this.variables
        ? this.variables.resolve(this.systemPromptExtra, this.variableContext(state))
        : this.systemPromptExtra;
    return extra ? `${this.base.text}\n\n${extra}` : this.base.text;
  }

  override prepare(state: State): string | undefined {
    if (state.messages.length) return undefined;
    const inputs = state.metadata.taskInputs;
    return inputs ? `${state.task}\n\nInputs:\n${JSON.stringify(inputs, null, 2)}` : state.task;
  }

  override reduce(state: State, _observation: unknown, decision: Decision, results: ActionResult[]): State {
    if (decision.mode !== 'act') return state;
    const m = state.metrics;
    m.toolCalls = (m.toolCalls ?? 0) + results.length;
    m.toolErrors = (m.toolErrors ?? 0) + results.filter((r) => r.status === 'error').length;
    m.actSteps = (m.actSteps ?? 0) + 1;
    return state;
  }

  /** What prompt variables see: the task (objective, id, inputs) and the state. */
  protected variableContext(state: State): VariableContext {
    const inputs = state.metadata.taskInputs as Record<string, unknown> | undefined;
    return { task: { id: state.taskId, objective: state.task, ...(inputs ? { inputs } : {}) }, state };
  }
}

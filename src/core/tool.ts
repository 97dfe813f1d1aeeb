import { z } from 'zod';
import type { Env, OpGroup } from './env.js';
import type { Attachment } from './tool-state.js';
import type { ResultPart } from './action.js';
import type { ToolSpec } from './model.js';
import type { CallModel } from './model-call.js';
import type { ParentLink } from './run-link.js';
import { formatZodIssues } from './format-zod-issue.js';

/** What a tool's `execute` receives besides its arguments. */
export interface ToolContext {
  runId: string;
  /** The run's trace folder (null when tracing is off); a sub-agent links its own trace to it. */
  traceDir: string | null;
  step: number;
  callId: string;
  /** Aborted when the run is aborted or the call times out. */
  signal: AbortSignal;
  env: Env;
  /** The run's state (read it; do not mutate it: state changes belong in `reduce`). */
  state: unknown;
  /** Updates the running tool state's title/metadata (shown in hooks and the trace). */
  metadata(update: { title?: string; metadata?: Record<string, unknown> }): void;
  /** Extra services a host passes to tools (`EngineOptions.services`). */
  services: Record<string, unknown>;
  /** How deep the run is nested under parent runs: 0 for a top-level run, 1 for a sub-agent's, ... */
  depth: number;
  /**
   * A model call through the run's middleware, counted in the run's usage and budgets and visible in its trace
   * (a `model_call` event). For tools that ask a model something (summaries, MCP sampling). Pass
   * `{ signal: ctx.signal }` so the call ends with the tool (its timeout); by default it ends with the run.
   */
  callModel: CallModel;
  /**
   * The link a sub-run started by this call gets (`EngineOptions.parent`): this run as its parent, depth + 1,
   * what is left of this run's token, cost and time budget as its share, and its usage counted here too.
   */
  childLink(): ParentLink;
}

/** A tool's full result. A plain string is shorthand for `{ output }`. */
export interface ToolOutput {
  output: string;
  title?: string;
  metadata?: Record<string, unknown>;
  attachments?: Attachment[];
  /** When set, the output the model sees was cut; `full` keeps the whole output for the trace. */
  full?: string;
  /** Parts added to the history after the call's tool part (the `task` tool's subtask part). */
  parts?: ResultPart[];
}

/** A tool definition: id, description, zod parameters, the op groups it needs, and `execute`. */
export interface Tool<P extends z.ZodType = z.ZodType> {
  readonly id: string;
  readonly description: string;
  readonly parameters: P;
  readonly requires: readonly OpGroup[];
  /** Never prune this tool's outputs during compaction (e.g. skill bodies). */
  readonly keepOutput?: boolean;
  execute(args: z.output<P>, ctx: ToolContext): Promise<ToolOutput | string> | ToolOutput | string;
}

/** Any tool, whatever its parameters. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTool = Tool<any>;

const TOOL_ID = /^[a-zA-Z0-9_-]{1,64}$/;

/** Defines a tool. The id must match `[a-zA-Z0-9_-]{1,64}` (what every provider accepts). */
export function defineTool<P extends z.ZodType>(def: {
  id: string;
  description: string;
  parameters: P;
  requires?: OpGroup[];
  keepOutput?: boolean;
  execute: Tool<P>['execute'];
}): Tool<P> {
  if (!TOOL_ID.test(def.id)) throw new Error(`invalid tool id "${def.id}": use 1-64 characters of [a-zA-Z0-9_-]`);
  return { requires: [], ...def };
}

/** The tool as a model sees it: JSON Schema of the parameters' input side. */
export function toolSpec(tool: AnyTool): ToolSpec {
  const schema = z.toJSONSchema(tool.parameters, { io: 'input' }) as Record<string, unknown>;
  delete schema.$schema;
  return { name: tool.id, description: tool.description, inputSchema: schema };
}

/** Formats zod issues as one readable line per problem, for the model to fix its call. */
export function describeIssues(error: z.ZodError): string {
  return formatZodIssues(error, '(arguments)');
}

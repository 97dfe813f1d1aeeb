import { z } from 'zod';
import type { Env, OpGroup } from './env.js';
import type { Attachment } from './tool-state.js';
import type { ToolSpec } from './model.js';

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
  /** Extra services a host passes to tools (e.g. a sub-agent runner for `task`). */
  services: Record<string, unknown>;
}

/** A tool's full result. A plain string is shorthand for `{ output }`. */
export interface ToolOutput {
  output: string;
  title?: string;
  metadata?: Record<string, unknown>;
  attachments?: Attachment[];
  /** When set, the output the model sees was cut; `full` keeps the whole output for the trace. */
  full?: string;
}

/** A tool definition: id, description, zod parameters, the op groups it needs, and `execute`. */
export interface Tool<P extends z.ZodType = z.ZodType> {
  readonly id: string;
  readonly description: string;
  readonly parameters: P;
  readonly requires: readonly OpGroup[];
  /** Never prune this tool's outputs during compaction (e.g. skill bodies). */
  readonly keepOutput?: boolean;
  /**
   * How long a call with these arguments may run by the tool's own rule (bash: the call's `timeoutMs`, else
   * its default). The executor then allows that plus a grace period instead of its own default, so the tool
   * stops the work and reports its own timeout (with the output so far) before the executor cuts it off.
   */
  readonly timeoutMs?: (args: z.output<P>) => number;
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
  timeoutMs?: Tool<P>['timeoutMs'];
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
  return error.issues.map((i) => `- ${i.path.length ? i.path.join('.') : '(arguments)'}: ${i.message}`).join('\n');
}

import { z } from 'zod';
import type { Env, OpGroup } from './env.js';
import type { Attachment } from './tool-state.js';
import type { ResultPart } from './action.js';
import type { ToolSpec } from './model.js';
import type { CallModel } from './model-call.js';
import type { ParentLink } from './parent-link.js';
import type { PermissionSubject } from './permission.js';
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
  /**
   * How long a call with these arguments may run by the tool's own rule (bash: the call's `timeoutMs`, else
   * its default). The executor then allows that plus a grace period instead of its own default, so the tool
   * stops the work and reports its own timeout (with the output so far) before the executor cuts it off.
   */
  readonly timeoutMs?: (args: z.output<P>) => number;
  /**
   * The JSON Schema the model is shown, when the parameters were made from one and must reach the model exactly
   * as given (a replay's stand-ins for recorded tools); by default it is generated from `parameters`.
   */
  readonly inputSchema?: Record<string, unknown>;
  /**
   * The call's main input for permission rules (docs/permissions.md): the command for bash, the path for file
   * tools, the host for web_fetch. Patterns of the tool's rules match it; a tool without it matches only `*`.
   */
  readonly permission?: (args: z.output<P>) => PermissionSubject | readonly PermissionSubject[];
  /**
   * The tool changes files (`write`, a patch tool): the rules of the `edit` key apply to its calls too, as in
   * opencode, where `edit` covers every tool that changes files.
   */
  readonly edits?: boolean;
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
  inputSchema?: Record<string, unknown>;
  permission?: Tool<P>['permission'];
  edits?: boolean;
  execute: Tool<P>['execute'];
}): Tool<P> {
  if (!TOOL_ID.test(def.id)) throw new Error(`invalid tool id "${def.id}": use 1-64 characters of [a-zA-Z0-9_-]`);
  assertZod4Schema(def.parameters, `defineTool("${def.id}")`);
  return { requires: [], ...def };
}

/**
 * JSON Schemas already generated, by zod schema. Generating one is most of what making a fork branch's agent cost
 * (each branch registers its tools anew); a zod schema is immutable, so its JSON Schema is too. Each caller gets its
 * own copy, so one that edits it changes no other's.
 */
const jsonSchemas = new WeakMap<z.ZodType, Record<string, unknown>>();

/** The tool as a model sees it: JSON Schema of the parameters' input side (or the tool's own `inputSchema`). */
export function toolSpec(tool: AnyTool): ToolSpec {
  if (tool.inputSchema) return { name: tool.id, description: tool.description, inputSchema: tool.inputSchema };
  let schema = jsonSchemas.get(tool.parameters);
  if (!schema) {
    assertZod4Schema(tool.parameters, `tool "${tool.id}"`);
    schema = z.toJSONSchema(tool.parameters, { io: 'input' }) as Record<string, unknown>;
    delete schema.$schema;
    jsonSchemas.set(tool.parameters, schema);
  }
  return { name: tool.id, description: tool.description, inputSchema: structuredClone(schema) };
}

/**
 * Throws unless `schema` is a zod 4 schema. A schema from zod 3 (a project's own older zod, or
 * `zod/v3`) has none of zod 4's internals, so JSON Schema generation and argument parsing would fail deep inside
 * a run: say so where the schema comes in, naming the version found.
 */
export function assertZod4Schema(schema: unknown, where: string): void {
  const version = (schema as { _zod?: { version?: { major: number; minor: number; patch: number } } } | null)?._zod
    ?.version;
  if (version?.major === 4) return;
  const fix = 'define it with zod 4 (npm install zod@^4; with zod 3.25 or later, import { z } from "zod/v4")';
  if (version)
    throw new TypeError(
      `${where}: parameters is a zod ${version.major}.${version.minor}.${version.patch} schema; qitos-ts needs zod ^4: ${fix}`,
    );
  const v3 =
    typeof schema === 'object' &&
    schema !== null &&
    '_def' in schema &&
    typeof (schema as { safeParse?: unknown }).safeParse === 'function';
  if (v3) throw new TypeError(`${where}: parameters is a zod 3 schema; qitos-ts needs zod ^4: ${fix}`);
  throw new TypeError(`${where}: parameters must be a zod 4 schema, got ${schema === null ? 'null' : typeof schema}`);
}

/** Formats zod issues as one readable line per problem, for the model to fix its call. */
export function describeIssues(error: z.ZodError): string {
  return formatZodIssues(error, '(arguments)');
}

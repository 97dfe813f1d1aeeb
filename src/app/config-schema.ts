import { z } from 'zod';
import { ModelConfig as ProviderModelConfig } from '../models/model-config.js';
import { McpConfig } from '../kit/mcp/mcp-config.js';
import { PermissionConfigError, parsePermissionConfig, type PermissionConfig } from '../core/index.js';

const positiveInt = z.number().int().positive();

/** Sampling parameters sent with every model request (become the agent's `modelParams`). */
export const ModelParamsConfig = z.strictObject({
  temperature: z.number().min(0).optional(),
  topP: z.number().min(0).max(1).optional(),
  maxOutputTokens: positiveInt.optional(),
  seed: z.number().int().optional(),
  stop: z.array(z.string()).optional(),
  providerOptions: z.record(z.string(), z.unknown()).optional(),
});

/** The model: `provider:model` (or `scripted:<file.json>`), provider options and sampling parameters. */
export const ModelConfig = z.strictObject({
  id: z
    .string()
    .regex(/^[a-zA-Z0-9_.-]+:.+$/, 'expected "provider:model", e.g. "openai:gpt-4o-mini" or "scripted:replies.json"'),
  /** Provider options (base URL, API key env variable, timeout, retries, price), passed to `createModel`. */
  options: z.strictObject(ProviderModelConfig.omit({ provider: true, model: true }).shape).optional(),
  params: ModelParamsConfig.optional(),
});

/** Engine budgets, recovery and tool execution. */
export const EngineConfig = z.strictObject({
  maxSteps: positiveInt.optional(),
  maxSeconds: z.number().positive().optional(),
  maxTokens: positiveInt.optional(),
  maxCost: z.number().positive().optional(),
  maxRecoveries: z.number().int().nonnegative().optional(),
  parallelTools: z.boolean().optional(),
  toolConcurrency: positiveInt.optional(),
  toolTimeoutMs: positiveInt.optional(),
  /** How long a permission ask waits for its answer before the call is refused (default 300 000). */
  approvalTimeoutMs: positiveInt.optional(),
});

/**
 * Permission rules in opencode's shape (docs/permissions.md); checked by `parsePermissionConfig`, whose error
 * names the key and pattern (and so the line of the YAML file).
 */
export const PermissionSection = z.custom<PermissionConfig>().superRefine((value, ctx) => {
  try {
    parsePermissionConfig(value, '');
  } catch (err) {
    if (!PermissionConfigError.isInstance(err)) throw err;
    ctx.addIssue({ code: 'custom', path: err.path, message: err.reason });
  }
});

/** Doom-loop detection (`true` for the defaults, `false` or absent for none). */
export const DoomLoopConfig = z.union([
  z.boolean(),
  z.strictObject({
    threshold: z.number().int().min(2).optional(),
    maxCycleLength: positiveInt.optional(),
    onDetect: z.enum(['stop', 'warn']).optional(),
    compare: z.enum(['call', 'call+result']).optional(),
    nameOnly: z.array(z.string()).optional(),
    maxWarnings: positiveInt.optional(),
  }),
]);

/** Context compaction (`true` for the defaults; an object is passed to `compaction()` as its options). */
export const CompactionConfig = z.union([
  z.boolean(),
  z.strictObject({
    contextWindow: positiveInt.optional(),
    maxOutput: positiveInt.optional(),
    reserve: z.number().int().nonnegative().optional(),
    protectTokens: z.number().int().nonnegative().optional(),
    protectTurns: z.number().int().nonnegative().optional(),
    keepRecentTokens: z.number().int().nonnegative().optional(),
    keepFirstUser: z.boolean().optional(),
    keepTools: z.array(z.string()).optional(),
    summarise: z.boolean().optional(),
    summaryPrompt: z.string().optional(),
    summaryMaxTokens: positiveInt.optional(),
    maxConsecutive: positiveInt.optional(),
  }),
]);

/** Policies built by the CLI, in this order: doom-loop, then compaction. */
export const PoliciesConfig = z.strictObject({
  doomLoop: DoomLoopConfig.optional(),
  compaction: CompactionConfig.optional(),
});

/** Where traces go. */
export const TraceConfig = z.strictObject({
  dir: z.string().min(1).optional(),
  streamDeltas: z.boolean().optional(),
});

/**
 * Live OpenTelemetry export of runs (docs/telemetry.md): on when `endpoint` is set (or `--otel`), or when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` / `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is; `enabled: false` turns it off.
 * Not recorded in a trace's manifest (its headers may hold a token).
 */
export const TelemetryConfig = z.strictObject({
  enabled: z.boolean().optional(),
  /** A collector's base URL (`http://localhost:4318`) or its traces URL (`.../v1/traces`). */
  endpoint: z.url({ protocol: /^https?$/ }).optional(),
  protocol: z.enum(['http/protobuf', 'http/json']).optional(),
  /** Headers of every export request (e.g. an API key); their values are kept out of traces, logs and spans. */
  headers: z.record(z.string(), z.string()).optional(),
  /** Put message content on spans (prompts, replies, tool arguments and results). Default false. */
  content: z.boolean().optional(),
  serviceName: z.string().min(1).optional(),
  timeoutMs: z.number().int().positive().optional(),
});

const SandboxModeConfig = z.enum(['auto', 'bwrap', 'none']);

/**
 * The env the agent acts in: a jailed workspace folder on the host (files, and commands unless `process: false`),
 * or an in-memory file tree. Without one, runs get an env with no op groups (tools that need files stop the run
 * before step 1 with env_capability_mismatch).
 */
export const EnvConfig = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('host'),
    /** The workspace folder (relative to the working folder); it must exist unless `create` is set. */
    root: z.string().min(1),
    create: z.boolean().optional(),
    /** Host environment variables commands may see besides PATH, HOME (the root) and LANG. */
    allowEnv: z.array(z.string()).optional(),
    process: z.boolean().optional(),
    timeoutMs: positiveInt.optional(),
    maxOutputBytes: positiveInt.optional(),
    /** Where commands run: `auto` (bubblewrap when it works, default), `bwrap` (required), `none`, or options. */
    sandbox: z
      .union([
        SandboxModeConfig,
        z.strictObject({
          mode: SandboxModeConfig.optional(),
          /** Let commands use the host's network (default false). */
          network: z.boolean().optional(),
          /** More host folders commands may read. */
          readOnly: z.array(z.string().min(1)).optional(),
          limits: z
            .strictObject({
              processes: positiveInt.optional(),
              fileSizeBytes: positiveInt.optional(),
              cpuSeconds: positiveInt.optional(),
              memoryBytes: positiveInt.optional(),
            })
            .optional(),
          /** The bubblewrap program (default `bwrap` on PATH). */
          bwrap: z.string().min(1).optional(),
        }),
      ])
      .optional(),
  }),
  z.strictObject({
    type: z.literal('memory'),
    /** Initial files: workspace-relative path -> text. */
    files: z.record(z.string(), z.string()).optional(),
  }),
]);

/**
 * The run's long-term memory (docs/memory.md): `ctx.memory` in agent methods. Paths are relative to the working
 * folder; the markdown notes file defaults to `.qitos/memory.md` in the workspace (or the working folder).
 */
export const MemoryConfig = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('window'), size: positiveInt.optional() }),
  z.strictObject({
    type: z.literal('summary'),
    keepRecent: positiveInt.optional(),
    foldBatch: positiveInt.optional(),
    maxOutputTokens: positiveInt.optional(),
  }),
  z.strictObject({
    type: z.literal('vector'),
    path: z.string().min(1).optional(),
    maxRecords: positiveInt.optional(),
    dimensions: positiveInt.optional(),
  }),
  z.strictObject({
    type: z.literal('markdown'),
    path: z.string().min(1).optional(),
    maxRecords: positiveInt.optional(),
  }),
]);

/** Critics of the CRITIQUE phase, in order (docs/critics.md). */
export const CriticsConfig = z.array(
  z.discriminatedUnion('type', [
    z.strictObject({ type: z.literal('pass-through') }),
    z.strictObject({ type: z.literal('self-reflection'), maxRetries: z.number().int().nonnegative().optional() }),
    z.strictObject({
      type: z.literal('react-self-reflection'),
      when: z.enum(['final', 'every']).optional(),
      maxRetries: z.number().int().nonnegative().optional(),
    }),
  ]),
);

/** The search that picks among a branch decision's candidates (docs/search.md). */
export const SearchConfig = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('greedy') }),
  z.strictObject({ type: z.literal('beam'), width: positiveInt }),
  z.strictObject({ type: z.literal('best-first'), cap: z.number().int().nonnegative().optional() }),
  z.strictObject({
    type: z.literal('tree'),
    bonus: z.number().nonnegative().optional(),
    cap: z.number().int().nonnegative().optional(),
  }),
]);

/**
 * The `--config` YAML file. Every section is optional; CLI flags override it, it overrides the defaults,
 * and the effective result is recorded in the manifest (`config`) so replay and fork rebuild the same run.
 */
export const QitosConfig = z.strictObject({
  model: ModelConfig.optional(),
  engine: EngineConfig.optional(),
  /**
   * The budget of `qitos workflow run|resume|fork`. A workflow's budget is its own: every LLM turn of a workflow is a
   * step, so the `engine:` budget a shared file sets for agents does not apply to workflows.
   */
  workflow: z
    .strictObject({
      maxSteps: positiveInt.optional(),
      maxSeconds: z.number().positive().optional(),
      maxTokens: positiveInt.optional(),
      maxCost: z.number().positive().optional(),
    })
    .optional(),
  policies: PoliciesConfig.optional(),
  trace: TraceConfig.optional(),
  telemetry: TelemetryConfig.optional(),
  env: EnvConfig.optional(),
  memory: MemoryConfig.optional(),
  critics: CriticsConfig.optional(),
  search: SearchConfig.optional(),
  /** Skill folders (relative to the working folder): the agent gets the `skill` tool over the skills found there. */
  skills: z
    .strictObject({
      roots: z.array(z.string().min(1)).min(1, 'give at least one skills folder'),
      /** `list` (default): the skill tool lists every skill; `retrieval`: it lists the pinned ones and find_skills searches the rest. */
      disclosure: z.enum(['list', 'retrieval']).optional(),
      /** Skills the retrieval disclosure always lists. */
      pinned: z.array(z.string().min(1)).optional(),
      /** Lowest score find_skills returns (default 0.1). */
      threshold: z.number().optional(),
      /**
       * `sandbox`: run_skill_script runs skills' scripts in the sandbox; `off`: no scripts. Default: sandbox where
       * bubblewrap works and the run has a workspace.
       */
      scripts: z.enum(['sandbox', 'off']).optional(),
    })
    .optional(),
  /** MCP servers by name: their tools join the agent's, their resources and prompts become usable (docs/mcp.md). */
  mcp: McpConfig.optional(),
  /** Permission rules: which tool calls run, ask first, or are refused (docs/permissions.md). */
  permission: PermissionSection.optional(),
  /** The agent's own options, spread into its constructor options after `model`. */
  agent: z.record(z.string(), z.unknown()).optional(),
});
export type QitosConfig = z.infer<typeof QitosConfig>;

import { z } from 'zod';
import { TRACE_SCHEMA, TRACE_VERSION } from './trace-schema-id.js';
import { Phase } from './phase.js';
import { StopReason } from './stop-reason.js';
import { Usage, Tokens } from './usage.js';
import { Decision } from './decision.js';
import { ActionResult } from './action.js';
import { PermissionRule } from './permission.js';
import { ModelResponse, RequestHashes } from './model.js';
import { RunParent } from './run-link.js';
import { CritiqueRecord } from './critic.js';
import { BranchRecord } from './search.js';
import { MemoryRecord } from './memory.js';

/** Schema id and version written in every manifest; readers refuse newer versions. */
export { TRACE_SCHEMA, TRACE_VERSION };

/**
 * A failure recorded in the manifest (recoveries and the fatal error, if any). For a bug (an Error thrown by
 * code, not one of the kernel's classified errors) `stack` is its stack trace (source-mapped for `.ts` modules)
 * and `at` the first frame outside qitos-ts and node_modules, as `file:line:col`: where the user's code threw.
 * Both are absent in traces written before they existed.
 */
export const Failure = z.object({
  step: z.number(),
  kind: z.string(),
  message: z.string(),
  fatal: z.boolean(),
  at: z.string().optional(),
  stack: z.string().optional(),
});
export type Failure = z.infer<typeof Failure>;

/** `traces/<runId>/manifest.json`: written at start, replaced atomically at the end. */
export const Manifest = z.object({
  schema: z.literal(TRACE_SCHEMA),
  version: z.number().int(),
  runId: z.string(),
  status: z.enum(['running', 'completed', 'failed', 'interrupted']),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** `sha256`: of the agent module file's content when the run started (absent in traces written before it was recorded). */
  agent: z.object({
    name: z.string(),
    module: z.string().optional(),
    export: z.string().optional(),
    sha256: z.string().optional(),
    variant: z.string().optional(),
    config: z.record(z.string(), z.unknown()).optional(),
    /** The version of the agent's state schema the recorded states follow (absent: 1, written before versions). */
    stateVersion: z.number().int().positive().optional(),
  }),
  task: z.record(z.string(), z.unknown()),
  /** `endpoint`: where the model's requests went (a provider's effective base URL, without credentials or query). */
  model: z
    .object({ id: z.string(), params: z.record(z.string(), z.unknown()).optional(), endpoint: z.string().optional() })
    .nullable(),
  parser: z.string().nullable(),
  tools: z.array(z.string()),
  policies: z.array(z.string()),
  budget: z.record(z.string(), z.unknown()),
  /** `sandbox`: how the env isolated commands (`bwrap` or `none`), when it runs any. */
  env: z.object({ name: z.string(), sandbox: z.string().optional() }),
  seed: z.number().nullable(),
  hashes: z.object({
    config: z.string().optional(),
    systemPrompt: z.string().optional(),
    toolSchemas: z.string().optional(),
  }),
  /** The effective config the run was started with (CLI: config file + flags), so replay and fork can rebuild it. */
  config: z.record(z.string(), z.unknown()).optional(),
  parent: RunParent.nullable(),
  /** The run's permission rules, flattened in order (docs/permissions.md); absent when it had none. */
  permission: z.array(PermissionRule).optional(),
  /** The state after `initState`, so a run can be rebuilt step by step (fork). */
  initialState: z.unknown(),
  /** Files the env left in `artifacts/` when the run ended (e.g. `repo.diff`), with their sizes in bytes. */
  artifacts: z.array(z.object({ name: z.string(), bytes: z.number().int().nonnegative() })).optional(),
  summary: z
    .object({
      stopReason: StopReason,
      message: z.string().optional(),
      finalResult: z.string().nullable(),
      steps: z.number().int(),
      usage: Usage,
      /**
       * What the calls besides the steps' own (`callModel`: a user simulator, compaction, a critic) spent, by purpose;
       * part of `usage`. Absent without such calls.
       */
      usageByPurpose: z.record(z.string(), Usage).optional(),
      durationMs: z.number(),
      failures: z.array(Failure),
      policyEvents: z.record(z.string(), z.number()).optional(),
    })
    .nullable(),
  /**
   * The sha-256 (hex) of every other file of the trace folder when the manifest was written, by path (`events.jsonl`,
   * `steps.jsonl`, `artifacts/<name>`; a child trace by its `manifest.json`, whose own `files` cover the rest of it).
   * The signature covers it, so it signs the whole trace. Absent in traces written before it was recorded.
   */
  files: z.record(z.string(), z.string()).optional(),
  /** HMAC-SHA256 (hex) of the rest of the manifest under the writing machine's trace key, when it had one. */
  signature: z.string().optional(),
});
export type Manifest = z.infer<typeof Manifest>;

/** One line of `events.jsonl`. */
export const EventRecord = z.object({
  seq: z.number().int(),
  ts: z.number(),
  step: z.number().int(),
  phase: Phase,
  type: z.string(),
  data: z.unknown(),
});
export type EventRecord = z.infer<typeof EventRecord>;

/**
 * The state changes of one step, on one object: keys set to a value, arrays replaced from an index on, keys removed,
 * and `patch`: keys whose value is an object in both states, with the changes inside it (so a change deep in a large
 * object, e.g. a workflow thread, records only what changed, not the whole object). Traces written before `patch`
 * existed have only top-level `set`, `splice` and `unset`.
 */
export const StateDiff = z.object({
  set: z.record(z.string(), z.unknown()).optional(),
  splice: z
    .record(z.string(), z.object({ at: z.number().int().nonnegative(), items: z.array(z.unknown()) }))
    .optional(),
  unset: z.array(z.string()).optional(),
  get patch(): z.ZodOptional<z.ZodRecord<z.ZodString, typeof StateDiff>> {
    return z.record(z.string(), StateDiff).optional();
  },
});
export type StateDiff = z.infer<typeof StateDiff>;

/** The model call of one step. */
export const ModelCallRecord = z.object({
  hashes: RequestHashes,
  /** The system prompt, recorded when it differs from the previous model call's (so always on the first). */
  system: z.string().optional(),
  messageCount: z.number().int(),
  /** What memory retrieval added to the model input this step (`memoryInput`): the query and the records. */
  memory: z.object({ query: z.string(), records: z.array(MemoryRecord) }).optional(),
  response: ModelResponse,
  latencyMs: z.number(),
});
export type ModelCallRecord = z.infer<typeof ModelCallRecord>;

/** One line of `steps.jsonl`. */
export const StepRecord = z.object({
  step: z.number().int(),
  startedAt: z.number(),
  durationMs: z.number(),
  phases: z.record(z.string(), z.number()),
  observation: z.unknown(),
  decision: Decision.nullable(),
  results: z.array(ActionResult),
  model: ModelCallRecord.optional(),
  tokens: Tokens.optional(),
  cost: z.number().nullable().optional(),
  error: z.object({ kind: z.string(), message: z.string(), recovered: z.boolean() }).optional(),
  stop: z.object({ reason: StopReason, message: z.string() }).optional(),
  /** A branch step: every candidate, its score and what was acted on. */
  branch: BranchRecord.optional(),
  /** The critics' verdicts on the step (CRITIQUE phase). */
  critiques: z.array(CritiqueRecord).optional(),
  /** The decision was edited at a breakpoint before ACT: `decision` is the one acted on, `original` what DECIDE gave. */
  edited: z.object({ original: Decision }).optional(),
  stateDiff: StateDiff,
});
export type StepRecord = z.infer<typeof StepRecord>;

/**
 * `qitos-ts`: the kernel. The contracts (zod schemas and their types: State, Task, Decision, Action, messages,
 * Model, Env, Tool, Policy, Parser, trace records), the decision helpers (`decide`), `defineTool`, and the loop:
 * `Engine`, `AgentModule`, `ToolRegistry`.
 *
 * Everything else has its own subpath, so importing the kernel does not load providers, tools or the bench:
 * `qitos-ts/models`, `/parsers`, `/policies`, `/tools`, `/envs`, `/agents`, `/prompts`, `/skills`, `/mcp`,
 * `/bench`, `/trace`, `/testing`, ... (docs/api.md lists every subpath and what it holds).
 *
 * The list is deliberate: what a user writes code against. The kernel's own helpers (hashing, zod issue
 * formatting, setting diffs, ...) stay internal; the repository's code imports them from `./core/index.js`.
 */
import './core/zod-version.js'; // first: a zod older than 4 stops here with the fix, not deep inside another module

// The loop, and what an experiment subclasses.
export { AgentModule, type AgentModuleOptions, type AgentContext } from './engine/agent-module.js';
export {
  Engine,
  type EngineOptions,
  type RunResult,
  type RunOptions,
  type StreamOptions,
  type RunEvent,
  type TraceOptions,
} from './engine/engine.js';
export { ToolRegistry } from './engine/tool-registry.js';
export { recordedStateVersion } from './engine/resumed-state.js';
export { migrateState, type StateMigration } from './core/state-migration.js';

// Writing an agent: state, tasks, decisions, tools.
export {
  BaseState,
  baseState,
  Task,
  Budget,
  StopReason,
  StopVerdict,
  Decision,
  SimpleDecision,
  decide,
  Action,
  ActionResult,
  Phase,
  defineTool,
  ToolSpec,
  ToolState,
  MAX_JSON_DEPTH,
  type State,
  type TaskInput,
  type Tool,
  type AnyTool,
  type ToolContext,
  type ToolOutput,
  type ToolStatus,
} from './core/index.js';

// The step debugger: the Engine's `breakpoints`, `onBreak` and `breakCondition` (docs/debugging.md). Not yet stable
// (docs/api.md, "Stability"): what a break point can match and what `onBreak` can answer may still change.
/** @experimental The step debugger. */
export {
  type Breakpoint,
  type BreakPhase,
  type BreakCommand,
  type BreakContext,
  type OnBreak,
  type BreakCondition,
} from './core/index.js';

// Messages with parts, and what a provider receives.
export {
  Message,
  UserInfo,
  AssistantInfo,
  Part,
  TextPart,
  ReasoningPart,
  ToolPart,
  FilePart,
  Attachment,
  SubtaskPart,
  StepStartPart,
  StepFinishPart,
  RetryPart,
  CompactionPart,
  CustomPart,
  customPart,
  definePartKind,
  type CustomPartKind,
  type CustomPartKinds,
  type CustomPartRendering,
  toModelMessages,
  plainResults,
  resultsMessage,
  ModelMessage,
  ModelTextPart,
  ModelReasoningPart,
  ModelFilePart,
  ModelToolCallPart,
  ModelToolResultPart,
  type UserMessage,
  type AssistantMessage,
  type ResultFormatter,
} from './core/index.js';

// Models, middleware, usage.
export {
  ModelRequest,
  ModelResponse,
  ResponsePart,
  ModelStreamEvent,
  FinishReason,
  ModelInfo,
  Usage,
  Tokens,
  emptyTokens,
  totalTokens,
  responseText,
  wrapModel,
  type Model,
  type GenerateOptions,
  type StreamListener,
  type ModelMiddleware,
  type ModelCall,
  type ModelNext,
  type LayeredModel,
  type CallModel,
  type CallModelOptions,
  type EmbeddingModel,
  type EmbedOptions,
} from './core/index.js';

// Plug-ins: parsers, policies, critics, search, memory, envs, hooks.
export {
  SearchState,
  CriticVerdict,
  MemoryRecord,
  HookEvent,
  type Parser,
  type ParseContext,
  type Policy,
  type PolicyContext,
  type BeforeModelResult,
  type Critic,
  type CriticContext,
  type Search,
  type SearchContext,
  type SearchChoice,
  type ScoredCandidate,
  type Memory,
  type MemoryContext,
  type MemoryAccess,
  type Env,
  type EnvArtifact,
  type OpGroup,
  type OpGroups,
  type FileOps,
  type FileStat,
  type ProcessOps,
  type ProcessResult,
  type MountOps,
  type ActContext,
  type Hook,
  type HookEventType,
} from './core/index.js';

// Errors: every error qitos-ts throws is a QitosError (`kind`, `isInstance`); the loop's own failures are these.
export {
  QitosError,
  ParseError,
  ModelError,
  EnvError,
  AbortedError,
  TimeBudgetError,
  type ErrorKind,
  type QitosErrorKind,
  type ModelErrorKind,
} from './core/index.js';

// Trace records (docs/trace-format.md); reading, replaying and diffing traces is `qitos-ts/trace`.
export {
  TRACE_SCHEMA,
  TRACE_VERSION,
  Manifest,
  RunParent,
  Failure,
  EventRecord,
  StepRecord,
  ModelCallRecord,
  RequestHashes,
  StateDiff,
  applyStateDiff,
  BranchRecord,
  FrontierEntry,
  CritiqueRecord,
  ResultPart,
} from './core/index.js';

// Permissions (docs/permissions.md): rules, the decisions they record, and who answers an ask.
export { ApprovalQueue } from './engine/approval-queue.js';
export { autoApprove, DEFAULT_APPROVAL_TIMEOUT_MS } from './engine/permission-gate.js';
export {
  PermissionConfig,
  PermissionAction,
  PermissionRule,
  PermissionRecord,
  ApprovalRequest,
  ApprovalReply,
  PermissionRules,
  PermissionConfigError,
  parsePermissionConfig,
  type Approver,
  type ShellCommand,
} from './core/index.js';

// Secrets that no record may hold (docs/security.md).
export { Redactor, REDACTED, MIN_SECRET_LENGTH } from './core/index.js';

/**
 * `qitos-ts`: the kernel. The contracts (zod schemas and their types: State, Task, Decision, Action, messages,
 * Model, Env, Tool, Policy, Parser, trace records), the decision helpers (`decide`), `defineTool`, and the loop:
 * `Engine`, `AgentModule`, `ToolRegistry`.
 *
 * Everything else has its own subpath, so importing the kernel does not load providers, tools or the bench:
 * `qitos-ts/models`, `/parsers`, `/policies`, `/tools`, `/envs`, `/agents`, `/prompts`, `/skills`, `/mcp`,
 * `/bench`, `/trace`, `/testing` (docs/api.md lists what each holds).
 */
import './core/zod-version.js'; // first: a zod older than 4 stops here with the fix, not deep inside another module
export * from './core/index.js';
export { AgentModule, type AgentModuleOptions, type AgentContext } from './engine/agent-module.js';
export { Engine, type EngineOptions, type RunResult, type RunOptions, type StreamOptions, type RunEvent, type TraceOptions } from './engine/engine.js';
export { ToolRegistry } from './engine/tool-registry.js';
export { ApprovalQueue } from './engine/approval-queue.js';
export { autoApprove, DEFAULT_APPROVAL_TIMEOUT_MS } from './engine/permission-gate.js';

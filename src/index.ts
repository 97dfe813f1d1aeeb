/**
 * qitos-ts: a research kernel for LLM agents.
 * The public API: contracts (core), the loop (engine), the scripted model, and the batteries in kit.
 */
export * from './core/index.js';
export { AgentModule, type AgentModuleOptions } from './engine/agent-module.js';
export { Engine, type EngineOptions, type RunResult, type TraceOptions } from './engine/engine.js';
export { ToolRegistry } from './engine/tool-registry.js';
export { ActionExecutor, type ExecutorOptions } from './engine/action-executor.js';
export { readTrace, readManifest, parseJsonl, TraceError, type Trace } from './engine/trace-reader.js';
export { TraceWriter } from './engine/trace-writer.js';
export { ModelInputBuilder } from './engine/model-input.js';
export * from './models/index.js';
export * from './kit/parsers/index.js';
export * from './kit/policies/index.js';
export * from './kit/agents/index.js';
export * from './kit/prompts/index.js';
export * from './envs/index.js';
export * from './kit/tools/index.js';
export * from './kit/expr/index.js';
export * from './kit/web/index.js';
export * from './kit/bench/index.js';
export * from './kit/skills/index.js';
export * from './kit/mcp/index.js';

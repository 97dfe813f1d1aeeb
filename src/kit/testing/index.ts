/**
 * `qitos-ts/testing`: what a test of an agent needs to run offline. `ScriptedModel` answers from a script
 * (text, reasoning, tool calls, usage, errors, delays) and records every request; `MemoryEnv` is an in-memory
 * file tree with the same file ops as a host workspace. Read the trace a test run wrote with `qitos-ts/trace`.
 */
export { ScriptedModel, type ScriptReply, type ScriptedModelOptions } from '../../models/scripted-model.js';
export { MemoryEnv, type MemoryEnvOptions } from '../../envs/memory-env.js';

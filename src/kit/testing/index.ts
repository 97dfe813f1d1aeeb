/**
 * `qitos-ts/testing`: what a test of an agent needs to run offline. `ScriptedModel` answers from a script
 * (text, reasoning, tool calls, usage, errors, delays) and records every request; `MemoryEnv` is an in-memory
 * file tree with the same file ops as a host workspace. Read the trace a test run wrote with `qitos-ts/trace`.
 */
import '../../core/zod-version.js'; // first: a zod older than 4 stops here with the fix, not deep inside another module
export { ScriptedModel, type ScriptReply, type ScriptedModelOptions } from '../../models/scripted-model.js';
export { MemoryEnv, type MemoryEnvOptions } from '../../envs/memory-env.js';

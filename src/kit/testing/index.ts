/**
 * `qitos-ts/testing`: stand-ins for unit tests of a tool, a policy or an agent, without a real model or a run, as
 * `ai/test` is for the Vercel AI SDK. The repository's own tests use the same ones (docs/testing.md).
 * - models: `ScriptedModel` answers from a script (text, reasoning, tool calls, usage, errors, delays) and records
 *   every request; `startFakeOpenAI` (and `startFakeAnthropic`, `startFakeEmbeddings`) serve a provider's real wire
 *   protocol on 127.0.0.1, for a test of the HTTP path through the real SDK;
 * - envs: `MemoryEnv`, an in-memory file tree with the same file ops as a host workspace;
 * - contexts: `toolContext` to call a tool's `execute`, `actContext` for an ACT phase, `policyContext` for a policy;
 * - runs: `ScriptedAgent` returns given decisions; `runSteps` runs the loop on them with real tools and policies.
 * Read the trace a test run wrote with `qitos-ts/trace`.
 */
import '../../core/zod-version.js'; // first: a zod older than 4 stops here with the fix, not deep inside another module
export { ScriptedModel, type ScriptReply, type ScriptedModelOptions } from '../../models/scripted-model.js';
export { MemoryEnv, type MemoryEnvOptions } from '../../envs/memory-env.js';
export { toolContext, actContext } from './tool-context.js';
export { policyContext, policyForRun, type CapturedEvent } from './policy-context.js';
export { ScriptedAgent } from './scripted-agent.js';
export { runSteps, type RunStepsOptions } from './run-steps.js';
export {
  startFakeOpenAI,
  startFakeAnthropic,
  startFakeEmbeddings,
  type FakeServer,
  type FakeServerOptions,
  type RecordedRequest,
  type OpenAIReply,
  type OpenAIScript,
  type AnthropicReply,
  type AnthropicScript,
  type EmbeddingsScript,
  type HttpReply,
  type Script,
} from './fake-llm-servers.js';

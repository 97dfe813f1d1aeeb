/**
 * tau-bench's domain layer (sierra-research/tau-bench at 59a200c): the airline and retail databases, tasks, wiki,
 * rules and tool schemas read from an installed copy of the upstream files (`qitos tau-bench fetch`), the tools
 * re-written in TypeScript with Python-exact values, and a copy-on-write session with the original's hash and
 * reward. See docs/tau-bench-exactness.md.
 */
import '../../core/zod-version.js'; // first: a zod older than 4 stops here with the fix, not deep inside another module
export type {
  TauDomain,
  TauDomainName,
  TauTask,
  TauAction,
  TauSession,
  TauCallResult,
  TauReward,
  TauToolInfo,
} from './types.js';
export { loadTauDomain, type LoadTauDomainOptions } from './load-domain.js';
export { installTauData, tauDataDir, type InstallTauDataOptions, type InstallTauDataResult } from './install.js';
export { PyFloat, PyException, toPlain, fromPlain, type PyValue, type PyDict } from './py/py-value.js';
export { pyJsonParse, pyJsonDumps } from './py/py-json.js';
export { TAU_BENCH_COMMIT, TAU_BENCH_REPO } from './upstream-files.js';
export { TAU_FETCH_COMMAND } from './install.js';
// tau-run: the episode (env, user simulator, tools), the agents and the suite
export { TauEnv, type TauEnvOptions, type TauObservation, type UserCallContext } from './tau-env.js';
export { tauTools } from './tau-tools.js';
export { tauScorer, isTauSuccess } from './tau-scorer.js';
export {
  tauSuite,
  tauBenchTasks,
  tauSuiteName,
  tauAgentFactory,
  isTauAgentKind,
  TAU_AGENTS,
  type TauAgentKind,
  type TauSuiteOptions,
  type TauAgentFactoryOptions,
  type TauAgentFactoryContext,
  type TauAgentBuilder,
} from './tau-suite.js';
export { TauAgent, TAU_MAX_STEPS, type TauAgentOptions } from './agents/tau-agent.js';
export { TauToolCallingAgent } from './agents/tool-calling-agent.js';
export { TauReactAgent, type TauReactAgentOptions } from './agents/react-agent.js';
export { TauGroundTruthAgent } from './agents/ground-truth-agent.js';
export { createUserSimulator, isUserStrategy, USER_STRATEGIES, type UserStrategy } from './user/user-strategy.js';

// Not yet stable (docs/api.md, "Stability"): the port's internals. The user simulators, their prompts and the
// agents' prompts and parsers follow the Python original and change with the port; choose them by name through
// `createUserSimulator`, `tauAgentFactory` and `tauSuite` above.
/** @experimental A tau-bench port internal. */
export { USER_PURPOSE } from './tau-env.js';
/** @experimental A tau-bench port internal. */
export { nativeRawArgs, tauEnvOf, type TauRawArgs } from './tau-tools.js';
/** @experimental A tau-bench port internal. */
export { tauToolCallingParser } from './agents/tool-calling-agent.js';
/** @experimental A tau-bench port internal. */
export { tauReactParser } from './agents/react-agent.js';
/** @experimental A tau-bench port internal. */
export { GROUND_TRUTH_CLOSING } from './agents/ground-truth-agent.js';
/** @experimental A tau-bench port internal. */
export { REACT_INSTRUCTION, ACT_INSTRUCTION } from './agents/react-prompts.js';
/** @experimental A tau-bench port internal. */
export type { UserSimulator, UserTurn, AskUserModel } from './user/user-simulator.js';
/** @experimental A tau-bench port internal. */
export { LlmUser } from './user/llm-user.js';
/** @experimental A tau-bench port internal. */
export { ReactUser, parseReactUserReply } from './user/react-user.js';
/** @experimental A tau-bench port internal. */
export { VerifyUser } from './user/verify-user.js';
/** @experimental A tau-bench port internal. */
export { ReflectionUser } from './user/reflection-user.js';
/** @experimental A tau-bench port internal. */
export { ScriptedUser } from './user/scripted-user.js';
/** @experimental A tau-bench port internal. */
export { supervisorTranscript, verifyReply, reflectOnReply } from './user/supervisor.js';
/** @experimental A tau-bench port internal. */
export {
  USER_GREETING,
  STOP_TOKEN,
  llmUserSystemPrompt,
  reactUserSystemPrompt,
  verifyPrompt,
  reflectPrompt,
} from './user/user-prompts.js';

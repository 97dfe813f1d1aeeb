/**
 * Running untrusted programs: bubblewrap sandbox command lines, kernel limits, and a process runner with its own group,
 * timeout and output cap.
 */
export {
  Sandbox,
  DEFAULT_LIMITS,
  checkedLimits,
  type SandboxMode,
  type SandboxOptions,
  type SandboxedCommand,
} from './sandbox.js';
export { bwrapArgv, limitArgv, SYSTEM_DIRS, type BwrapSpec, type SandboxLimits } from './bwrap-argv.js';
export { probeBwrap, findBwrap, type BwrapProbe } from './bwrap-probe.js';
export {
  SkillsSandboxExecutor,
  sandboxHint,
  type SkillsSandboxOptions,
  type SkillScriptResult,
  type SandboxInfo,
} from './skills-sandbox-executor.js';
export { hasPrlimit } from './prlimit-probe.js';
export {
  runProcess,
  runProcessBytes,
  killGroup,
  LINGER_NOTE,
  type RunProcessOptions,
  type ProcessBytes,
} from './run-process.js';

/** Envs: a host workspace with a real path jail, an in-memory file tree, a git repository checkout, a docker container. */
import '../core/zod-version.js'; // first: a zod older than 4 stops here with the fix, not deep inside another module
export { HostEnv, type HostEnvOptions } from './host-env.js';
export { RepoEnv, type RepoEnvOptions, type RepoOps, type RepoDiff, type RepoFileChange } from './repo-env.js';
export { DockerEnv, type DockerEnvOptions } from './docker-env.js';
export { DockerFileOps, type DockerTarget } from './docker-file-ops.js';
export { DockerProcessOps, type DockerProcessSettings } from './docker-process-ops.js';
export { DockerCli, DOCKER_CLI_ENV } from './docker-cli.js';
export { plumbingEnv, PLUMBING_OUTPUT_CAP } from './plumbing-env.js';
export { MemoryEnv, type MemoryEnvOptions } from './memory-env.js';
export { HostFileOps } from './host-file-ops.js';
export { HostProcessOps, type HostProcessSettings } from './host-process-ops.js';
export { shellCommands } from './shell/shell-command-reader.js';
export {
  Sandbox,
  SkillsSandboxExecutor,
  sandboxHint,
  DEFAULT_LIMITS,
  bwrapArgv,
  limitArgv,
  probeBwrap,
  findBwrap,
  runProcess,
  runProcessBytes,
  killGroup,
  LINGER_NOTE,
  SYSTEM_DIRS,
} from './sandbox/index.js';
export type {
  SkillsSandboxOptions,
  SkillScriptResult,
  SandboxInfo,
  SandboxMode,
  SandboxOptions,
  SandboxedCommand,
  BwrapSpec,
  SandboxLimits,
  BwrapProbe,
  RunProcessOptions,
  ProcessBytes,
} from './sandbox/index.js';
export { MemoryFileOps } from './memory-file-ops.js';
export { MountedFileOps } from './mounted-file-ops.js';
export { PathJail, checkPathInput, isInside, resolveLexical } from './path-jail.js';
export { compileGlob, type GlobMatcher } from './glob-pattern.js';
export { walkGlob, type WalkEntry, type ListFolder } from './glob-walk.js';

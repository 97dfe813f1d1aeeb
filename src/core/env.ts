import type { ShellCommand } from './shell-command.js';
import type { Task } from './task.js';

/** Op groups an env may offer and tools may require. */
export type OpGroup = 'file' | 'process' | 'mount' | (string & {});

/** Metadata of one entry in a file tree. */
export interface FileStat {
  path: string;
  type: 'file' | 'directory' | 'symlink';
  size: number;
  mtimeMs: number;
}

/** File operations, with paths relative to the env's workspace root (or absolute inside it). */
export interface FileOps {
  readonly root: string;
  readText(path: string): Promise<string>;
  readBytes(path: string): Promise<Uint8Array>;
  writeText(path: string, content: string): Promise<void>;
  list(path: string): Promise<FileStat[]>;
  stat(path: string): Promise<FileStat | undefined>;
  glob(pattern: string, options?: { cwd?: string; limit?: number }): Promise<string[]>;
  remove(path: string, options?: { recursive?: boolean }): Promise<void>;
  /**
   * Where a path lands: its absolute path with every symlink on it followed, also one that leads out of the
   * workspace (the part that does not exist yet appended as written). Permission rules judge it besides the path
   * as given (docs/permissions.md); an env without symlinks need not have it.
   */
  realPath?(path: string): Promise<string>;
}

/** Result of a process run. */
export interface ProcessResult {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  truncated: boolean;
  durationMs: number;
}

/** Process operations: run a command inside the workspace. */
export interface ProcessOps {
  run(
    command: string,
    options?: {
      cwd?: string;
      timeoutMs?: number;
      maxOutputBytes?: number;
      env?: Record<string, string>;
      signal?: AbortSignal;
      stdin?: string;
    },
  ): Promise<ProcessResult>;
  /**
   * The commands `line` runs, as this env's shell reads it (every simple command at any depth, normalised), for
   * permission rules. Without it a rule over commands cannot see inside a command line and judges it with the most
   * careful rule that could apply.
   */
  commands?(line: string): Promise<readonly ShellCommand[]>;
}

/**
 * Mount operations: make a folder of the host visible inside the env, read-only (the `skill` tool mounts a
 * skill's folder so the run reads it through its own env, sandbox or not).
 */
export interface MountOps {
  /**
   * Makes `hostDir` readable, never writable, through the env's file ops (and processes, where the env has
   * them); returns the path the env sees it at. Mounting the same folder again returns the same path.
   */
  mountReadOnly(hostDir: string): Promise<string>;
}

/**
 * A file an env leaves in the run's trace when the run ends (e.g. the diff of the agent's changes to a repository):
 * written to `<trace>/artifacts/<name>` and listed in the manifest. `name` is a plain file name (letters, digits,
 * `.`, `_`, `-`; not starting with a dot).
 */
export interface EnvArtifact {
  name: string;
  content: string | Uint8Array;
}

/** Which artifact names are accepted: a plain file name, so an env cannot write outside the artifacts folder. */
export const ARTIFACT_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}$/;

/** Known op group types; other groups are `unknown` to the kernel. */
export interface OpGroups {
  file: FileOps;
  process: ProcessOps;
  mount: MountOps;
}

/**
 * The world an agent acts in. All methods but `ops` are optional. Agents change the world through tools,
 * which use the env's op groups; the engine itself only brackets a run with `setup` and `close`.
 *
 * Reset: `setup(task)` runs at the start of every run and brings the world to the task's starting state; a
 * suite gets a fresh env for every trial from its agent factory, so nothing carries over between tasks.
 */
export interface Env {
  readonly name: string;
  /** How the env isolates the commands it runs (`bwrap`, `none`), recorded in the trace manifest; absent when it runs none. */
  readonly sandbox?: string | undefined;
  /** Prepares the world for `task` (creates a workspace, checks out a repository, starts a container). */
  setup?(task: Task): Promise<void> | void;
  /** What the agent sees of the env at the start of a step (passed to `agent.observe`). */
  observe?(): unknown;
  /** The op group, or undefined when this env does not offer it. */
  ops<G extends keyof OpGroups>(group: G): OpGroups[G] | undefined;
  ops(group: string): unknown;
  /** True ends the run with `env_terminal` at the next CHECK_STOP. */
  isTerminal?(): boolean;
  /** Files for the trace, collected when the run ends, before `close` (which may remove what they are made from). */
  artifacts?(): Promise<EnvArtifact[]> | EnvArtifact[];
  /** Releases what `setup` took; called once when the run ends, however it ends. */
  close?(): Promise<void> | void;
  /** Kills every process the env started, now and synchronously (a forced exit cannot wait for `close`). */
  kill?(): void;
}

/** An env with no world: no op groups, never terminal. The default when a run needs none. */
export const nullEnv: Env = {
  name: 'null',
  ops: (() => undefined) as Env['ops'],
};

/**
 * A parent run's env as a child run sees it (a sub-agent, a workflow branch): the same world and op groups, but no
 * setup, reset or close of its own, so the child's end never closes what the parent still uses.
 */
export function borrowEnv(env: Env): Env {
  return {
    name: env.name,
    ops: ((group: string) => env.ops(group)) as Env['ops'],
    ...(env.observe ? { observe: () => env.observe!() } : {}),
    ...(env.isTerminal ? { isTerminal: () => env.isTerminal!() } : {}),
  };
}

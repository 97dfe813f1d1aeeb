import type { Task } from './task.js';

/** Op groups an env may offer and tools may require. */
export type OpGroup = 'file' | 'process' | (string & {});

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
  run(command: string, options?: { cwd?: string; timeoutMs?: number; maxOutputBytes?: number; env?: Record<string, string>; signal?: AbortSignal; stdin?: string }): Promise<ProcessResult>;
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
}

/** The world an agent acts in. All methods but `ops` are optional. */
export interface Env {
  readonly name: string;
  setup?(task: Task): Promise<void> | void;
  reset?(): Promise<void> | void;
  /** What the agent sees of the env at the start of a step (passed to `agent.observe`). */
  observe?(): unknown;
  /** Optional env-level transition for actions the env handles itself (not tools). */
  step?(action: { name: string; args: Record<string, unknown> }): Promise<unknown> | unknown;
  /** The op group, or undefined when this env does not offer it. */
  ops<G extends keyof OpGroups>(group: G): OpGroups[G] | undefined;
  ops(group: string): unknown;
  isTerminal?(): boolean;
  /** Files for the trace, collected when the run ends, before `close` (which may remove what they are made from). */
  artifacts?(): Promise<EnvArtifact[]> | EnvArtifact[];
  close?(): Promise<void> | void;
}

/** An env with no world: no op groups, never terminal. The default when a run needs none. */
export const nullEnv: Env = {
  name: 'null',
  ops: (() => undefined) as Env['ops'],
};

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

/** Known op group types; other groups are `unknown` to the kernel. */
export interface OpGroups {
  file: FileOps;
  process: ProcessOps;
}

/** The world an agent acts in. All methods but `ops` are optional. */
export interface Env {
  readonly name: string;
  /** How the env isolates the commands it runs (`bwrap`, `none`), recorded in the trace manifest; absent when it runs none. */
  readonly sandbox?: string;
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
  close?(): Promise<void> | void;
  /** Kills every process the env started, now and synchronously (a forced exit cannot wait for `close`). */
  kill?(): void;
}

/** An env with no world: no op groups, never terminal. The default when a run needs none. */
export const nullEnv: Env = {
  name: 'null',
  ops: (() => undefined) as Env['ops'],
};

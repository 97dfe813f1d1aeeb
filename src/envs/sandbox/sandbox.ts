import { bwrapArgv, limitArgv, type SandboxLimits } from './bwrap-argv.js';
import { probeBwrap, type BwrapProbe } from './bwrap-probe.js';
import { hasPrlimit } from './prlimit-probe.js';

/** `auto`: bubblewrap when it works here, else none (with a note); `bwrap`: bubblewrap or an error; `none`: no sandbox. */
export type SandboxMode = 'auto' | 'bwrap' | 'none';

/** Options of a {@link Sandbox}. */
export interface SandboxOptions {
  /** Default `auto`. */
  mode?: SandboxMode;
  /** Let commands use the host's network (default false: only a loopback of their own). */
  network?: boolean;
  /** More host folders commands may read (the system folders always are readable). */
  readOnly?: string[];
  /** Kernel limits on each command (defaults: 512 processes, 1 GiB per file, 600 s of CPU and 2 GiB of memory per process). */
  limits?: Partial<SandboxLimits>;
  /** The bubblewrap program (default `bwrap`, looked up on PATH). */
  bwrap?: string;
}

/** A program and its arguments, ready for {@link runProcess}. */
export interface SandboxedCommand {
  file: string;
  args: string[];
}

export const DEFAULT_LIMITS: SandboxLimits = {
  processes: 512,
  fileSizeBytes: 1024 ** 3,
  cpuSeconds: 600,
  memoryBytes: 2 * 1024 ** 3,
};

/**
 * Turns a command line into one that runs inside a bubblewrap sandbox (see {@link bwrapArgv} for what the
 * sandbox allows) under kernel limits (see {@link limitArgv}), or, where there is no bubblewrap, into the
 * same command under the limits that do not need a user namespace (file size, CPU time).
 *
 * Whether bubblewrap works is found out once per Sandbox, on first use (`kind`), by running it: share one
 * instance between envs (and skill runners) to probe once. Pair it with {@link runProcess}, which gives the
 * command its own process group, a cleared environment, a timeout and an output cap.
 */
export class Sandbox {
  readonly mode: SandboxMode;
  readonly network: boolean;
  readonly readOnly: readonly string[];
  readonly limits: SandboxLimits;
  private readonly bwrap: string;
  private probed: { bwrap: BwrapProbe; prlimit: boolean } | undefined;

  constructor(options: SandboxOptions = {}) {
    this.mode = options.mode ?? 'auto';
    if (!['auto', 'bwrap', 'none'].includes(this.mode))
      throw new Error(`sandbox mode must be auto, bwrap or none, got ${JSON.stringify(options.mode)}`);
    this.network = options.network ?? false;
    this.readOnly = options.readOnly ?? [];
    this.limits = checkedLimits(options.limits);
    this.bwrap = options.bwrap ?? 'bwrap';
  }

  /**
   * `bwrap` or `none`: what commands actually run in (recorded in the trace manifest as `env.sandbox`).
   * Probes on first access; in mode `bwrap` a machine without a working bubblewrap is an Error here.
   */
  get kind(): 'bwrap' | 'none' {
    if (this.mode === 'none') return 'none';
    const { bwrap } = this.probe();
    if (bwrap.available) return 'bwrap';
    if (this.mode === 'bwrap') throw new Error(`sandbox mode "bwrap" was asked for, but ${bwrap.reason}`);
    return 'none';
  }

  /** Why commands run without a sandbox when the mode is `auto` and bubblewrap does not work; else undefined. */
  get note(): string | undefined {
    if (this.mode !== 'auto' || this.kind === 'bwrap') return undefined;
    const { bwrap } = this.probe();
    return (
      `commands run without a sandbox: ${bwrap.available ? '' : bwrap.reason}. They can read ` +
      `and write whatever this user can, and reach the network.`
    );
  }

  /** True when the limits are applied (the `prlimit` program from util-linux exists). */
  get limited(): boolean {
    return this.probe().prlimit;
  }

  /**
   * The command line that runs `argv` (program first) starting in `cwd`, able to write only in `writable`
   * (when sandboxed).
   */
  command(argv: readonly string[], place: { cwd: string; writable: readonly string[] }): SandboxedCommand {
    const sandboxed = this.kind === 'bwrap';
    const limits = this.limited ? ['prlimit', ...limitArgv(this.limits, sandboxed)] : [];
    const inner = [...limits, ...argv];
    if (!sandboxed) return { file: inner[0], args: inner.slice(1) };
    return {
      file: this.bwrap,
      args: [
        ...bwrapArgv({
          cwd: place.cwd,
          writable: place.writable,
          readOnly: this.readOnly,
          network: this.network,
          etc: 'all',
        }),
        '--',
        ...inner,
      ],
    };
  }

  private probe(): { bwrap: BwrapProbe; prlimit: boolean } {
    this.probed ??= {
      bwrap: this.mode === 'none' ? { available: false, reason: 'the sandbox mode is "none"' } : probeBwrap(this.bwrap),
      prlimit: hasPrlimit(),
    };
    return this.probed;
  }
}

/** {@link DEFAULT_LIMITS} with `limits` over them, each checked to be a positive integer. */
export function checkedLimits(limits: Partial<SandboxLimits> = {}): SandboxLimits {
  const merged = { ...DEFAULT_LIMITS, ...limits };
  for (const [k, v] of Object.entries(merged)) {
    if (!Number.isInteger(v) || v <= 0) throw new Error(`sandbox limit ${k} must be a positive integer, got ${v}`);
  }
  return merged;
}

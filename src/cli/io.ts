import type { Command } from 'commander';

/** Where a CLI invocation writes and which folder it resolves paths against. Tests pass their own. */
export interface CliIO {
  out(text: string): void;
  err(text: string): void;
  /** Folder relative paths are resolved against. */
  cwd: string;
  /** Environment (API keys for providers, CI). */
  env: Record<string, string | undefined>;
  /** Exit code a command sets when it finished but failed its check (e.g. replay decisions differ). */
  exitCode: number;
}

/** The IO of the current process. */
export function processIO(): CliIO {
  return {
    out: (t) => process.stdout.write(t),
    err: (t) => process.stderr.write(t),
    cwd: process.cwd(),
    env: process.env,
    exitCode: 0,
  };
}

/** A program (root command) that carries its IO, so commands stay free of globals. */
export interface ProgramWithIO extends Command {
  qitosIO?: CliIO;
}

/** The IO of the program a command belongs to (walks up to the root). */
export function ioOf(cmd: Command): CliIO {
  let c: Command | null = cmd;
  while (c) {
    const io = (c as ProgramWithIO).qitosIO;
    if (io) return io;
    c = c.parent;
  }
  throw new Error(`command "${cmd.name()}" is not attached to a qitos program`);
}

// Its declarations name Node's types: the reference lets a consumer whose tsconfig lacks `types: ["node"]` find them.
/// <reference types="node" preserve="true" />
import type { Readable } from 'node:stream';
import type { Command } from 'commander';
import type { AppIO } from '../app/app-io.js';

/** Where a CLI invocation writes and which folder it resolves paths against. Tests pass their own. */
export interface CliIO extends AppIO {
  /** Exit code a command sets when it finished but failed its check (e.g. replay decisions differ). */
  exitCode: number;
  /** The terminal's input when there is one (`qitos run` asks permission questions there); absent in tests and pipes. */
  tty?: Readable;
  /** The command's input, terminal or pipe (`qitos debug` reads its commands there). */
  stdin?: Readable;
}

/** The IO of the current process. */
export function processIO(): CliIO {
  return {
    out: (t) => process.stdout.write(t),
    err: (t) => process.stderr.write(t),
    cwd: process.cwd(),
    env: process.env,
    exitCode: 0,
    ...(process.stdin.isTTY ? { tty: process.stdin } : {}),
    stdin: process.stdin,
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

import { CommanderError } from 'commander';
import { QitosError } from '../core/index.js';
import { TraceError } from '../trace/index.js';
import { CliError } from './cli-error.js';
import { processIO, type CliIO } from './io.js';
import { createProgram } from './program.js';

/**
 * Runs the `qitos` command line with `argv` (the arguments after the command name) and returns the exit
 * code. User errors print one line (`qitos: <reason>`) to stderr, and a JSON `{ "error" }` to stdout when
 * `--json` was given (usage errors from commander too); unexpected errors print one line too, with the stack
 * when QITOS_DEBUG is set.
 */
export async function main(argv: string[], io: CliIO = processIO()): Promise<number> {
  const program = createProgram(io);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return io.exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      // commander already printed its message (or the help) to stderr; a usage error still owes --json its object.
      if (err.exitCode !== 0 && argv.includes('--json')) io.out(JSON.stringify({ error: err.message.replace(/^error: /, '') }) + '\n');
      return err.exitCode;
    }
    const user = err instanceof CliError || err instanceof TraceError || err instanceof QitosError;
    const message = err instanceof Error ? err.message : String(err);
    const oneLine = message.split('\n')[0];
    io.err(`qitos: ${user ? '' : 'internal error: '}${oneLine}\n`);
    if (!user && io.env.QITOS_DEBUG && err instanceof Error && err.stack) io.err(err.stack + '\n');
    if (argv.includes('--json')) io.out(JSON.stringify({ error: message }) + '\n');
    return err instanceof CliError ? err.exitCode : 1;
  }
}

import { CommanderError } from 'commander';
import { QitosError } from '../core/errors.js';
import { AppError } from '../app/app-error.js';
import { EXIT_BAD_INPUT, EXIT_FAILED } from '../app/exit-codes.js';
import { processIO, type CliIO } from './io.js';
import { zodProblem } from './peer-dependencies.js';
import { createProgram } from './program.js';
import { terminalBlock, terminalText } from '../app/terminal-text.js';
import { commandRedactor, redactIO } from '../app/run-redactor.js';

/**
 * Runs the `qitos` command line with `argv` (the arguments after the command name) and returns the exit
 * code: 0 done, 1 the command ran and failed (a run that failed, a replay that differs) or an internal error,
 * 2 bad input (usage, a missing or broken file or module, a missing peer dependency), 130 interrupted.
 * Every error prints one line (`qitos: <reason>`) to stderr, and a JSON `{ "error" }` to stdout when `--json`
 * was given (usage errors from commander too); QITOS_DEBUG=1 adds the stack.
 */
export async function main(argv: string[], io: CliIO = processIO()): Promise<number> {
  // No secret of the environment (API keys, tokens) nor an MCP server's expanded ${VAR} is printed or traced.
  if (!io.redactor) redactIO(io, commandRedactor(io.env));
  const program = createProgram(io);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return io.exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      // commander already printed its message (or the help) to stderr; a usage error still owes --json its object.
      if (err.exitCode !== 0 && argv.includes('--json'))
        io.out(JSON.stringify({ error: err.message.replace(/^error: /, '') }) + '\n');
      return err.exitCode === 0 ? 0 : EXIT_BAD_INPUT;
    }
    const failure = describeFailure(err);
    // Messages quote what we did not write (entry names, server output, trace values): escaped for the terminal.
    io.err(`qitos: ${terminalText(failure.message)}\n`);
    if (AppError.isInstance(err) && err.detail)
      io.err(terminalBlock(err.detail.endsWith('\n') ? err.detail : `${err.detail}\n`));
    if (io.env.QITOS_DEBUG) io.err(stackOf(err));
    if (argv.includes('--json')) io.out(JSON.stringify({ error: failure.message }) + '\n');
    return failure.exitCode;
  }
}

/**
 * The one line and exit code of an error that ended a command. Errors are recognised with `isInstance`, so an
 * error made by another installed copy of qitos-ts (a project's own, which its agent module imports) counts too.
 */
function describeFailure(err: unknown): { message: string; exitCode: number } {
  const firstLine = (err instanceof Error ? err.message : String(err)).split('\n')[0];
  if (AppError.isInstance(err)) return { message: firstLine, exitCode: err.exitCode };
  if (QitosError.isInstance(err)) return { message: firstLine, exitCode: EXIT_BAD_INPUT };
  // A command's modules failed to load or crashed: first rule out the peer dependency the user installs.
  const peer = zodProblem();
  if (peer) return { message: peer, exitCode: EXIT_BAD_INPUT };
  return { message: `internal error: ${firstLine}`, exitCode: EXIT_FAILED };
}

/** The stack of an error and of its causes, for QITOS_DEBUG. */
function stackOf(err: unknown): string {
  const out: string[] = [];
  for (let e: unknown = err, depth = 0; e !== undefined && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    out.push((depth ? 'caused by: ' : '') + (e instanceof Error ? (e.stack ?? e.message) : String(e)));
    if (!(e instanceof Error)) break;
  }
  return out.join('\n') + '\n';
}

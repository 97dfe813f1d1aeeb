import { Command } from 'commander';
import type { CliIO, ProgramWithIO } from './io.js';
import { registerInspectCommand } from './commands/inspect.js';
import { registerRunsCommand } from './commands/runs.js';
import { registerRunCommand } from './commands/run.js';
import { registerBenchCommand } from './commands/bench.js';
import { registerReplayCommand } from './commands/replay.js';
import { registerDiffCommand } from './commands/diff.js';
import { registerForkCommand } from './commands/fork.js';
import { registerViewCommand } from './commands/view.js';
import { registerSkillsCommand } from './commands/skills.js';
import { registerMcpCommand } from './commands/mcp.js';

/**
 * The `qitos` program. Each command lives in `commands/<name>.ts` and exports
 * `register<Name>Command(program)`; a command reaches its IO with `ioOf(this)` (see io.ts), throws
 * `CliError` for user errors (one line, no stack) and sets `ioOf(this).exitCode` when it finished but failed.
 */
export function createProgram(io: CliIO): Command {
  const program: ProgramWithIO = new Command('qitos');
  program.qitosIO = io;
  program
    .description('qitos-ts: run agents, and replay, diff, view and fork their traces')
    .version('0.1.0')
    .showHelpAfterError('(run with --help for usage)');

  registerRunCommand(program);
  registerBenchCommand(program);
  registerReplayCommand(program);
  registerDiffCommand(program);
  registerViewCommand(program);
  registerForkCommand(program);
  registerRunsCommand(program);
  registerInspectCommand(program);
  registerSkillsCommand(program);
  registerMcpCommand(program);

  // Commands added with addCommand do not inherit settings: apply output and exit handling to every one.
  applyAll(program, (c) =>
    c
      .exitOverride()
      .configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s), outputError: (s, write) => write(s) }),
  );
  return program;
}

function applyAll(cmd: Command, fn: (c: Command) => void): void {
  fn(cmd);
  for (const c of cmd.commands) applyAll(c, fn);
}

import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import type { CliIO, ProgramWithIO } from './io.js';
import { registerInitCommand } from './commands/init.js';
import { registerInspectCommand } from './commands/inspect.js';
import { registerRunsCommand } from './commands/runs.js';
import { registerRunCommand } from './commands/run.js';
import { registerBenchCommand } from './commands/bench.js';
import { registerReplayCommand } from './commands/replay.js';
import { registerDiffCommand } from './commands/diff.js';
import { registerForkCommand } from './commands/fork.js';
import { registerDebugCommand } from './commands/debug.js';
import { registerViewCommand } from './commands/view.js';
import { registerSkillsCommand } from './commands/skills.js';
import { registerMcpCommand } from './commands/mcp.js';
import { registerServeCommand } from './commands/serve.js';
import { registerWorkflowCommand } from './commands/workflow.js';
import { registerTauBenchCommand } from './commands/tau-bench.js';
import { registerBoardCommand } from './commands/board.js';
import { registerTraceCommand } from './commands/trace.js';

/**
 * The `qitos` program. Each command is declared in `commands/<name>.ts` (`register<Name>Command(program)`: its
 * arguments, options and help) and does its work in `commands/<name>-action.ts`, which the declaration imports
 * only when the command runs: `qitos --help` and a command load nothing of what the other commands need. An
 * action reaches its IO with `ioOf(this)` (see io.ts), throws `AppError` for bad input (one line, exit 2) and sets
 * `io.exitCode` when it finished but failed.
 */
export function createProgram(io: CliIO): Command {
  const program: ProgramWithIO = new Command('qitos');
  program.qitosIO = io;
  program
    .description('qitos-ts: run agents, and replay, diff, view and fork their traces')
    .version(packageVersion())
    .showHelpAfterError('(run with --help for usage)');

  registerInitCommand(program);
  registerRunCommand(program);
  registerBenchCommand(program);
  registerReplayCommand(program);
  registerDiffCommand(program);
  registerViewCommand(program);
  registerForkCommand(program);
  registerDebugCommand(program);
  registerRunsCommand(program);
  registerInspectCommand(program);
  registerSkillsCommand(program);
  registerMcpCommand(program);
  registerServeCommand(program);
  registerWorkflowCommand(program);
  registerTauBenchCommand(program);
  registerBoardCommand(program);
  registerTraceCommand(program);

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

/** The version in package.json (two folders up from this file, in src/ and in dist/ alike). */
function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string })
    .version;
}

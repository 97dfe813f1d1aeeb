import type { Command } from 'commander';
import { ioOf } from '../io.js';
import type { ForkFlags } from './command-flags.js';
import { nonNegativeInt, positiveInt, repeatable, SET_HELP } from '../option-parsers.js';

/** `qitos fork <trace> --at <step>`: a new run from the recorded state after step k. */
export function registerForkCommand(program: Command): void {
  program
    .command('fork')
    .description('start a new run from the recorded state after step k, e.g. with another model, prompt or policy')
    .argument('<trace>', 'trace folder of the run to fork')
    .requiredOption('--at <step>', 'fork after this step (0 = from the initial state)', nonNegativeInt)
    .option(
      '--branch <j>',
      'run step --at again, acting on candidate j (from 0) of its branch decision instead',
      nonNegativeInt,
    )
    .option('-m, --model <provider:model>', "model of the new run (default: the recorded config's)")
    .option('-a, --agent <module>', 'your agent module instead of the one the trace records')
    .option('--export <name>', 'export of --agent to use')
    .option(
      '--allow-changed-agent',
      'import the recorded agent module although it changed since the run (its sha-256 differs from the recorded one)',
    )
    .option(
      '--trust-trace',
      'use what a trace from elsewhere names (agent module, model options, MCP servers, workspace), after printing it',
    )
    .option('-c, --config <file.yaml>', 'config merged over the recorded one (flags override both)')
    .option('--set <key=value>', SET_HELP, repeatable, [])
    .option('-t, --task <text>', 'replace the task objective')
    .option('--trace-dir <dir>', 'folder for the new trace')
    .option('--max-steps <n>', 'step budget (counts the steps before the fork too)', positiveInt)
    .option('-w, --workspace <dir>', "workspace folder the agent's file and shell tools work in (a jailed host env)")
    .option(
      '--permission <file>',
      "permission rules (YAML or JSON, opencode's shape) replacing the config's permission: section, as qitos run",
    )
    .option(
      '--auto',
      'approve every call a permission rule would ask about (deny rules still refuse); without ' +
        'it a terminal asks, and with no terminal an ask is refused',
    )
    .option('-q, --quiet', 'no live view of the steps')
    .option('--json', 'print the result as JSON')
    .addHelpText(
      'after',
      '\nExample:\n  $ qitos fork traces/20250101T120000-abc123 --at 3 --model ' +
        'anthropic:claude-sonnet-4-5\n  $ qitos fork traces/20250101T120000-abc123 --at 0 --config ' +
        'other-prompt.yaml\n  $ qitos fork traces/20250101T120000-abc123 --at 4 --branch 2     ' +
        '(step 4 again, on its candidate 2)\n',
    )
    .action(async function (this: Command, path: string, flags: ForkFlags) {
      const { forkAction } = await import('./fork-action.js');
      await forkAction(ioOf(this), path, flags);
    });
}

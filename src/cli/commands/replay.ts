import type { Command } from 'commander';
import { ioOf } from '../io.js';
import type { ReplayFlags } from './command-flags.js';

/** `qitos replay <trace>`: re-runs a recorded run from its recorded model outputs and checks the decisions. */
export function registerReplayCommand(program: Command): void {
  program
    .command('replay')
    .description(
      "re-run a recorded run (an agent's or a workflow's) from its recorded model outputs (and " +
        'tool results) and check that every decision is the same',
    )
    .argument('<trace>', 'trace folder of the run to replay')
    .option('--live-tools', 'execute tool calls again instead of serving the recorded results')
    .option(
      '--tools <module>',
      'a workflow run: the module exporting its tools, for --live-tools (as `qitos workflow run --tools`)',
    )
    .option('-a, --agent <module>', 'your agent module instead of the one the trace records')
    .option('--export <name>', 'export of --agent to use')
    .option('-w, --workspace <dir>', 'workspace folder instead of the recorded env (a jailed host env)')
    .option(
      '--allow-changed-agent',
      'import the recorded agent module although it changed since the run (its sha-256 differs from the recorded one)',
    )
    .option(
      '--trust-trace',
      'use what a trace from elsewhere names (agent module, model options, MCP servers, workspace; --live-tools), after printing it',
    )
    .option(
      '--permission <file>',
      'permission rules to replay under instead of the recorded ones (a changed rule set shows as drift)',
    )
    .option('--allow-drift', 'go on when a request differs from the recording (the differences are still reported)')
    .option('--trace-dir <dir>', 'folder for the replay trace (default: the recorded config, else traces)')
    .option('-q, --quiet', 'no live view of the steps')
    .option('--json', 'print the outcome as JSON')
    .addHelpText(
      'after',
      '\nExit code 0 only when every decision matched the recording.\n\nExample:\n  $ qitos ' +
        'replay traces/20250101T120000-abc123\n  $ qitos replay traces/20250101T120000-abc123 ' +
        '--allow-drift --json\n',
    )
    .action(async function (this: Command, path: string, flags: ReplayFlags) {
      const { replayAction } = await import('./replay-action.js');
      await replayAction(ioOf(this), path, flags);
    });
}

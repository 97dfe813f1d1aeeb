import type { Command } from 'commander';
import { ioOf } from '../io.js';
import type { DebugFlags } from './command-flags.js';
import { positiveInt, repeatable, SET_HELP } from '../option-parsers.js';

/** `qitos debug <agent> --task …` or `qitos debug <trace>`: a run (live, or a recorded one through replay) under the step debugger. */
export function registerDebugCommand(program: Command): void {
  program
    .command('debug')
    .description(
      'run an agent (or replay a recorded run) under a step debugger: breakpoints, step, next, ' +
        'until, show, edit the decision, skip a call, stop',
    )
    .argument('<agent-or-trace>', 'an agent module (.ts or .js, with --task) or the trace folder of a recorded run')
    .option('-t, --task <text>', 'the task objective (a live run)')
    .option(
      '-b, --break <spec>',
      'a breakpoint to start with: a phase, "step <n> [phase]", "tool <name>" or "expr <expression>" (repeatable)',
      repeatable,
      [],
    )
    .option('-m, --model <provider:model>', 'model of a live run, e.g. scripted:replies.json')
    .option('-c, --config <file.yaml>', 'config file (flags override it)')
    .option('--set <key=value>', SET_HELP, repeatable, [])
    .option('--trace-dir <dir>', 'folder for the trace of the debugged run (default: traces)')
    .option('--max-steps <n>', 'step budget', positiveInt)
    .option('-w, --workspace <dir>', "workspace folder the agent's file and shell tools work in (a jailed host env)")
    .option('--export <name>', 'export of the agent class')
    .option('-a, --agent <module>', 'a recorded run: your agent module instead of the one the trace records')
    .option('--allow-changed-agent', 'a recorded run: import the recorded agent module although it changed since')
    .option('--trust-trace', 'a recorded run from elsewhere: use what it names, after printing it')
    .option('-q, --quiet', 'no live view of the steps')
    .addHelpText(
      'after',
      '\nThe run stops before step 1; type help at the (qdb) prompt. Commands are read from the ' +
        'terminal or from a\npipe (a scripted session); at the end of the input the run goes on ' +
        'without stopping.\n\nExample:\n  $ qitos debug examples/calculator-agent.ts --task "What ' +
        'is 17 * 23?" --model openai:gpt-4o-mini -b "tool calc"\n  $ qitos debug ' +
        'traces/20250101T120000-abc123 -b "step 3 act"\n  $ printf "until 2 act\\nshow ' +
        'decision\\nstop\\n" | qitos debug traces/20250101T120000-abc123\n',
    )
    .action(async function (this: Command, target: string, flags: DebugFlags) {
      const { debugAction } = await import('./debug-action.js');
      await debugAction(ioOf(this), target, flags);
    });
}

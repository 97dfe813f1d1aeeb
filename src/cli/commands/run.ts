import type { Command } from 'commander';
import { ioOf } from '../io.js';
import type { RunFlags } from './command-flags.js';
import { positiveInt, promptArg, repeatable, SET_HELP } from '../option-parsers.js';
import { withOtelOptions } from '../otel-options.js';

/** `qitos run <agent-module> --task "…"`: runs an agent with a live view and writes a trace. */
export function registerRunCommand(program: Command): void {
  withOtelOptions(
    program
      .command('run')
      .description('run an agent module on a task, with a live view of its steps, and write a trace')
      .argument('<agent-module>', '.ts or .js file exporting an AgentModule subclass')
      .option('-t, --task <text>', 'the task objective')
      .option('--mcp-prompt <server/prompt>', 'take the task from a prompt of a configured MCP server')
      .option('--arg <key=value>', 'an argument of the --mcp-prompt prompt (repeatable)', promptArg, {})
      .option('-m, --model <provider:model>', 'model, e.g. openai:gpt-4o-mini or scripted:replies.json')
      .option('-c, --config <file.yaml>', 'config file (flags override it)')
      .option('--mcp <file.yaml>', "MCP servers for this run: the mcp: section of this file joins the config's")
      .option('--set <key=value>', SET_HELP, repeatable, [])
      .option('--trace-dir <dir>', 'folder for traces (default: traces)'),
  )
    .option('--max-steps <n>', 'step budget', positiveInt)
    .option('-w, --workspace <dir>', "workspace folder the agent's file and shell tools work in (a jailed host env)")
    .option(
      '--permission <file>',
      "permission rules (YAML or JSON, opencode's shape) replacing the config's permission: section",
    )
    .option(
      '--auto',
      'approve every call a permission rule would ask about (deny rules still refuse); without ' +
        'it a terminal asks, and with no terminal an ask is refused',
    )
    .option(
      '--export <name>',
      'export of the agent class (default: the default export, else the one AgentModule subclass)',
    )
    .option('--json', 'print the result as JSON instead of the live view')
    .addHelpText(
      'after',
      '\nExample:\n  $ qitos run examples/calculator-agent.ts --task "What is 17 * 23?" --model ' +
        'openai:gpt-4o-mini\n  $ qitos run agent.ts --task "2+3" --model scripted:replies.json ' +
        '--max-steps 5\n  $ qitos run examples/file-editor-agent.ts --task "Fix the typo in ' +
        'README.md" --workspace ./repo --model deepseek:deepseek-chat\n  $ qitos run agent.ts ' +
        '--config qitos.yaml --mcp-prompt docs/summarize --arg topic=billing\n',
    )
    .action(async function (this: Command, modulePath: string, flags: RunFlags) {
      const { runAction } = await import('./run-action.js');
      await runAction(ioOf(this), modulePath, flags);
    });
}

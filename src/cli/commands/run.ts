import type { Command } from 'commander';
import { newId, type TaskInput } from '../../core/index.js';
import { mcpPromptTask, parsePromptRef } from '../../kit/mcp/mcp-prompt-task.js';
import { loadAgent } from '../agent-loader.js';
import { CliError } from '../cli-error.js';
import { effectiveConfig, positiveInt, requireText, type ConfigFlags } from '../effective-config.js';
import { ioOf } from '../io.js';
import { LiveView } from '../live-view.js';
import { buildAgent, buildEngine, configuredModel } from '../run-setup.js';
import { printRunEnd, runExitCode, runSummary } from '../run-report.js';
import { promptArg, withMcp } from '../mcp-setup.js';

interface RunFlags extends ConfigFlags {
  task?: string;
  mcpPrompt?: string;
  arg: Record<string, string>;
  export?: string;
  json?: boolean;
}

/** `qitos run <agent-module> --task "…"`: runs an agent with a live view and writes a trace. */
export function registerRunCommand(program: Command): void {
  program
    .command('run')
    .description('run an agent module on a task, with a live view of its steps, and write a trace')
    .argument('<agent-module>', '.ts or .js file exporting an AgentModule subclass')
    .option('-t, --task <text>', 'the task objective')
    .option('--mcp-prompt <server/prompt>', 'take the task from a prompt of a configured MCP server')
    .option('--arg <key=value>', 'an argument of the --mcp-prompt prompt (repeatable)', promptArg, {})
    .option('-m, --model <provider:model>', 'model, e.g. openai:gpt-4o-mini or scripted:replies.json')
    .option('-c, --config <file.yaml>', 'config file (flags override it)')
    .option('--trace-dir <dir>', 'folder for traces (default: traces)')
    .option('--max-steps <n>', 'step budget', positiveInt)
    .option('-w, --workspace <dir>', 'workspace folder the agent\'s file and shell tools work in (a jailed host env)')
    .option('--export <name>', 'export of the agent class (default: the default export, else the one AgentModule subclass)')
    .option('--json', 'print the result as JSON instead of the live view')
    .addHelpText('after', '\nExample:\n  $ qitos run examples/calculator-agent.ts --task "What is 17 * 23?" --model openai:gpt-4o-mini\n  $ qitos run agent.ts --task "2+3" --model scripted:replies.json --max-steps 5\n  $ qitos run examples/file-editor-agent.ts --task "Fix the typo in README.md" --workspace ./repo --model deepseek:deepseek-chat\n  $ qitos run agent.ts --config qitos.yaml --mcp-prompt docs/summarize --arg topic=billing\n')
    .action(async function (this: Command, modulePath: string, flags: RunFlags) {
      const io = ioOf(this);
      if (flags.mcpPrompt === undefined && flags.task === undefined) throw new CliError('--task is required (or --mcp-prompt <server>/<prompt>)');
      if (flags.mcpPrompt === undefined) requireText(flags.task, '--task');
      else if (flags.task !== undefined) throw new CliError('give either --task or --mcp-prompt, not both');
      if (flags.mcpPrompt === undefined && Object.keys(flags.arg).length) throw new CliError('--arg is for the arguments of an --mcp-prompt prompt');
      const config = await effectiveConfig({}, flags, io.cwd);
      const loaded = await loadAgent(modulePath, flags.export, io.cwd);
      const model = await configuredModel(config, io.cwd, io.env);
      const agent = buildAgent(loaded, config, model);
      const view = new LiveView((line) => io.out(line));
      const hooks = flags.json
        ? []
        : [
            view.hook,
            (e: Parameters<typeof view.hook>[0]) => {
              if (e.type === 'run_start') io.out(`run ${e.runId}  agent ${agent.name}  model ${(model ?? agent.model)?.id ?? '-'}\n`);
            },
          ];
      const result = await withMcp(config, io, async (mcp) => {
        const task = flags.mcpPrompt !== undefined ? await promptTask(mcp, flags.mcpPrompt, flags.arg) : flags.task!;
        const engine = await buildEngine({ agent, loaded, config, cwd: io.cwd, hooks, ...(mcp ? { mcp } : {}) });
        return engine.run(task);
      });
      if (flags.json) io.out(JSON.stringify(runSummary(result), null, 2) + '\n');
      else printRunEnd(io, result);
      io.exitCode = runExitCode(result);
    });
}

/** The task of `--mcp-prompt server/name --arg k=v`. */
async function promptTask(mcp: Parameters<typeof mcpPromptTask>[0] | undefined, ref: string, args: Record<string, string>): Promise<TaskInput> {
  if (!mcp) throw new CliError('--mcp-prompt needs the MCP server in the config (an mcp: section, see docs/mcp.md)');
  try {
    const { server, name } = parsePromptRef(ref);
    return { id: newId('task'), ...(await mcpPromptTask(mcp, server, name, args)) };
  } catch (error) {
    throw new CliError(`--mcp-prompt: ${(error as Error).message.split('\n')[0]}`);
  }
}

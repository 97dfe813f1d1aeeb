import type { Command } from 'commander';
import type { Task } from '../../core/index.js';
import { effectiveConfig, nonNegativeInt, positiveInt, type ConfigFlags } from '../effective-config.js';
import { ioOf } from '../io.js';
import { LiveView } from '../live-view.js';
import { buildAgent, buildEngine, configuredModel } from '../run-setup.js';
import { printRunEnd, runExitCode, runSummary } from '../run-report.js';
import { loadTrace } from '../trace-loader.js';
import { stateAtStep } from '../state-at-step.js';
import { CliError } from '../cli-error.js';
import { loadRecordedAgent, recordedConfig } from '../recorded-run.js';
import { withMcp } from '../mcp-setup.js';

interface ForkFlags extends ConfigFlags {
  at: number;
  task?: string;
  json?: boolean;
  quiet?: boolean;
}

/** `qitos fork <trace> --at <step>`: a new run from the recorded state after step k. */
export function registerForkCommand(program: Command): void {
  program
    .command('fork')
    .description('start a new run from the recorded state after step k, e.g. with another model, prompt or policy')
    .argument('<trace>', 'trace folder of the run to fork')
    .requiredOption('--at <step>', 'fork after this step (0 = from the initial state)', nonNegativeInt)
    .option('-m, --model <provider:model>', 'model of the new run (default: the recorded config\'s)')
    .option('-c, --config <file.yaml>', 'config merged over the recorded one (flags override both)')
    .option('-t, --task <text>', 'replace the task objective')
    .option('--trace-dir <dir>', 'folder for the new trace')
    .option('--max-steps <n>', 'step budget (counts the steps before the fork too)', positiveInt)
    .option('-w, --workspace <dir>', 'workspace folder the agent\'s file and shell tools work in (a jailed host env)')
    .option('-q, --quiet', 'no live view of the steps')
    .option('--json', 'print the result as JSON')
    .addHelpText('after', '\nExample:\n  $ qitos fork traces/20250101T120000-abc123 --at 3 --model anthropic:claude-sonnet-4-5\n  $ qitos fork traces/20250101T120000-abc123 --at 0 --config other-prompt.yaml\n')
    .action(async function (this: Command, path: string, flags: ForkFlags) {
      const io = ioOf(this);
      const parent = await loadTrace(path, io.cwd, (w) => io.err(w + '\n'));
      const m = parent.manifest;
      const state = stateAtStep(parent, flags.at);
      state.stopReason = null;
      state.finalResult = null;
      const task = { ...(m.task as unknown as Task) };
      if (flags.task !== undefined) {
        if (!flags.task.trim()) throw new CliError('--task must not be empty');
        task.objective = flags.task;
        state.task = flags.task;
      }
      const config = await effectiveConfig(recordedConfig(m, parent.dir), flags, io.cwd);
      const loaded = await loadRecordedAgent(m, parent.dir, io.cwd);
      const model = await configuredModel(config, io.cwd, io.env);
      const agent = buildAgent(loaded, config, model);
      // A run built in code (not by `qitos run`) records the model's id but not how to rebuild it.
      if (!model && !agent.model && m.model?.id) {
        throw new CliError(`trace ${parent.dir} ran on model ${m.model.id}, which its recorded config does not name (it was not started with \`qitos run\`); pass --model`);
      }
      const view = new LiveView((line) => io.out(line));
      const result = await withMcp(config, io, async (mcp) => {
        const engine = await buildEngine({
          agent,
          loaded,
          config,
          cwd: io.cwd,
          ...(model ? { model } : {}),
          parent: { runId: m.runId, path: parent.dir, kind: 'fork', atStep: flags.at },
          hooks: flags.json || flags.quiet ? [] : [view.hook],
          ...(mcp ? { mcp } : {}),
        });
        return engine.run(task, { resumeFrom: { state, step: flags.at } });
      });
      if (flags.json) io.out(JSON.stringify({ ...runSummary(result), parent: { runId: m.runId, path: parent.dir, atStep: flags.at } }, null, 2) + '\n');
      else {
        io.out(`fork of ${m.runId} after step ${flags.at}\n`);
        printRunEnd(io, result);
      }
      io.exitCode = runExitCode(result);
    });
}

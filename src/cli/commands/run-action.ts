import { loadAgent } from '../agent-loader.js';
import { effectiveConfig, requireText } from '../effective-config.js';
import type { CliIO } from '../io.js';
import { LiveView } from '../live-view.js';
import { buildAgent, buildEngine, configuredModel } from '../run-setup.js';
import { printRunEnd, runExitCode, runSummary } from '../run-report.js';
import type { RunFlags } from './command-flags.js';

/** What `qitos run` does (loaded when the command runs, so `qitos --help` stays fast). */
export async function runAction(io: CliIO, modulePath: string, flags: RunFlags): Promise<void> {
  const task = requireText(flags.task, '--task');
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
  const engine = await buildEngine({ agent, loaded, config, cwd: io.cwd, hooks, warn: (l) => io.err(l) });
  const result = await engine.run(task);
  if (flags.json) io.out(JSON.stringify(runSummary(result), null, 2) + '\n');
  else printRunEnd(io, result);
  io.exitCode = runExitCode(result);
}

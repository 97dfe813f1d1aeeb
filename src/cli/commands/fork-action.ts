import type { Task } from '../../core/index.js';
import { effectiveConfig } from '../effective-config.js';
import { LiveView } from '../live-view.js';
import { buildAgent, buildEngine, configuredModel } from '../run-setup.js';
import { printRunEnd, runExitCode, runSummary } from '../run-report.js';
import { stateAtStep } from '../../trace/index.js';
import { CliError } from '../cli-error.js';
import { openRecordedRun, recordedRunAgent } from '../recorded-run.js';
import { loadTraceKey } from '../../trace/trace-key.js';
import { withMcp } from '../mcp-setup.js';
import type { CliIO } from '../io.js';
import type { ForkFlags } from './command-flags.js';

/** What `qitos fork` does (loaded when the command runs, so `qitos --help` stays fast). */
export async function forkAction(io: CliIO, path: string, flags: ForkFlags): Promise<void> {
  const run = await openRecordedRun(io, path, flags);
  const { trace: parent, manifest: m } = run;
  const state = stateAtStep(parent, flags.at);
  state.stopReason = null;
  state.finalResult = null;
  const task = { ...(m.task as unknown as Task) };
  if (flags.task !== undefined) {
    if (!flags.task.trim()) throw new CliError('--task must not be empty');
    task.objective = flags.task;
    state.task = flags.task;
  }
  const config = await effectiveConfig(run.config, flags, io.cwd);
  const loaded = await recordedRunAgent(io, run, config, flags);
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
      warn: (l) => io.err(l),
      ...(model ? { model } : {}),
      parent: { runId: m.runId, path: parent.dir, kind: 'fork', atStep: flags.at },
      hooks: flags.json || flags.quiet ? [] : [view.hook],
      ...(mcp ? { mcp } : {}),
      signingKey: await loadTraceKey(io.env, { create: true }),
    });
    return engine.run(task, { resumeFrom: { state, step: flags.at } });
  });
  if (flags.json) io.out(JSON.stringify({ ...runSummary(result), parent: { runId: m.runId, path: parent.dir, atStep: flags.at } }, null, 2) + '\n');
  else {
    io.out(`fork of ${m.runId} after step ${flags.at}\n`);
    printRunEnd(io, result);
  }
  io.exitCode = runExitCode(result);
}

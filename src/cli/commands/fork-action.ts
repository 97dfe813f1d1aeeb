import type { SimpleDecision, StepRecord, Task } from '../../core/index.js';
import { effectiveConfig } from '../../app/effective-config.js';
import { LiveView } from '../live-view.js';
import { buildAgent, buildEngine, configuredModel } from '../../app/build-engine.js';
import { printRunEnd, runExitCode, runSummary } from '../run-report.js';
import { stateAtStep } from '../../trace/index.js';
import { checkRecordedStateVersion, recordedStateVersion } from '../../engine/resumed-state.js';
import { AppError } from '../../app/app-error.js';
import { openRecordedRun, recordedRunAgent } from '../../app/recorded-run.js';
import { loadTraceKey } from '../../trace/trace-key.js';
import { withMcp } from '../../app/mcp-setup.js';
import { isWorkflowManifest } from '../../kit/workflow/index.js';
import type { CliIO } from '../io.js';
import type { ForkFlags } from './command-flags.js';
import { autoApprove } from '../../engine/permission-gate.js';
import { ttyApprover } from '../tty-approver.js';

/** What `qitos fork` does (loaded when the command runs, so `qitos --help` stays fast). */
export async function forkAction(io: CliIO, path: string, flags: ForkFlags): Promise<void> {
  const run = await openRecordedRun(io, path, flags);
  const { trace: parent, manifest: m } = run;
  if (isWorkflowManifest(m)) {
    const file = typeof m.agent.config?.file === 'string' ? m.agent.config.file : '<workflow.yaml>';
    throw new AppError(
      `trace ${parent.dir} is a workflow run: fork it from a node with \`qitos workflow ` +
        `fork ${parent.dir} ${file} --at <node>\` (its tools and models come from you, not the ` +
        `trace)`,
    );
  }
  // --branch: step `at` runs again from the state before it, acting on another of its recorded candidates.
  const candidate =
    flags.branch === undefined ? undefined : branchCandidate(parent.steps, parent.dir, flags.at, flags.branch);
  const after = candidate ? flags.at - 1 : flags.at;
  const state = stateAtStep(parent, after);
  state.stopReason = null;
  state.finalResult = null;
  const task = { ...(m.task as unknown as Task) };
  if (flags.task !== undefined) {
    if (!flags.task.trim()) throw new AppError('--task must not be empty');
    task.objective = flags.task;
    state.task = flags.task;
  }
  const config = await effectiveConfig(run.config, flags, io.cwd);
  const loaded = await recordedRunAgent(io, run, config, flags);
  const model = await configuredModel(config, io.cwd, io.env);
  const agent = buildAgent(loaded, config, model);
  try {
    checkRecordedStateVersion(agent, m);
  } catch (err) {
    throw new AppError(`cannot fork ${parent.dir}: ${(err as Error).message}`);
  }
  // A run built in code (not by `qitos run`) records the model's id but not how to rebuild it.
  if (!model && !agent.model && m.model?.id) {
    throw new AppError(
      `trace ${parent.dir} ran on model ${m.model.id}, which its recorded config does not name ` +
        `(it was not started with \`qitos run\`); pass --model`,
    );
  }
  const endpoint = (model ?? agent.model)?.info?.endpoint;
  if (m.model?.endpoint && endpoint && endpoint !== m.model.endpoint) {
    // The same model id at another address may be another server (a proxy, a local copy): say so before it runs.
    io.err(`warning: the fork's model requests go to ${endpoint}, the parent's went to ${m.model.endpoint}\n`);
  }
  const view = new LiveView((line) => io.out(line));
  // Asks are answered as in `qitos run`: --auto approves, a terminal prompts, else they are refused.
  const onApproval = flags.auto ? autoApprove : io.tty ? ttyApprover(io.tty, (t) => io.err(t)) : undefined;
  const result = await withMcp(config, io, async (mcp) => {
    const engine = await buildEngine({
      agent,
      loaded,
      config,
      cwd: io.cwd,
      warn: (l) => io.err(l),
      ...(model ? { model } : {}),
      parent: { runId: m.runId, path: parent.dir, kind: 'fork', atStep: after },
      hooks: flags.json || flags.quiet ? [] : [view.hook],
      ...(mcp ? { mcp } : {}),
      signingKey: await loadTraceKey(io.env, { create: true }),
      redactor: io.redactor,
      ...(onApproval ? { onApproval } : {}),
    });
    return engine.run(task, {
      resumeFrom: {
        state,
        step: after,
        stateVersion: recordedStateVersion(m),
        ...(candidate ? { decision: candidate } : {}),
      },
    });
  });
  if (flags.json)
    io.out(
      JSON.stringify(
        {
          ...runSummary(result),
          parent: { runId: m.runId, path: parent.dir, atStep: after, ...(candidate ? { branch: flags.branch } : {}) },
        },
        null,
        2,
      ) + '\n',
    );
  else {
    io.out(
      candidate
        ? `fork of ${m.runId}: step ${flags.at} again, on candidate ${flags.branch}\n`
        : `fork of ${m.runId} after step ${flags.at}\n`,
    );
    printRunEnd(io, result);
  }
  io.exitCode = runExitCode(result);
}

/** Candidate `j` of the branch decision recorded at step `at`, or a one-line error saying why there is none. */
function branchCandidate(steps: readonly StepRecord[], dir: string, at: number, j: number): SimpleDecision {
  const rec = steps.find((s) => s.step === at);
  if (!rec) throw new AppError(`trace ${dir} has no step ${at}`);
  if (!rec.branch)
    throw new AppError(
      `step ${at} of ${dir} is not a branch step (it recorded no candidates), so --branch has nothing to choose from`,
    );
  const candidate = rec.branch.candidates[j];
  if (!candidate)
    throw new AppError(
      `step ${at} of ${dir} has candidates 0..${rec.branch.candidates.length - 1}; --branch ${j} is not one of them`,
    );
  return candidate;
}

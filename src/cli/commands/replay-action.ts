import {
  ReplayApprovals,
  ReplayEdits,
  ReplayExecutor,
  ReplayMemory,
  ReplayModel,
  decisionKey,
  stateAtStep,
  stepLabel,
  type ReplayDrift,
} from '../../trace/index.js';
import { canonicalJson } from '../../core/index.js';
import { effectiveConfig } from '../../app/effective-config.js';
import { LiveView } from '../live-view.js';
import { buildAgent, buildEngine } from '../../app/build-engine.js';
import { runExitCode, runSummary } from '../run-report.js';
import { loadTrace } from '../../app/trace-loader.js';
import { preview } from '../../app/text-format.js';
import { openRecordedRun, recordedRunAgent } from '../../app/recorded-run.js';
import { loadTraceKey } from '../../trace/trace-key.js';
import { checkRecordedStateVersion, recordedStateVersion } from '../../engine/resumed-state.js';
import type { PermissionRule, State } from '../../core/index.js';
import type { RunResult } from '../../engine/engine.js';
import type { WorkflowState } from '../../kit/workflow/index.js';
import { AppError } from '../../app/app-error.js';
import { checkTraceTrust, traceUses } from '../../app/trace-trust.js';
import { recordedWorkflow, replayWorkflow } from '../../app/workflow-replay.js';
import { withMcp } from '../../app/mcp-setup.js';
import type { CliIO } from '../io.js';
import type { ReplayFlags } from './command-flags.js';
import { terminalText } from '../../app/terminal-text.js';

/** What `qitos replay` does (loaded when the command runs, so `qitos --help` stays fast). */
export async function replayAction(io: CliIO, path: string, flags: ReplayFlags): Promise<void> {
  const run = await openRecordedRun(io, path, flags);
  const { trace: parent, manifest: m } = run;
  const runConfig = await effectiveConfig(
    run.config,
    { traceDir: flags.traceDir, workspace: flags.workspace, permission: flags.permission },
    io.cwd,
  );
  const model = new ReplayModel(parent.steps, {
    id: m.model?.id ?? 'replay:none',
    allowDrift: flags.allowDrift,
    events: parent.events,
  });
  const executor = flags.liveTools ? undefined : new ReplayExecutor(parent.steps, { allowDrift: flags.allowDrift });
  // The recorded memory reads are served back: the replay sees what the run saw, whatever the notes file holds now.
  const memory = new ReplayMemory(parent.events, { allowDrift: flags.allowDrift });
  // Recorded answers to permission asks are served back: a replay asks no one.
  const approvals = new ReplayApprovals(parent.events);
  // Decisions edited and calls skipped at a breakpoint (`qitos debug`) are made again at the same steps.
  const edits = new ReplayEdits(parent.steps);
  const view = new LiveView((line) => io.out(line));
  const hooks = flags.json || flags.quiet ? [] : [view.hook];
  const link = { runId: m.runId, path: parent.dir, kind: 'replay' as const };
  const signingKey = await loadTraceKey(io.env, { create: true });
  // A fork (or a replay of one) starts after step k: replay it from the same recorded state, not from initState.
  const initial = m.initialState as { step?: unknown } | null;
  const resumeAt = initial && typeof initial.step === 'number' && initial.step > 0 ? initial.step : 0;
  const resumeFrom = resumeAt
    ? { state: stateAtStep(parent, resumeAt), step: resumeAt, stateVersion: recordedStateVersion(m) }
    : undefined;
  const workflow = recordedWorkflow(m, parent.dir);
  let result: RunResult<State>;
  if (workflow) {
    // A workflow run has no agent module: its agent is rebuilt from the workflow the manifest records.
    checkTraceTrust(io, parent.dir, run.untrusted, traceUses(m, run.recorded, runConfig, flags), flags);
    if (flags.agent)
      throw new AppError(
        '--agent: a workflow run is rebuilt from the workflow its trace records; replay it without --agent',
      );
    result = (await replayWorkflow(io, {
      workflow,
      trace: parent,
      config: runConfig,
      model,
      executor,
      toolsModule: flags.tools,
      parent: link,
      hooks,
      signingKey,
      onApproval: approvals.approver,
      ...(resumeFrom ? { resumeFrom: { state: resumeFrom.state as WorkflowState, step: resumeFrom.step } } : {}),
    })) as RunResult<State>;
  } else {
    if (flags.tools)
      throw new AppError(
        '--tools: only a workflow run takes the module of its tools; this trace is a run of ' + m.agent.name,
      );
    const loaded = await recordedRunAgent(io, run, runConfig, flags);
    const agent = buildAgent(loaded, runConfig, model);
    try {
      checkRecordedStateVersion(agent, m);
    } catch (err) {
      throw new AppError(`cannot replay ${parent.dir}: ${(err as Error).message}`);
    }
    // The recorded MCP servers are started again: their tool schemas are part of every request, and --live-tools calls them.
    result = await withMcp(runConfig, io, async (mcp) => {
      const engine = await buildEngine({
        agent,
        loaded,
        config: runConfig,
        cwd: io.cwd,
        warn: (l) => io.err(l),
        model,
        executor,
        ...(memory.recorded ? { memory } : {}),
        parent: link,
        hooks,
        ...(mcp ? { mcp } : {}),
        signingKey,
        redactor: io.redactor,
        onApproval: approvals.approver,
        ...(edits.recorded ? { debug: { breakpoints: edits.breakpoints, onBreak: edits.onBreak() } } : {}),
      });
      return engine.run(m.task as Parameters<typeof engine.run>[0], resumeFrom ? { resumeFrom } : {});
    });
  }
  const replayed = result.traceDir ? (await loadTrace(io, result.traceDir)).steps : [];
  const n = Math.max(parent.steps.length, replayed.length);
  let firstMismatch: { step: number; recorded: string | null; replayed: string | null } | null = null;
  let matchedDecisions = 0;
  for (let i = 0; i < n; i++) {
    const [r, l] = [parent.steps[i], replayed[i]];
    // A step without a decision ended in an error: it matches only when the replay failed the same way.
    const same =
      r &&
      l &&
      r.step === l.step &&
      decisionKey(r.decision) === decisionKey(l.decision) &&
      (r.decision || r.error?.kind === l.error?.kind);
    if (same) matchedDecisions++;
    else if (!firstMismatch)
      firstMismatch = { step: (r ?? l).step, recorded: r ? stepLabel(r) : null, replayed: l ? stepLabel(l) : null };
  }
  const rules = result.traceDir ? (await loadTrace(io, result.traceDir)).manifest.permission : undefined;
  const drifts = [
    ...ruleSetDrift(m.permission, rules),
    ...model.drifts,
    ...(executor?.drifts ?? []),
    ...memory.drifts,
    ...approvals.drifts,
  ].sort((x, y) => x.step - y.step);
  const matched = firstMismatch === null;
  const outcome = {
    matched,
    parent: { runId: m.runId, path: parent.dir, stopReason: m.summary?.stopReason ?? null, steps: parent.steps.length },
    replay: runSummary(result),
    decisions: { recorded: parent.steps.length, replayed: replayed.length, matched: matchedDecisions },
    firstMismatch,
    drifts,
  };
  if (flags.json) io.out(JSON.stringify(outcome, null, 2) + '\n');
  else {
    const lines = [`replay ${result.runId} of ${m.runId}${flags.liveTools ? ' (live tools)' : ''}`];
    for (const d of drifts) {
      lines.push(`drift: ${d.message}`);
      for (const t of d.texts ?? [])
        lines.push(
          ...(t.diff === null
            ? [`  ${t.note}`]
            : t.diff
                .trimEnd()
                .split('\n')
                .map((l) => `  ${l}`)),
        );
    }
    lines.push(
      matched
        ? `decisions: all ${matchedDecisions} match the recording`
        : `decisions: differ from step ${firstMismatch!.step}: ` +
            `recorded ${preview(firstMismatch!.recorded ?? '(none)', 60)} | ` +
            `replay ${preview(firstMismatch!.replayed ?? '(none)', 60)} (${matchedDecisions}/${n} ` +
            `match)`,
      `stop:      ${result.stopReason} ` +
        `(recorded ${m.summary?.stopReason ?? '-'})${result.stopReason === 'unrecoverable_error' ? `: ${result.stopMessage}` : ''}`,
      `trace:     ${result.traceDir}`,
    );
    io.out(lines.map((l) => terminalText(l)).join('\n') + '\n');
  }
  io.exitCode = matched ? 0 : Math.max(1, runExitCode(result));
}

/** The replay's permission rules against the recorded run's: a changed rule set is drift (at step 0: it holds for the whole run). */
function ruleSetDrift(
  recorded: readonly PermissionRule[] | undefined,
  live: readonly PermissionRule[] | undefined,
): ReplayDrift[] {
  if (canonicalJson(recorded ?? null) === canonicalJson(live ?? null)) return [];
  const show = (r: PermissionRule) => `${r.key} ${JSON.stringify(r.pattern)}: ${r.action}`;
  const was = new Set((recorded ?? []).map(show));
  const now = new Set((live ?? []).map(show));
  const added = [...now].filter((r) => !was.has(r));
  const removed = [...was].filter((r) => !now.has(r));
  const what =
    [...added.map((r) => `+ ${r}`), ...removed.map((r) => `- ${r}`)].join(', ') ||
    'the same rules in another order (the last match wins)';
  return [{ step: 0, parts: ['permission'], message: `the permission rules differ from the recorded run's: ${what}` }];
}

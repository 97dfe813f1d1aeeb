import { decisionKey, stepLabel, type ReplayDrift } from '../../trace/index.js';
import { canonicalJson } from '../../core/index.js';
import { LiveView } from '../live-view.js';
import { runExitCode, runSummary } from '../run-report.js';
import { loadTrace } from '../../app/trace-loader.js';
import { preview } from '../../app/text-format.js';
import { replaySession } from '../../app/replay-session.js';
import type { PermissionRule } from '../../core/index.js';
import type { CliIO } from '../io.js';
import type { ReplayFlags } from './command-flags.js';
import { terminalText } from '../../app/terminal-text.js';

/** What `qitos replay` does (loaded when the command runs, so `qitos --help` stays fast). */
export async function replayAction(io: CliIO, path: string, flags: ReplayFlags): Promise<void> {
  const view = new LiveView((line) => io.out(line));
  const session = await replaySession(io, path, {
    mode: 'replay',
    flags,
    settings: { traceDir: flags.traceDir, workspace: flags.workspace, permission: flags.permission },
    hooks: flags.json || flags.quiet ? [] : [view.hook],
  });
  const { trace: parent, manifest: m } = session.recorded;
  const { model, executor, memory, approvals } = session.served!;
  const result = await session.run();
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

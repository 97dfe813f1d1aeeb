import type { Command } from 'commander';
import { ReplayExecutor } from '../../engine/replay-executor.js';
import { ReplayModel } from '../../engine/replay-model.js';
import { mergeConfig } from '../config-loader.js';
import { ioOf } from '../io.js';
import { LiveView } from '../live-view.js';
import { buildAgent, buildEngine } from '../run-setup.js';
import { runExitCode, runSummary } from '../run-report.js';
import { loadTrace } from '../trace-loader.js';
import { decisionKey, stepLabel } from '../trace-diff.js';
import { preview } from '../text-format.js';
import { loadRecordedAgent, recordedConfig } from '../recorded-run.js';
import { stateAtStep } from '../state-at-step.js';
import { withMcp } from '../mcp-setup.js';

interface ReplayFlags {
  liveTools?: boolean;
  allowDrift?: boolean;
  traceDir?: string;
  json?: boolean;
  quiet?: boolean;
}

/** `qitos replay <trace>`: re-runs a recorded run from its recorded model outputs and checks the decisions. */
export function registerReplayCommand(program: Command): void {
  program
    .command('replay')
    .description('re-run a recorded run from its recorded model outputs (and tool results) and check that every decision is the same')
    .argument('<trace>', 'trace folder of the run to replay')
    .option('--live-tools', 'execute tool calls again instead of serving the recorded results')
    .option('--allow-drift', 'go on when a request differs from the recording (the differences are still reported)')
    .option('--trace-dir <dir>', 'folder for the replay trace (default: the recorded config, else traces)')
    .option('-q, --quiet', 'no live view of the steps')
    .option('--json', 'print the outcome as JSON')
    .addHelpText('after', '\nExit code 0 only when every decision matched the recording.\n\nExample:\n  $ qitos replay traces/20250101T120000-abc123\n  $ qitos replay traces/20250101T120000-abc123 --allow-drift --json\n')
    .action(async function (this: Command, path: string, flags: ReplayFlags) {
      const io = ioOf(this);
      const parent = await loadTrace(path, io.cwd, (w) => io.err(w + '\n'));
      const m = parent.manifest;
      const config = recordedConfig(m, parent.dir);
      const runConfig = flags.traceDir ? mergeConfig(config, { trace: { dir: flags.traceDir } }) : config;
      const loaded = await loadRecordedAgent(m, parent.dir, io.cwd);
      const model = new ReplayModel(parent.steps, { id: m.model?.id ?? 'replay:none', allowDrift: flags.allowDrift });
      const agent = buildAgent(loaded, runConfig, model);
      const executor = flags.liveTools ? undefined : new ReplayExecutor(parent.steps, { allowDrift: flags.allowDrift });
      const view = new LiveView((line) => io.out(line));
      // A fork (or a replay of one) starts after step k: replay it from the same recorded state, not from initState.
      const initial = m.initialState as { step?: unknown } | null;
      const resumeAt = initial && typeof initial.step === 'number' && initial.step > 0 ? initial.step : 0;
      // The recorded MCP servers are started again: their tool schemas are part of every request, and --live-tools calls them.
      const result = await withMcp(runConfig, io, async (mcp) => {
        const engine = await buildEngine({
          agent,
          loaded,
          config: runConfig,
          cwd: io.cwd,
          model,
          executor,
          parent: { runId: m.runId, path: parent.dir, kind: 'replay' },
          hooks: flags.json || flags.quiet ? [] : [view.hook],
          ...(mcp ? { mcp } : {}),
        });
        return engine.run(m.task as Parameters<typeof engine.run>[0], resumeAt ? { resumeFrom: { state: stateAtStep(parent, resumeAt), step: resumeAt } } : {});
      });
      const replayed = result.traceDir ? (await loadTrace(result.traceDir, io.cwd, (w) => io.err(w + '\n'))).steps : [];
      const n = Math.max(parent.steps.length, replayed.length);
      let firstMismatch: { step: number; recorded: string | null; replayed: string | null } | null = null;
      let matchedDecisions = 0;
      for (let i = 0; i < n; i++) {
        const [r, l] = [parent.steps[i], replayed[i]];
        // A step without a decision ended in an error: it matches only when the replay failed the same way.
        const same = r && l && r.step === l.step && decisionKey(r.decision) === decisionKey(l.decision) && (r.decision || r.error?.kind === l.error?.kind);
        if (same) matchedDecisions++;
        else if (!firstMismatch) firstMismatch = { step: (r ?? l).step, recorded: r ? stepLabel(r) : null, replayed: l ? stepLabel(l) : null };
      }
      const drifts = [...model.drifts, ...(executor?.drifts ?? [])].sort((x, y) => x.step - y.step);
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
        for (const d of drifts) lines.push(`drift: ${d.message}`);
        lines.push(
          matched
            ? `decisions: all ${matchedDecisions} match the recording`
            : `decisions: differ from step ${firstMismatch!.step}: recorded ${preview(firstMismatch!.recorded ?? '(none)', 60)} | replay ${preview(firstMismatch!.replayed ?? '(none)', 60)} (${matchedDecisions}/${n} match)`,
          `stop:      ${result.stopReason} (recorded ${m.summary?.stopReason ?? '-'})${result.stopReason === 'unrecoverable_error' ? `: ${result.stopMessage}` : ''}`,
          `trace:     ${result.traceDir}`,
        );
        io.out(lines.join('\n') + '\n');
      }
      io.exitCode = matched ? 0 : Math.max(1, runExitCode(result));
    });
}

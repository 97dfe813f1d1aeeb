import type { State } from '../core/index.js';
import { totalTokens } from '../core/index.js';
import type { RunResult } from '../engine/engine.js';
import type { CliIO } from './io.js';
import { fmtCost, preview } from './text-format.js';
import { EXIT_FAILED, EXIT_INTERRUPTED } from './exit-codes.js';

/** What run, replay and fork print (or return as JSON) about a finished run. */
export function runSummary(r: RunResult<State>) {
  return {
    runId: r.runId,
    stopReason: r.stopReason,
    stopMessage: r.stopMessage,
    finalResult: r.finalResult,
    steps: r.steps,
    usage: r.usage,
    traceDir: r.traceDir,
    failures: r.failures,
  };
}

/** Prints the end of a run: stop reason, final result, usage, trace folder. */
export function printRunEnd(io: CliIO, r: RunResult<State>): void {
  io.out(
    [
      `stop:   ${r.stopReason} (${r.stopMessage})`,
      `final:  ${r.finalResult === null ? '-' : preview(r.finalResult, 400)}`,
      `usage:  ${r.steps} steps, ${totalTokens(r.usage.tokens)} tokens, ${r.usage.modelCalls} model calls, cost ${fmtCost(r.usage.cost)}`,
      `trace:  ${r.traceDir ?? '(not traced)'}`,
    ].join('\n') + '\n',
  );
}

/** Exit code of a finished run: 0 unless it failed (1) or was interrupted (130). */
export function runExitCode(r: RunResult<State>): number {
  if (r.stopReason === 'interrupted') return EXIT_INTERRUPTED;
  return r.stopReason === 'unrecoverable_error' || r.stopReason === 'task_invalid' || r.stopReason === 'env_capability_mismatch' ? EXIT_FAILED : 0;
}

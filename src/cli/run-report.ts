import type { Failure, State } from '../core/index.js';
import { totalTokens } from '../core/index.js';
import type { RunResult } from '../engine/engine.js';
import type { CliIO } from './io.js';
import { fmtCost, preview } from '../app/text-format.js';
import { EXIT_FAILED, EXIT_INTERRUPTED } from '../app/exit-codes.js';
import { terminalBlock } from '../app/terminal-text.js';

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

/**
 * Prints the end of a run: stop reason, where a bug in the user's code was thrown (the whole stack with
 * QITOS_DEBUG), final result, usage, trace folder.
 */
export function printRunEnd(io: CliIO, r: RunResult<State>): void {
  io.out(
    [
      `stop:   ${r.stopReason} (${r.stopMessage})`,
      ...thrownAt(r.failures, Boolean(io.env.QITOS_DEBUG)),
      `final:  ${r.finalResult === null ? '-' : preview(r.finalResult, 400)}`,
      `usage:  ${r.steps} steps, ${totalTokens(r.usage.tokens)} tokens, ${r.usage.modelCalls} model calls, cost ${fmtCost(r.usage.cost)}`,
      `trace:  ${r.traceDir ?? '(not traced)'}`,
    ]
      .map((l) => terminalBlock(l))
      .join('\n') + '\n',
  );
}

/** Exit code of a finished run: 0 unless it failed (1) or was interrupted (130). */
export function runExitCode(r: RunResult<State>): number {
  if (r.stopReason === 'interrupted') return EXIT_INTERRUPTED;
  return r.stopReason === 'unrecoverable_error' ||
    r.stopReason === 'task_invalid' ||
    r.stopReason === 'env_capability_mismatch'
    ? EXIT_FAILED
    : 0;
}

/**
 * Lines saying where the fatal bug of a run was thrown: the first frame in the user's code, and the whole
 * stack when `debug`. Nothing for a run that did not end on a bug.
 */
export function thrownAt(failures: readonly Failure[], debug: boolean): string[] {
  const f = failures.find((x) => x.fatal && (x.at !== undefined || x.stack !== undefined));
  if (!f) return [];
  const lines = [
    `at:    ` +
      ` ${f.at ?? '(no frame outside qitos-ts: a bug in qitos-ts itself?)'}${debug || !f.stack ? '' : '  (QITOS_DEBUG=1 prints the stack)'}`,
  ];
  if (debug && f.stack) lines.push(f.stack.replace(/^/gm, '        '));
  return lines;
}

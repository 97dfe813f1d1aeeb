import { LiveView } from '../live-view.js';
import { printRunEnd, runExitCode, runSummary } from '../run-report.js';
import { replaySession } from '../../app/replay-session.js';
import type { CliIO } from '../io.js';
import type { ForkFlags } from './command-flags.js';
import { autoApprove } from '../../engine/permission-gate.js';
import { ttyApprover } from '../tty-approver.js';

/** What `qitos fork` does (loaded when the command runs, so `qitos --help` stays fast). */
export async function forkAction(io: CliIO, path: string, flags: ForkFlags): Promise<void> {
  const view = new LiveView((line) => io.out(line));
  // Asks are answered as in `qitos run`: --auto approves, a terminal prompts, else they are refused.
  const onApproval = flags.auto ? autoApprove : io.tty ? ttyApprover(io.tty, (t) => io.err(t)) : undefined;
  const session = await replaySession(io, path, {
    mode: 'fork',
    flags,
    settings: flags,
    hooks: flags.json || flags.quiet ? [] : [view.hook],
    ...(onApproval ? { onApproval } : {}),
    fork: { at: flags.at, ...(flags.branch !== undefined ? { branch: flags.branch } : {}), task: flags.task },
  });
  const { trace: parent, manifest: m } = session.recorded;
  const { after, candidate } = session;
  const result = await session.run();
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

import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { readTrace, stateAtStep } from '../../trace/index.js';
import type { WorkflowState } from './thread-state.js';

/**
 * The run a resumed run goes on from: its id and trace folder (where its child threads' traces are), the node
 * that was current when it stopped (only that node's first visit looks at the old threads), and the step it was
 * resumed after (threads started before it belong to earlier visits of the node, in a loop).
 */
export interface ResumeSource {
  runId: string;
  traceDir: string;
  node: string;
  afterStep: number;
}

/** What the resumed-from run left of one child thread: a finished one to reuse, or one to resume. */
export type PreviousThread =
  | { outcome: 'completed'; vars: Record<string, unknown>; runId: string; traceDir: string }
  | { outcome: 'resume'; state: WorkflowState; step: number; runId: string; traceDir: string };

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Finds the latest trace of the child thread `name` (`<fork>.<branch>`) that the run being resumed started
 * (`<runId>.s<step>.<name>[.<attempt>]` under its `threads/` folder) and says whether it completed (reuse its
 * variables) or stopped part-way (resume it from its last recorded step). Undefined when it never started.
 */
export async function previousThread(source: ResumeSource, name: string): Promise<PreviousThread | undefined> {
  const folder = join(source.traceDir, 'threads');
  const entries = await readdir(folder).catch(() => [] as string[]);
  const pattern = new RegExp(`^${escape(source.runId)}\\.s(\\d+)\\.${escape(name)}(?:\\.(\\d+))?$`);
  let best: { dir: string; step: number; attempt: number } | undefined;
  for (const e of entries) {
    const m = pattern.exec(e);
    if (!m) continue;
    const step = Number(m[1]);
    if (step < source.afterStep) continue;
    const attempt = m[2] ? Number(m[2]) : 1;
    if (!best || step > best.step || (step === best.step && attempt > best.attempt))
      best = { dir: join(folder, e), step, attempt };
  }
  if (!best) return undefined;
  const trace = await readTrace(best.dir);
  const last = trace.steps.length
    ? trace.steps[trace.steps.length - 1].step
    : ((trace.manifest.initialState as { step?: number } | null)?.step ?? 0);
  const state = stateAtStep(trace, last) as WorkflowState;
  if (state.thread?.status === 'completed')
    return { outcome: 'completed', vars: state.thread.vars, runId: trace.manifest.runId, traceDir: trace.dir };
  state.thread.status = 'running';
  delete state.thread.reason;
  state.thread.attempts = 0;
  state.stopReason = null;
  state.finalResult = null;
  return { outcome: 'resume', state, step: last, runId: trace.manifest.runId, traceDir: trace.dir };
}

/** The resume source of a thread resumed from `trace`'s state after step `step`. */
export function resumeSourceOf(p: {
  runId: string;
  traceDir: string;
  state: WorkflowState;
  step: number;
}): ResumeSource | undefined {
  const node = p.state.thread.current;
  return node === null ? undefined : { runId: p.runId, traceDir: p.traceDir, node, afterStep: p.step };
}

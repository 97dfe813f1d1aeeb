import { closeSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import type { Hook, HookEvent, StepRecord } from '../core/index.js';
import { fmtMs, fmtTokens, preview } from '../app/text-format.js';

/**
 * The compact live view of `qitos run`: one line per step (step, action(s) or final, observation preview,
 * tokens, time). It observes the run through a hook and reads each finished step from the trace's
 * steps.jsonl (flushed at every step boundary), so it shows exactly what the trace records.
 */
export class LiveView {
  private stepsPath: string | undefined;
  private offset = 0;
  private pending = '';

  constructor(
    private readonly write: (line: string) => void,
    private readonly width = 100,
  ) {}

  /** The hook to pass to the engine. */
  readonly hook: Hook = (event: HookEvent) => {
    if (event.type === 'run_start') {
      this.stepsPath = event.traceDir ? join(event.traceDir, 'steps.jsonl') : undefined;
    } else if ((event.type === 'phase_start' && event.phase === 'observe') || event.type === 'run_end') {
      this.drain();
    }
  };

  /** Prints the steps written since the last call. */
  drain(): void {
    if (!this.stepsPath) return;
    let fd: number;
    try {
      fd = openSync(this.stepsPath, 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return; // the first step is not written yet
      throw err;
    }
    try {
      const buf = Buffer.alloc(64 * 1024);
      for (;;) {
        const n = readSync(fd, buf, 0, buf.length, this.offset);
        if (n <= 0) break;
        this.offset += n;
        this.pending += buf.toString('utf8', 0, n);
      }
    } finally {
      closeSync(fd);
    }
    const lines = this.pending.split('\n');
    this.pending = lines.pop() ?? '';
    for (const line of lines)
      if (line.trim()) this.write(formatStepLine(JSON.parse(line) as StepRecord, this.width) + '\n');
  }
}

/** One line for a step: `  3  calc(expr="1+2") -> 3   41 tok  12ms`. */
export function formatStepLine(s: StepRecord, width = 100): string {
  const head = `${String(s.step).padStart(4)}  `;
  const tail = `  ${s.tokens ? `${fmtTokens(s.tokens)} tok  ` : ''}${fmtMs(s.durationMs)}`;
  const room = Math.max(20, width - head.length - tail.length);
  let body: string;
  const d = s.decision;
  if (s.error && !s.error.recovered && !d) body = `! ${s.error.kind}: ${s.error.message}`;
  else if (!d) body = s.error ? `! ${s.error.kind} (recovered): ${s.error.message}` : '(no decision)';
  else if (d.mode === 'final') body = `final: ${d.answer}`;
  else if (d.mode === 'wait') body = 'wait';
  else if (d.mode === 'act') {
    const calls = d.actions
      .map(
        (a) =>
          `${a.name}(${Object.entries(a.args)
            .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
            .join(', ')})`,
      )
      .join(' ');
    const obs = s.results
      .map((r) => (r.status === 'success' ? preview(r.output, 60) : `error: ${preview(r.error, 60)}`))
      .join(' | ');
    body = `${calls} -> ${obs}`;
    if (s.error) body += `  ! ${s.error.kind}: ${s.error.message}`;
  } else body = d.mode;
  return head + preview(body, room).padEnd(room) + tail;
}

import type { State } from '../core/index.js';
import type { RunEvent } from '../engine/engine-options.js';

/** At most this many characters of one tool result go into the reasoning text (the trace holds all of it). */
const MAX_RESULT_CHARS = 2000;

/**
 * Turns a run's events into the text of its steps for `reasoning_content`: the model's own reasoning as it streams,
 * then for each step that acts, what the model wrote (its thought, in whatever format its parser reads), each tool
 * call with its arguments and each result. The model's text is held until its step is known to act: a step that
 * ends the run holds the answer, which goes out once, as `content`, and not here too.
 */
export class AgentStepsText {
  private step = -1;
  private held = '';
  private acting = false;

  /** The reasoning text an event adds ('' for none). */
  add(e: RunEvent<State>): string {
    if (e.type === 'model_event') {
      let out = this.enter(e.step);
      const ev = e.event;
      if (ev.type === 'reasoning-delta') out += ev.delta;
      else if (ev.type === 'text-delta') {
        if (this.acting) out += ev.delta;
        else this.held += ev.delta;
      }
      return out;
    }
    if (e.type !== 'tool_state') return '';
    let out = this.enter(e.step);
    if (!this.acting) {
      // The step acts: what the model wrote for it is a thought, not the answer.
      this.acting = true;
      if (this.held) out += `${this.held.trimEnd()}\n`;
      this.held = '';
    }
    const s = e.state;
    if (s.status === 'running') out += `[tool call] ${e.tool}(${JSON.stringify(s.input)})\n`;
    else if (s.status === 'completed') out += `[tool result] ${e.tool}: ${cut(s.output)}\n`;
    else if (s.status === 'error') out += `[tool error] ${e.tool}: ${cut(s.error)}\n`;
    return out;
  }

  /** Moves to `step`: text held for the step before (it did not act: an answer or a parse failure) is dropped. */
  private enter(step: number): string {
    if (step === this.step) return '';
    const sep = this.acting ? '\n' : '';
    this.step = step;
    this.held = '';
    this.acting = false;
    return sep;
  }
}

function cut(text: string): string {
  return text.length > MAX_RESULT_CHARS
    ? `${text.slice(0, MAX_RESULT_CHARS)}… (${text.length - MAX_RESULT_CHARS} more characters in the trace)`
    : text;
}

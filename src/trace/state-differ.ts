import type { StateDiff } from '../core/index.js';

/**
 * Computes what changed in the state since the last call, for `steps.jsonl`. Plain keys are compared by their
 * JSON text; `messages` (which only grows, or is replaced as a new array by compaction) is compared by identity,
 * so the cost per step does not grow with the history.
 */
export class StateDiffer {
  private readonly text = new Map<string, string>();
  private messages: unknown[] | undefined;
  private messageRefs: unknown[] = [];

  constructor(initial: Record<string, unknown>) {
    this.diff(initial);
  }

  diff(state: Record<string, unknown>): StateDiff {
    const diff: StateDiff = {};
    for (const key of Object.keys(state)) {
      const value = state[key];
      if (key === 'messages' && Array.isArray(value)) {
        const at = this.firstChanged(value);
        if (at < value.length || at < this.messageRefs.length)
          (diff.splice ??= {}).messages = { at, items: value.slice(at) };
        if (value === this.messages && at === this.messageRefs.length)
          for (let i = at; i < value.length; i++) this.messageRefs.push(value[i]);
        else this.messageRefs = value.slice();
        this.messages = value;
        continue;
      }
      const t = JSON.stringify(value) ?? 'null';
      if (this.text.get(key) !== t) {
        (diff.set ??= {})[key] = value === undefined ? null : value;
        this.text.set(key, t);
      }
    }
    for (const key of [...this.text.keys()]) {
      if (!(key in state)) {
        (diff.unset ??= []).push(key);
        this.text.delete(key);
      }
    }
    return diff;
  }

  private firstChanged(value: unknown[]): number {
    const prev = this.messageRefs;
    if (value === this.messages && value.length >= prev.length) return prev.length;
    let i = 0;
    const n = Math.min(value.length, prev.length);
    while (i < n && value[i] === prev[i]) i++;
    return i;
  }
}

import type { Message, Part, ToolPart } from '../../core/index.js';
import { toolOutputTokens } from './token-estimate.js';

/** One tool output chosen for pruning. */
export interface PrunedOutput {
  message: number;
  part: number;
  callId: string;
  tool: string;
  tokens: number;
}

/** What a prune would clear, and how many tokens it would free. */
export interface PrunePlan {
  outputs: PrunedOutput[];
  tokens: number;
}

/** Options of `planPrune`. */
export interface PruneOptions {
  /** Recent completed tool output (tokens, counted from the end) that is never pruned. */
  protectTokens: number;
  /** The tool outputs of the last this-many model turns (assistant messages) are never pruned. */
  protectTurns: number;
  /** Tools whose outputs are never pruned (skills). */
  keepTools: ReadonlySet<string>;
}

/**
 * Picks the completed tool outputs to clear: walking back from the newest, outputs count against `protectTokens`;
 * once the protected amount is used up, every older output is a candidate, except those of the last
 * `protectTurns` turns and of `keepTools`. Outputs already compacted are skipped (the walk does not stop at them,
 * so older outputs behind a compacted one are still found). User messages hold no tool outputs and are never touched.
 */
export function planPrune(messages: readonly Message[], options: PruneOptions): PrunePlan {
  const outputs: PrunedOutput[] = [];
  let seen = 0;
  let turns = 0;
  let tokens = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role !== 'assistant') continue;
    turns++;
    const parts = m.parts;
    for (let j = parts.length - 1; j >= 0; j--) {
      const p = parts[j];
      const t = toolOutputTokens(p);
      if (t === 0) continue;
      seen += t;
      const tool = p as ToolPart;
      if (turns <= options.protectTurns || seen <= options.protectTokens || options.keepTools.has(tool.tool)) continue;
      outputs.push({ message: i, part: j, callId: tool.callID, tool: tool.tool, tokens: t });
      tokens += t;
    }
  }
  return { outputs, tokens };
}

/**
 * Applies a prune plan: returns a new history array in which each message with cleared outputs is a new object
 * whose cleared tool parts carry `state.time.compacted` (the output itself is kept for the trace; the model sees
 * `COMPACTED_PLACEHOLDER`). Untouched messages keep their identity, so the engine's incremental input builder
 * re-converts only what changed.
 */
export function applyPrune(messages: readonly Message[], plan: PrunePlan, now = Date.now()): Message[] {
  const out = messages.slice();
  const byMessage = new Map<number, Set<number>>();
  for (const o of plan.outputs) {
    let s = byMessage.get(o.message);
    if (!s) byMessage.set(o.message, (s = new Set()));
    s.add(o.part);
  }
  for (const [i, partIndexes] of byMessage) {
    const m = messages[i];
    const parts: Part[] = m.parts.map((p, j) => {
      if (!partIndexes.has(j) || p.type !== 'tool' || p.state.status !== 'completed') return p;
      return { ...p, state: { ...p.state, time: { ...p.state.time, compacted: now } } };
    });
    out[i] = { ...m, parts } as Message;
  }
  return out;
}

import type { Message, Part } from '../../core/index.js';
import { COMPACTED_PLACEHOLDER, INTERRUPTED_TOOL_ERROR } from '../../core/index.js';

/** Characters per token of the cheap estimate (a common rule of thumb for English and code). */
export const CHARS_PER_TOKEN = 4;
/** Tokens counted for a file or image part (providers bill images roughly this much or less). */
export const FILE_PART_TOKENS = 1_000;
/** Per-message framing overhead (role markers, separators). */
const MESSAGE_OVERHEAD = 4;
/** Per-tool-call framing overhead (call id, names, result wrapper). */
const TOOL_OVERHEAD = 10;

/** Estimated tokens of a text: `ceil(chars / 4)`. */
export function estimateTextTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** Estimated tokens of what the model sees for one part (compacted outputs count as their placeholder). */
export function estimatePartTokens(part: Part): number {
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return estimateTextTokens(part.text);
    case 'file':
      return FILE_PART_TOKENS;
    case 'tool': {
      const s = part.state;
      let chars = part.tool.length + (JSON.stringify(s.input)?.length ?? 0);
      if (s.status === 'completed') chars += s.time.compacted ? COMPACTED_PLACEHOLDER.length : s.output.length;
      else if (s.status === 'error') chars += s.error.length;
      else chars += INTERRUPTED_TOOL_ERROR.length;
      return Math.ceil(chars / CHARS_PER_TOKEN) + TOOL_OVERHEAD + attachmentTokens(part);
    }
    default:
      return 0;
  }
}

/** Estimated tokens of one history message as the model sees it. */
export function estimateMessageTokens(message: Message): number {
  let n = MESSAGE_OVERHEAD;
  for (const p of message.parts) n += estimatePartTokens(p);
  return n;
}

/** Tokens a completed tool output would free if it were compacted (0 for anything else). */
export function toolOutputTokens(part: Part): number {
  if (part.type !== 'tool' || part.state.status !== 'completed' || part.state.time.compacted) return 0;
  return (
    Math.max(0, estimateTextTokens(part.state.output) - estimateTextTokens(COMPACTED_PLACEHOLDER)) +
    attachmentTokens(part)
  );
}

/** Tokens of the files a completed, uncompacted tool output carries (the model sees them until compaction). */
function attachmentTokens(part: Part): number {
  if (part.type !== 'tool' || part.state.status !== 'completed' || part.state.time.compacted) return 0;
  return (part.state.attachments?.length ?? 0) * FILE_PART_TOKENS;
}

/**
 * Keeps a running estimate of a history's tokens so a check costs O(new messages), not O(history).
 * Messages before the last are settled: each is estimated once (cached by object identity in a WeakMap, so the
 * cache goes with the messages) and added to running prefix sums. The last message is re-estimated every time
 * because the engine still moves its tool parts along. The contract is the engine's: the history only grows in
 * place, and whoever rewrites an older message passes a new array with a new object for it; then the estimator
 * finds the first changed message by identity (a pointer comparison per message, like the engine's input builder)
 * and re-sums from there.
 */
export class HistoryEstimator {
  private source: readonly Message[] | undefined;
  private refs: Message[] = [];
  /** sums[i] = estimated tokens of refs[0..i]. */
  private sums: number[] = [];

  constructor(private readonly cache: WeakMap<Message, number> = new WeakMap()) {}

  /** Estimated tokens of one settled message (cached). */
  message(m: Message): number {
    let n = this.cache.get(m);
    if (n === undefined) {
      n = estimateMessageTokens(m);
      this.cache.set(m, n);
    }
    return n;
  }

  /** Estimated tokens of the whole history. */
  total(messages: readonly Message[]): number {
    const n = messages.length;
    const settle = Math.max(0, n - 1);
    let keep = Math.min(this.refs.length, settle);
    if (messages !== this.source) {
      let k = 0;
      while (k < keep && messages[k] === this.refs[k]) k++;
      keep = k;
      this.source = messages;
    }
    this.refs.length = this.sums.length = keep;
    for (let i = keep; i < settle; i++) {
      this.refs.push(messages[i]);
      this.sums.push((i ? this.sums[i - 1] : 0) + this.message(messages[i]));
    }
    return (settle ? this.sums[settle - 1] : 0) + (n ? estimateMessageTokens(messages[n - 1]) : 0);
  }
}

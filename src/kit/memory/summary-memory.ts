import type { Memory, MemoryContext, MemoryRecord, Model } from '../../core/index.js';
import { responseText } from '../../core/index.js';
import { recordText } from './record-text.js';

/** The system prompt of the summary memory's model call. */
export const MEMORY_SUMMARY_PROMPT = [
  'You keep the long-term memory of an autonomous agent as one running summary.',
  'You get the current summary and new records (oldest first). Return the updated summary:',
  'keep every fact, value, decision and lesson that may matter later (quote exact names, numbers and paths),',
  'drop chatter and what the new records make obsolete. Plain text, no preamble, at most about 300 words.',
].join('\n');

/** Options of {@link summaryMemory}. */
export interface SummaryMemoryOptions {
  /** Records kept verbatim (default 20); older ones are folded into the running summary. */
  keepRecent?: number;
  /** How many records past `keepRecent` are folded in one model call (default 10): fewer, larger calls. */
  foldBatch?: number;
  /** The model that writes the summary (default: the run's model). Its calls count in the run's usage and budgets. */
  model?: Model;
  /** Cap of the summary call's output (default 600 tokens). */
  maxOutputTokens?: number;
}

/**
 * A rolling summary plus the most recent records. When more than `keepRecent + foldBatch` records are held,
 * the oldest `foldBatch` are folded into the summary by one model call made through the run's middleware
 * (`ctx.callModel`, purpose `memory-summary`), so its tokens and cost count in the run's usage and budgets and
 * the trace records it. `retrieve` returns the summary (role `summary`) first, then the most recent records.
 */
export function summaryMemory(options: SummaryMemoryOptions = {}): Memory {
  const keepRecent = options.keepRecent ?? 20;
  const foldBatch = options.foldBatch ?? 10;
  for (const [k, v] of [
    ['keepRecent', keepRecent],
    ['foldBatch', foldBatch],
  ] as const) {
    if (!Number.isInteger(v) || v < 1) throw new Error(`summaryMemory: ${k} must be a positive integer, got ${v}`);
  }
  let records: MemoryRecord[] = [];
  let summary = '';
  /** The step of the newest record folded into the summary. */
  let summaryStep = 0;

  const fold = async (count: number, ctx: MemoryContext) => {
    const folded = records.slice(0, count);
    const user = `Current summary:\n${summary || '(empty)'}\n\nNew records:\n${folded.map(recordText).join('\n')}`;
    const response = await ctx.callModel(
      {
        messages: [
          { role: 'system', content: MEMORY_SUMMARY_PROMPT },
          { role: 'user', content: [{ type: 'text', text: user }] },
        ],
        maxOutputTokens: options.maxOutputTokens ?? 600,
      },
      { signal: ctx.signal, purpose: 'memory-summary', ...(options.model ? { model: options.model } : {}) },
    );
    const text = responseText(response).trim();
    if (!text) throw new Error('summaryMemory: the summary model returned an empty summary');
    summary = text;
    summaryStep = folded[folded.length - 1].step;
    records = records.slice(count);
    return count;
  };

  return {
    name: 'summary',
    async append(record, ctx) {
      records.push(record);
      if (records.length >= keepRecent + foldBatch) await fold(foldBatch, ctx);
    },
    retrieve(_query, k) {
      const out: MemoryRecord[] = summary ? [{ step: summaryStep, role: 'summary', content: summary }] : [];
      const rest = Math.max(0, k - out.length);
      return [...out, ...records.slice(records.length - Math.min(rest, records.length)).reverse()];
    },
    summarize() {
      return [summary && `Summary: ${summary}`, ...records.map(recordText)].filter(Boolean).join('\n');
    },
    /** Folds everything past `keepRecent` now (one model call); returns how many records were folded. */
    async evict(ctx) {
      const over = records.length - keepRecent;
      return over > 0 ? fold(over, ctx) : 0;
    },
    reset() {
      records = [];
      summary = '';
      summaryStep = 0;
    },
  };
}

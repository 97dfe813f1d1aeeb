import type { Message, ModelMessage, UserMessage } from '../../core/index.js';
import { COMPACTED_PLACEHOLDER, INTERRUPTED_TOOL_ERROR, canonicalJson, newId } from '../../core/index.js';

/**
 * The system prompt of the summary call (documented in docs/policies.md). The model gets no tools: only this
 * prompt and a transcript of the messages being replaced.
 */
export const SUMMARY_PROMPT = [
  'You compact the history of an autonomous agent run so that it fits in the context window.',
  'The agent will continue the run from your summary alone: the messages you summarise are removed.',
  'Write a summary with these sections:',
  '1. Goal: the task and every constraint or preference the user stated.',
  '2. Done so far: the key actions and tool calls and their important results. Quote exact ' +
    'values: file paths, names, numbers, commands, error messages.',
  '3. Learned: facts established, hypotheses ruled out, approaches that failed and why.',
  '4. Current state and next steps: what was in progress when the history was cut, and what remains to do.',
  'Be concise and factual. Do not invent anything that is not in the transcript. Write in the language of the transcript.',
  'Plain text, no preamble.',
].join('\n');

/** The line that opens the summary message the model sees. */
export const SUMMARY_HEADER =
  'Summary of the earlier part of this run (older messages were compacted to fit the context window):';

/** True for a user message that starts a user turn: not a compaction summary, not only kernel-written (synthetic) text. */
export function isUserTurn(m: Message): boolean {
  if (m.role !== 'user' || m.info.summary) return false;
  return m.parts.some((p) => (p.type === 'text' && !p.synthetic) || p.type === 'file');
}

/** Which messages a summary replaces and which stay. */
export interface SummaryPlan {
  /** Indices of the messages the summary replaces (ascending). */
  replace: number[];
  /** Indices before `tailStart` kept verbatim (the first and the last user turn's message). */
  keep: number[];
  /** Messages from here on are kept verbatim. */
  tailStart: number;
}

/**
 * Plans a summary: the longest run of whole recent messages within `keepRecentTokens` stays verbatim (a message
 * carries its tool calls and their results together, so a call is never split from its result), the message of the
 * last user turn stays (and the first one, the task, with `keepFirstUser`), everything else before the tail is
 * replaced by one summary. Undefined when there is nothing to replace.
 */
export function planSummary(
  messages: readonly Message[],
  options: {
    keepRecentTokens: number;
    keepFirstUser: boolean;
    tokens: (m: Message) => number;
    /**
     * Earlier summaries stay verbatim (the new one is appended after them) while together they are at most this
     * many tokens; above it they are replaced with the rest, so the new summary merges them (default 0: always).
     */
    keepSummaryTokens?: number;
  },
): SummaryPlan | undefined {
  let tailStart = messages.length;
  let tail = 0;
  while (tailStart > 0) {
    const t = options.tokens(messages[tailStart - 1]);
    if (tail + t > options.keepRecentTokens) break;
    tail += t;
    tailStart--;
  }
  let last = -1;
  let first = -1;
  for (let i = messages.length - 1; i >= 0; i--)
    if (isUserTurn(messages[i])) {
      last = i;
      break;
    }
  if (options.keepFirstUser)
    for (let i = 0; i < messages.length; i++)
      if (isUserTurn(messages[i])) {
        first = i;
        break;
      }
  // Earlier summaries kept in place keep the head of the conversation byte-identical (a provider's cached prefix).
  const summaries = new Set<number>();
  let summaryTokens = 0;
  for (let i = 0; i < tailStart; i++)
    if (messages[i].role === 'user' && messages[i].info.summary) {
      summaries.add(i);
      summaryTokens += options.tokens(messages[i]);
    }
  if (summaryTokens > (options.keepSummaryTokens ?? 0)) summaries.clear();
  const split = () => {
    const replace: number[] = [];
    const keep: number[] = [];
    for (let i = 0; i < tailStart; i++) (i === last || i === first || summaries.has(i) ? keep : replace).push(i);
    return { replace, keep };
  };
  let { replace, keep } = split();
  // The new summary goes after the kept messages: earlier summaries stay only when all it replaces came after them.
  if (summaries.size && replace.some((i) => i < Math.max(...summaries))) {
    summaries.clear();
    ({ replace, keep } = split());
  }
  return replace.length ? { replace, keep, tailStart } : undefined;
}

/** A transcript of the messages to summarise, cut to fit the summary call. */
export interface Transcript {
  text: string;
  /** Oldest messages left out because the transcript was over `maxChars` (0 normally). */
  omitted: number;
}

const TEXT_CAP = 6_000;
const ARGS_CAP = 600;
const OUTPUT_CAP = 2_000;

/**
 * Renders messages as a plain-text transcript for the summary model (no tool schemas needed, so any model can
 * summarise any history). Long texts, arguments and tool outputs are cut; reasoning is left out. If the transcript
 * is still over `maxChars`, the oldest messages are left out (earlier summaries are always kept) and a marker says
 * how many, so the loss is visible to the summary model and in the compaction event.
 */
export function renderTranscript(messages: readonly Message[], maxChars: number): Transcript {
  const entries: Array<{ text: string; summary: boolean }> = messages.map((m) => ({
    text: renderMessage(m),
    summary: m.role === 'user' && !!m.info.summary,
  }));
  let total = entries.reduce((n, e) => n + e.text.length + 2, 0);
  let omitted = 0;
  for (let i = 0; i < entries.length && total > maxChars; i++) {
    if (entries[i].summary) continue;
    total -= entries[i].text.length + 2;
    entries[i].text = '';
    omitted++;
  }
  const kept = entries.filter((e) => e.text).map((e) => e.text);
  if (omitted) kept.unshift(`[${omitted} older message${omitted === 1 ? '' : 's'} left out for length]`);
  let text = kept.join('\n\n');
  // Earlier summaries alone may exceed the budget: cut from the front, keeping the most recent part.
  if (text.length > maxChars) text = `[…]${text.slice(text.length - Math.max(0, maxChars - 3))}`;
  return { text, omitted };
}

function renderMessage(m: Message): string {
  if (m.role === 'user') {
    if (m.info.summary) return `[summary of earlier messages]\n${cut(m.info.summary.body ?? textOf(m), TEXT_CAP * 2)}`;
    const who = isUserTurn(m) ? 'user' : 'note';
    return `[${who}] ${cut(textOf(m), TEXT_CAP)}`;
  }
  const lines: string[] = [];
  for (const p of m.parts) {
    if (p.type === 'text' && p.text) lines.push(`[assistant] ${cut(p.text, TEXT_CAP)}`);
    else if (p.type === 'tool') {
      const s = p.state;
      const call = `${p.tool}(${cut(canonicalJson(s.input), ARGS_CAP)})`;
      if (s.status === 'completed')
        lines.push(`[tool ${call}] -> ${s.time.compacted ? COMPACTED_PLACEHOLDER : cut(s.output, OUTPUT_CAP)}`);
      else if (s.status === 'error') lines.push(`[tool ${call}] -> error: ${cut(s.error, OUTPUT_CAP)}`);
      else lines.push(`[tool ${call}] -> ${INTERRUPTED_TOOL_ERROR}`);
    }
  }
  return lines.join('\n') || '[assistant] (no text)';
}

function textOf(m: Message): string {
  const out: string[] = [];
  for (const p of m.parts) {
    if (p.type === 'text') out.push(p.text);
    else if (p.type === 'file') out.push(`[file ${p.filename ?? p.mime}]`);
  }
  return out.join('\n');
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} more characters]`;
}

/** The messages of the summary call: the summary prompt, then the transcript and the objective. */
export function summaryRequest(transcript: Transcript, objective: string, prompt: string): ModelMessage[] {
  const text =
    `The task of the run (it stays in the history ` +
    `verbatim): ${cut(objective, TEXT_CAP)}\n\nSummarise this part of the ` +
    `run:\n<transcript>\n${transcript.text}\n</transcript>`;
  return [
    { role: 'system', content: prompt },
    { role: 'user', content: [{ type: 'text', text }] },
  ];
}

/** The one user message that replaces the summarised messages: a compaction part and the summary text. */
export function summaryMessage(summary: string, opts: { auto: boolean; overflow: boolean; now?: number }): UserMessage {
  return {
    role: 'user',
    info: {
      id: newId('msg'),
      role: 'user',
      time: { created: opts.now ?? Date.now() },
      summary: { title: 'Compaction summary', body: summary },
    },
    parts: [
      { id: newId('prt'), type: 'compaction', auto: opts.auto, overflow: opts.overflow },
      { id: newId('prt'), type: 'text', synthetic: true, text: `${SUMMARY_HEADER}\n\n${summary}` },
    ],
  };
}

/** The history after a summary: the kept messages (in order), the summary, then the verbatim tail. A new array. */
export function applySummary(messages: readonly Message[], plan: SummaryPlan, summary: UserMessage): Message[] {
  const out: Message[] = plan.keep.map((i) => messages[i]);
  out.push(summary);
  for (let i = plan.tailStart; i < messages.length; i++) out.push(messages[i]);
  return out;
}

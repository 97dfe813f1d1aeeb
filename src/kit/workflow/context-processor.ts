import type { CallModel, ModelMessage } from '../../core/index.js';
import { WorkflowError } from './workflow-error.js';

/** What a context processor is given besides the messages. */
export interface ContextProcessorContext {
  nodeId: string;
  config: Readonly<Record<string, unknown>>;
  vars: Readonly<Record<string, unknown>>;
  /** A model call through the run's middleware (counted in the run's usage). */
  callModel: CallModel;
  signal: AbortSignal;
  /** Told when a summary call failed and a round kept its own text (the agent reports it as an event). */
  onFallback?: (info: { round: number; error: string }) => void;
}

/** Rewrites a thread's conversation (a registered custom processor has this shape too). */
export type ContextProcessor = (
  messages: readonly ModelMessage[],
  ctx: ContextProcessorContext,
) => ModelMessage[] | Promise<ModelMessage[]>;

/** Characters per token of the estimate: it leans high, so summaries start early. */
export const SEED_CHARS_PER_TOKEN = 2.5;

/**
 * The token estimate of messages: the characters of each message's content (a string as it is, parts as
 * their JSON) divided by 2.5, rounded down. Enough to decide when to summarise.
 */
export function estimateTokens(messages: readonly ModelMessage[]): number {
  let chars = 0;
  for (const m of messages)
    chars += typeof m.content === 'string' ? m.content.length : JSON.stringify(m.content).length;
  return Math.floor(chars / SEED_CHARS_PER_TOKEN);
}

function intOption(ctx: ContextProcessorContext, name: string, fallback: number | undefined): number {
  const v = ctx.config[name] ?? fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0)
    throw new WorkflowError(
      `node "${ctx.nodeId}": config.${name}: expected a non-negative integer, got ${JSON.stringify(v)}`,
      { nodeId: ctx.nodeId, field: `config.${name}` },
    );
  return v;
}

/** `trim`: keeps the last `keepLast` messages (never starting on a tool result, which needs its call). */
export const trimProcessor: ContextProcessor = (messages, ctx) => {
  const keep = intOption(ctx, 'keepLast', undefined);
  let start = Math.max(0, messages.length - keep);
  while (start < messages.length && messages[start].role === 'tool') start++;
  return messages.slice(start);
};

/** `truncate-tool-outputs`: cuts every tool result to `maxChars` (default 500), saying how much was cut. */
export const truncateToolOutputsProcessor: ContextProcessor = (messages, ctx) => {
  const max = intOption(ctx, 'maxChars', 500);
  return messages.map((m) =>
    m.role !== 'tool'
      ? m
      : {
          role: 'tool',
          content: m.content.map((p) =>
            p.output.length <= max
              ? p
              : { ...p, output: `${p.output.slice(0, max)}\n[... ${p.output.length - max} characters cut]` },
          ),
        },
  );
};

/** Renders messages as plain text: what a round's summary prompt holds, and its fallback when the call fails. */
function transcript(messages: readonly ModelMessage[]): string {
  return messages
    .map((m) => {
      if (m.role === 'system') return `System: ${m.content}`;
      if (m.role === 'tool')
        return m.content.map((p) => `Tool ${p.name} returned${p.isError ? ' an error' : ''}: ${p.output}`).join('\n');
      const text = m.content
        .map((p) =>
          p.type === 'text' ? p.text : p.type === 'tool-call' ? `[calls ${p.name} ${JSON.stringify(p.args)}]` : '',
        )
        .filter(Boolean)
        .join(' ');
      return `${m.role === 'user' ? 'User' : 'Assistant'}: ${text}`;
    })
    .join('\n');
}

/** The line that opens a round's summary message (the workflow requirements' wording). */
export const ROUND_SUMMARY_HEADER = '[Assistant Execution Summary]';

/** The system prompt of a round's summary call (the per-round Mini-Agent summary). */
export const ROUND_SUMMARY_SYSTEM = 'You are skilled at summarizing execution processes.';

function roundPrompt(round: number, text: string): string {
  return [
    `Please provide a concise summary of the following execution process (round ${round}):`,
    '',
    text,
    '',
    'Requirements:',
    '1. Focus on completed tasks and tool calls',
    '2. Keep key results and findings',
    '3. Be concise and clear, within 1000 words',
    '4. Do not include user content, only summarize the execution process',
  ].join('\n');
}

/**
 * `summarise` (the per-round Mini-Agent summary): keeps the system messages and every user message
 * as they are, and replaces each round (what the agent did between two user messages) by a summary of that round
 * alone, one model call per round, in order. When a round's call fails (or answers no text), the round's own
 * transcript stands in for its summary, so nothing is lost; the `onFallback` callback hears why. The last
 * `keepLast` messages (default 0) stay as they are (never starting on a tool result, which needs its call).
 */
export const summariseProcessor: ContextProcessor = async (messages, ctx) => {
  const keep = intOption(ctx, 'keepLast', 0);
  let cut = Math.max(0, messages.length - keep);
  while (cut < messages.length && messages[cut].role === 'tool') cut++;
  const out: ModelMessage[] = [];
  let round: ModelMessage[] = [];
  let rounds = 0;
  const flush = async () => {
    if (!round.length) return;
    rounds++;
    out.push(await summariseRound(round, rounds, ctx));
    round = [];
  };
  for (const m of messages.slice(0, cut)) {
    if (m.role === 'system' || m.role === 'user') {
      await flush();
      out.push(m);
    } else round.push(m);
  }
  await flush();
  return [...out, ...messages.slice(cut)];
};

async function summariseRound(
  round: readonly ModelMessage[],
  n: number,
  ctx: ContextProcessorContext,
): Promise<ModelMessage> {
  const text = transcript(round);
  let summary: string;
  try {
    const response = await ctx.callModel(
      {
        messages: [
          { role: 'system', content: ROUND_SUMMARY_SYSTEM },
          { role: 'user', content: [{ type: 'text', text: roundPrompt(n, text) }] },
        ],
      },
      { purpose: 'workflow-summarise', signal: ctx.signal },
    );
    summary = response.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
    if (!summary.trim()) {
      ctx.onFallback?.({ round: n, error: 'the summary call answered no text' });
      summary = text;
    }
  } catch (err) {
    // A cancelled run stops here; any other failure keeps the round's own text instead of losing it.
    if (ctx.signal.aborted) throw err;
    ctx.onFallback?.({ round: n, error: err instanceof Error ? err.message : String(err) });
    summary = text;
  }
  return { role: 'user', content: [{ type: 'text', text: `${ROUND_SUMMARY_HEADER}\n\n${summary}` }] };
}

/** The processors every WorkflowAgent has, by name. */
export const BUILTIN_CONTEXT_PROCESSORS: Readonly<Record<string, ContextProcessor>> = Object.freeze({
  summarise: summariseProcessor,
  trim: trimProcessor,
  'truncate-tool-outputs': truncateToolOutputsProcessor,
});

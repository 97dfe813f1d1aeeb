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
}

/** Rewrites a thread's conversation (a registered custom processor has this shape too). */
export type ContextProcessor = (
  messages: readonly ModelMessage[],
  ctx: ContextProcessorContext,
) => ModelMessage[] | Promise<ModelMessage[]>;

/** A rough token estimate of messages (4 characters a token), enough to decide when to summarise. */
export function estimateTokens(messages: readonly ModelMessage[]): number {
  let chars = 0;
  for (const m of messages) chars += JSON.stringify(m.content).length;
  return Math.ceil(chars / 4);
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

/** Renders messages as plain text for a summary prompt. */
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

/**
 * `summarise`: asks the model for a concise summary of everything but the last `keepLast` messages (default 0)
 * and replaces them with one user message holding it (the seed's Mini-Agent summary).
 */
export const summariseProcessor: ContextProcessor = async (messages, ctx) => {
  const keep = intOption(ctx, 'keepLast', 0);
  let cut = Math.max(0, messages.length - keep);
  while (cut < messages.length && messages[cut].role === 'tool') cut++;
  const old = messages.slice(0, cut);
  if (!old.length) return [...messages];
  const response = await ctx.callModel(
    {
      messages: [
        {
          role: 'system',
          content:
            'You summarise the work done so far in a conversation: tasks done, tool calls and their key results, findings. Be concise.',
        },
        { role: 'user', content: [{ type: 'text', text: `Summarise this execution:\n\n${transcript(old)}` }] },
      ],
    },
    { purpose: 'workflow-summarise', signal: ctx.signal },
  );
  const summary = response.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
  return [
    { role: 'user', content: [{ type: 'text', text: `[Summary of earlier work]\n${summary}` }] },
    ...messages.slice(cut),
  ];
};

/** The processors every WorkflowAgent has, by name. */
export const BUILTIN_CONTEXT_PROCESSORS: Readonly<Record<string, ContextProcessor>> = Object.freeze({
  summarise: summariseProcessor,
  trim: trimProcessor,
  'truncate-tool-outputs': truncateToolOutputsProcessor,
});

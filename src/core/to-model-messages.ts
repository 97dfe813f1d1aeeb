import type { Message, ToolPart } from './message.js';
import type { ModelFilePart, ModelMessage, ModelToolResultPart } from './model-message.js';

/** What the model sees in place of a tool output that compaction cleared. */
export const COMPACTED_PLACEHOLDER = '[Old tool result content cleared]';
/** What the model sees for a tool that was still pending or running when the run was cut. */
export const INTERRUPTED_TOOL_ERROR = 'Tool execution was interrupted before it finished';

/** The output (or error) the model sees for one tool part. */
export function toolResultFor(part: ToolPart): ModelToolResultPart {
  const s = part.state;
  const base = { callId: part.callID, name: part.tool };
  if (s.status === 'completed') {
    if (s.time.compacted) return { type: 'tool-result', ...base, output: COMPACTED_PLACEHOLDER, isError: false };
    const files = s.attachments?.map((a): ModelFilePart => ({ type: 'file', mime: a.mime, url: a.url, ...(a.filename ? { filename: a.filename } : {}), bestEffort: true }));
    return { type: 'tool-result', ...base, output: s.output, isError: false, ...(files?.length ? { attachments: files } : {}) };
  }
  if (s.status === 'error') return { type: 'tool-result', ...base, output: s.error, isError: true };
  return { type: 'tool-result', ...base, output: INTERRUPTED_TOOL_ERROR, isError: true };
}

/**
 * Converts one history message into what a provider receives (0..3 model messages).
 * Native tool calls become assistant tool-call parts followed by one `tool` message with their results;
 * tool calls a text parser extracted are already in the assistant text, so their results follow as a user
 * message of observations. Reasoning is kept (with its signature); each provider decides whether to send it.
 */
export function messageToModel(message: Message): ModelMessage[] {
  if (message.role === 'user') {
    const content: Extract<ModelMessage, { role: 'user' }>['content'] = [];
    for (const p of message.parts) {
      if (p.type === 'text') content.push({ type: 'text', text: p.text });
      else if (p.type === 'file') content.push({ type: 'file', mime: p.mime, url: p.url });
    }
    return content.length ? [{ role: 'user', content }] : [];
  }
  const content: Extract<ModelMessage, { role: 'assistant' }>['content'] = [];
  const nativeResults: ModelToolResultPart[] = [];
  const observations: string[] = [];
  const observedFiles: ModelFilePart[] = [];
  for (const p of message.parts) {
    if (p.type === 'text') {
      if (p.text) content.push({ type: 'text', text: p.text });
    } else if (p.type === 'reasoning') {
      content.push({ type: 'reasoning', text: p.text, ...(p.signature ? { signature: p.signature } : {}), ...(p.redacted ? { redacted: true } : {}) });
    } else if (p.type === 'tool') {
      const result = toolResultFor(p);
      if (p.origin === 'native') {
        content.push({ type: 'tool-call', callId: p.callID, name: p.tool, args: p.state.input });
        nativeResults.push(result);
      } else {
        observations.push(`Observation${result.isError ? ' (error)' : ''} from ${p.tool}: ${result.output}`);
        if (result.attachments) observedFiles.push(...result.attachments);
      }
    }
  }
  const out: ModelMessage[] = [];
  if (content.length) out.push({ role: 'assistant', content });
  if (nativeResults.length) out.push({ role: 'tool', content: nativeResults });
  if (observations.length) out.push({ role: 'user', content: [{ type: 'text', text: observations.join('\n\n') }, ...observedFiles] });
  return out;
}

/** Converts a whole history (the engine does this incrementally; this is the reference). */
export function toModelMessages(history: readonly Message[]): ModelMessage[] {
  const out: ModelMessage[] = [];
  for (const m of history) for (const mm of messageToModel(m)) out.push(mm);
  return out;
}

import { renderCustomPart, type CustomPartKinds } from './custom-part-kinds.js';
import { QitosError } from './errors.js';
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
    const files = s.attachments?.map((a): ModelFilePart => ({
      type: 'file',
      mime: a.mime,
      url: a.url,
      ...(a.filename ? { filename: a.filename } : {}),
      bestEffort: true,
    }));
    return {
      type: 'tool-result',
      ...base,
      output: s.output,
      isError: false,
      ...(files?.length ? { attachments: files } : {}),
    };
  }
  if (s.status === 'error') return { type: 'tool-result', ...base, output: s.error, isError: true };
  return { type: 'tool-result', ...base, output: INTERRUPTED_TOOL_ERROR, isError: true };
}

/** Turns the results of calls read from a reply's text into messages for the model (a parser's `formatResults`). */
export type ResultFormatter = (results: readonly ModelToolResultPart[]) => ModelMessage[];

/**
 * One user message carrying the results of text-parsed calls: one paragraph per result (`line` words it), then
 * the files the tools returned (their attachments). Parsers build their `formatResults` with it.
 */
export function resultsMessage(
  results: readonly ModelToolResultPart[],
  line: (r: ModelToolResultPart) => string,
): ModelMessage {
  const files = results.flatMap((r) => r.attachments ?? []);
  return { role: 'user', content: [{ type: 'text', text: results.map(line).join('\n\n') }, ...files] };
}

/** The default way results of text-parsed calls go back: one user message, one paragraph per result. */
export const plainResults: ResultFormatter = (results) => [
  resultsMessage(results, (r) => `${r.isError ? 'Error from' : 'Result of'} ${r.name}: ${r.output}`),
];

/**
 * Converts one history message into what a provider receives (0..3 model messages).
 * Native tool calls become assistant tool-call parts followed by one `tool` message with their results;
 * tool calls a text parser extracted are already in the assistant text, so their results follow as what
 * `formatResults` (the parser's) makes of them. Reasoning is kept (with its signature); each provider decides
 * whether to send it. Custom parts become what their registered kind renders (`partKinds`), or nothing.
 */
export function messageToModel(
  message: Message,
  formatResults: ResultFormatter = plainResults,
  partKinds?: CustomPartKinds,
): ModelMessage[] {
  if (message.role === 'user') {
    const content: Extract<ModelMessage, { role: 'user' }>['content'] = [];
    for (const p of message.parts) {
      if (p.type === 'text') content.push({ type: 'text', text: p.text });
      else if (p.type === 'file') content.push({ type: 'file', mime: p.mime, url: p.url });
      else if (p.type === 'custom') content.push(...renderCustomPart(p, partKinds, 'user'));
    }
    return content.length ? [{ role: 'user', content }] : [];
  }
  const content: Extract<ModelMessage, { role: 'assistant' }>['content'] = [];
  const nativeResults: ModelToolResultPart[] = [];
  const parsedResults: ModelToolResultPart[] = [];
  for (const p of message.parts) {
    if (p.type === 'text') {
      if (p.text) content.push({ type: 'text', text: p.text });
    } else if (p.type === 'reasoning') {
      content.push({
        type: 'reasoning',
        text: p.text,
        ...(p.signature ? { signature: p.signature } : {}),
        ...(p.redacted ? { redacted: true } : {}),
      });
    } else if (p.type === 'custom') {
      for (const r of renderCustomPart(p, partKinds, 'assistant')) {
        if (r.type !== 'text')
          throw new QitosError(
            'internal',
            `custom part "${p.kind}" (${p.id}) renders a file in an assistant message; providers take ` +
              `files from user messages only: render text there`,
          );
        content.push(r);
      }
    } else if (p.type === 'tool') {
      const result = toolResultFor(p);
      if (p.origin === 'native') {
        content.push({ type: 'tool-call', callId: p.callID, name: p.tool, args: p.state.input });
        nativeResults.push(result);
      } else {
        parsedResults.push(result);
      }
    }
  }
  const out: ModelMessage[] = [];
  if (content.length) out.push({ role: 'assistant', content });
  if (nativeResults.length) out.push({ role: 'tool', content: nativeResults });
  if (parsedResults.length) for (const m of formatResults(parsedResults)) out.push(m);
  return out;
}

/** Converts a whole history (the engine does this incrementally; this is the reference). */
export function toModelMessages(
  history: readonly Message[],
  formatResults: ResultFormatter = plainResults,
  partKinds?: CustomPartKinds,
): ModelMessage[] {
  const out: ModelMessage[] = [];
  for (const m of history) for (const mm of messageToModel(m, formatResults, partKinds)) out.push(mm);
  return out;
}

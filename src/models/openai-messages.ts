import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionContentPart,
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
  ChatCompletionToolChoiceOption,
} from 'openai/resources/chat/completions';
import type { ModelMessage, ModelRequest, ToolSpec } from '../core/index.js';
import { ModelError, base64Size } from '../core/index.js';

/** An assistant message as OpenAI-compatible servers with reasoning accept it (DeepSeek, Zhipu). */
type AssistantWithReasoning = ChatCompletionAssistantMessageParam & { reasoning_content?: string };

/**
 * Converts provider-neutral messages to OpenAI chat messages. Reasoning is dropped unless `reasoningInput`
 * is set (then it goes back as `reasoning_content`); redacted reasoning is never sent (it is Anthropic's).
 * Tool results become `tool` messages answering their `tool_call_id`; an error result is prefixed `Error:`
 * because the protocol has no error flag.
 */
export function toOpenAIMessages(
  messages: readonly ModelMessage[],
  opts: { reasoningInput?: boolean } = {},
): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  for (const m of messages) {
    if (m.role === 'system') out.push({ role: 'system', content: m.content });
    else if (m.role === 'user') {
      if (m.content.every((p) => p.type === 'text'))
        out.push({ role: 'user', content: m.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n\n') });
      else out.push({ role: 'user', content: m.content.map(userPart) });
    } else if (m.role === 'assistant') {
      let text = '';
      let reasoning = '';
      const calls: NonNullable<ChatCompletionAssistantMessageParam['tool_calls']> = [];
      for (const p of m.content) {
        if (p.type === 'text') text += p.text;
        else if (p.type === 'reasoning') {
          if (!p.redacted) reasoning += p.text;
        } else
          calls.push({ id: p.callId, type: 'function', function: { name: p.name, arguments: JSON.stringify(p.args) } });
      }
      const msg: AssistantWithReasoning = { role: 'assistant', content: text || (calls.length ? null : '') };
      if (calls.length) msg.tool_calls = calls;
      if (opts.reasoningInput && reasoning) msg.reasoning_content = reasoning;
      out.push(msg);
    } else {
      for (const r of m.content)
        out.push({ role: 'tool', tool_call_id: r.callId, content: r.isError ? `Error: ${r.output}` : r.output });
      // Tool messages carry text only: files the tools returned follow in one user message.
      const files = m.content.flatMap((r) => (r.attachments ?? []).map((f) => ({ r, f })));
      if (files.length)
        out.push({
          role: 'user',
          content: [
            { type: 'text', text: 'Files returned by the tool calls above:' },
            ...files.flatMap(({ r, f }) => [
              { type: 'text' as const, text: `${r.name} (${r.callId}): ${f.filename ?? f.mime}` },
              userPart(f),
            ]),
          ],
        });
    }
  }
  return out;
}

function userPart(p: Extract<ModelMessage, { role: 'user' }>['content'][number]): ChatCompletionContentPart {
  if (p.type === 'text') return { type: 'text', text: p.text };
  if (p.mime.startsWith('image/')) return { type: 'image_url', image_url: { url: p.url } };
  if (p.mime === 'application/pdf' && p.url.startsWith('data:'))
    return { type: 'file', file: { file_data: p.url, filename: p.filename ?? 'document.pdf' } };
  const text = decodeTextDataUrl(p.url, p.mime);
  if (text !== undefined) return { type: 'text', text };
  if (p.bestEffort) return { type: 'text', text: unsentFileNote(p) };
  throw new ModelError(
    'bad_request',
    `a user file of type ${p.mime} cannot be sent to an OpenAI-compatible model: send images ` +
      `(image/*), PDFs as data: URLs, or text files as data: URLs`,
  );
}

/** What a model sees instead of a best-effort file its provider cannot take (e.g. audio from a tool). */
export function unsentFileNote(p: { mime: string; url: string; filename?: string }): string {
  const bytes = /^data:[^,]*;base64,/.test(p.url) ? base64Size(p.url.slice(p.url.indexOf(',') + 1)) : undefined;
  return (
    `[file ${p.filename ?? ''}${p.filename ? ' ' : ''}(${p.mime}${bytes !== undefined ? `, ${bytes} bytes` : ''}) ` +
    `not shown: this model does not take ${p.mime} files]`
  );
}

/** The text of a `text/*` or JSON data: URL, or undefined for anything else. Malformed percent-encoding is a bad_request ModelError. */
export function decodeTextDataUrl(url: string, mime: string): string | undefined {
  if (!(mime.startsWith('text/') || mime === 'application/json') || !url.startsWith('data:')) return undefined;
  const comma = url.indexOf(',');
  if (comma < 0) return undefined;
  const meta = url.slice(5, comma);
  const data = url.slice(comma + 1);
  if (meta.endsWith(';base64')) return Buffer.from(data, 'base64').toString('utf8');
  try {
    return decodeURIComponent(data);
  } catch {
    // decodeURIComponent's own "URI malformed" names neither the file nor the fix
    throw new ModelError(
      'bad_request',
      `a ${mime} data: URL has malformed percent-encoding ` +
        `(${JSON.stringify(data.slice(0, 40))}): encode the text with encodeURIComponent, or send ` +
        `it base64 (data:${mime};base64,...)`,
    );
  }
}

/** Tool specs as OpenAI function tools. */
export function toOpenAITools(tools: readonly ToolSpec[]): ChatCompletionFunctionTool[] {
  return tools.map((t) => ({
    type: 'function',
    function: { name: t.name, description: t.description, parameters: t.inputSchema },
  }));
}

/** Our tool choice as OpenAI's. */
export function toOpenAIToolChoice(choice: NonNullable<ModelRequest['toolChoice']>): ChatCompletionToolChoiceOption {
  return typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
}

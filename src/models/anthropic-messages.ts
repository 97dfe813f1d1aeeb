import type {
  ContentBlockParam,
  DocumentBlockParam,
  ImageBlockParam,
  MessageParam,
  TextBlockParam,
  Tool,
  ToolChoice,
  ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages/messages';
import type { ModelFilePart, ModelMessage, ModelRequest, ToolSpec } from '../core/index.js';
import { ModelError } from '../core/index.js';
import { decodeTextDataUrl, unsentFileNote } from './openai-messages.js';

/** What the Anthropic messages API takes: the system prompt apart, then alternating user/assistant turns. */
export interface AnthropicPrompt {
  system: TextBlockParam[] | undefined;
  messages: MessageParam[];
}

/**
 * Converts provider-neutral messages to Anthropic's shape. System messages become the `system` prompt.
 * Reasoning goes back as `thinking` blocks with their signature (as the API requires during tool use) or
 * `redacted_thinking` blocks; reasoning without a signature came from another provider and is dropped.
 * Tool results become `tool_result` blocks of a user turn, before any text; consecutive turns of the same role
 * are merged. With `cache`, the system prompt and the last two turns carry cache breakpoints.
 */
export function toAnthropicPrompt(messages: readonly ModelMessage[], opts: { cache?: boolean } = {}): AnthropicPrompt {
  const systemText: string[] = [];
  const out: Array<{ role: 'user' | 'assistant'; content: ContentBlockParam[] }> = [];
  const push = (role: 'user' | 'assistant', blocks: ContentBlockParam[]) => {
    if (!blocks.length) return;
    const last = out[out.length - 1];
    if (last && last.role === role) {
      // tool_result blocks must open a user turn: put them before the text already there.
      if (role === 'user' && blocks.every((b) => b.type === 'tool_result')) last.content = [...blocks, ...last.content];
      else last.content.push(...blocks);
    } else out.push({ role, content: blocks });
  };
  for (const m of messages) {
    if (m.role === 'system') systemText.push(m.content);
    else if (m.role === 'user') push('user', m.content.map(userBlock));
    else if (m.role === 'tool') {
      push(
        'user',
        m.content.map((r) => ({
          type: 'tool_result',
          tool_use_id: r.callId,
          content: r.attachments?.length ? toolResultContent(r.output, r.attachments) : r.output,
          ...(r.isError ? { is_error: true } : {}),
        })),
      );
    } else {
      const blocks: ContentBlockParam[] = [];
      for (const p of m.content) {
        if (p.type === 'text') {
          if (p.text) blocks.push({ type: 'text', text: p.text });
        } else if (p.type === 'reasoning') {
          if (p.redacted && p.signature) blocks.push({ type: 'redacted_thinking', data: p.signature });
          else if (p.signature) blocks.push({ type: 'thinking', thinking: p.text, signature: p.signature });
        } else blocks.push({ type: 'tool_use', id: p.callId, name: p.name, input: p.args });
      }
      push('assistant', blocks);
    }
  }
  const system: TextBlockParam[] | undefined = systemText.length
    ? [{ type: 'text', text: systemText.join('\n\n') }]
    : undefined;
  if (opts.cache) {
    if (system) system[system.length - 1].cache_control = { type: 'ephemeral' };
    for (const msg of out.slice(-2)) markLastCacheable(msg.content);
  }
  return { system, messages: out };
}

/** Puts a cache breakpoint on the last block that may carry one (thinking blocks may not). */
function markLastCacheable(blocks: ContentBlockParam[]): void {
  for (let i = blocks.length - 1; i >= 0; i--) {
    const b = blocks[i];
    if (
      b.type === 'text' ||
      b.type === 'image' ||
      b.type === 'document' ||
      b.type === 'tool_use' ||
      b.type === 'tool_result'
    ) {
      b.cache_control = { type: 'ephemeral' };
      return;
    }
  }
}

const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] as const;

function userBlock(p: Extract<ModelMessage, { role: 'user' }>['content'][number]): ContentBlockParam {
  if (p.type === 'text') return { type: 'text', text: p.text };
  const data = parseBase64DataUrl(p.url);
  if ((IMAGE_TYPES as readonly string[]).includes(p.mime)) {
    const mediaType = p.mime as (typeof IMAGE_TYPES)[number];
    return data
      ? { type: 'image', source: { type: 'base64', media_type: mediaType, data } }
      : { type: 'image', source: { type: 'url', url: p.url } };
  }
  if (p.mime === 'application/pdf') {
    return data
      ? { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data } }
      : { type: 'document', source: { type: 'url', url: p.url } };
  }
  const text = decodeTextDataUrl(p.url, p.mime);
  if (text !== undefined) return { type: 'text', text };
  if (p.bestEffort) return { type: 'text', text: unsentFileNote(p) };
  throw new ModelError(
    'bad_request',
    `a user file of type ${p.mime} cannot be sent to an Anthropic model: send JPEG/PNG/GIF/WebP images, PDFs, or text files as data: URLs`,
  );
}

/** A tool result with files: its text, then each file as an image or document block (or a note when it cannot be sent). */
function toolResultContent(output: string, files: ModelFilePart[]): ToolResultBlockParam['content'] {
  const blocks = files.map((f) => userBlock(f));
  return [
    { type: 'text', text: output || '(no text)' },
    ...blocks.filter(
      (b): b is TextBlockParam | ImageBlockParam | DocumentBlockParam =>
        b.type === 'text' || b.type === 'image' || b.type === 'document',
    ),
  ];
}

function parseBase64DataUrl(url: string): string | undefined {
  const m = /^data:[^,]*;base64,(.*)$/s.exec(url);
  return m ? m[1] : undefined;
}

/** Tool specs as Anthropic tools. */
export function toAnthropicTools(tools: readonly ToolSpec[]): Tool[] {
  return tools.map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: { type: 'object', ...t.inputSchema } as Tool['input_schema'],
  }));
}

/** Our tool choice as Anthropic's (`required` is Anthropic's `any`). */
export function toAnthropicToolChoice(choice: NonNullable<ModelRequest['toolChoice']>): ToolChoice {
  if (choice === 'auto') return { type: 'auto' };
  if (choice === 'required') return { type: 'any' };
  if (choice === 'none') return { type: 'none' };
  return { type: 'tool', name: choice.name };
}

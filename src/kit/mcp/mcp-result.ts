import type { Attachment, ToolOutput } from '../../core/index.js';
import { formatMcpUri } from './mcp-uri.js';

/** One content block of an MCP `tools/call` result (the fields qitos reads). */
export interface McpContent {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
  uri?: string;
  name?: string;
  title?: string;
  description?: string;
  resource?: { uri: string; mimeType?: string; text?: string; blob?: string };
}

/**
 * Maps the content of an MCP tool result to a ToolOutput:
 * - text blocks, and the text of embedded text resources, are joined with newlines;
 * - images, audio and embedded binary resources become attachments (file parts with a `data:` URL);
 * - a `resource_link` becomes a line `[resource] mcp://<server>/<uri> (name, mime)`: the model reads it on
 *   demand (`read_mcp_resource`, or the reference in a message);
 * - `structuredContent` is used when there is no text.
 */
export function mcpToolOutput(server: string, content: readonly McpContent[], structuredContent?: unknown): ToolOutput {
  const texts: string[] = [];
  const attachments: Attachment[] = [];
  for (const block of content) {
    if (block.type === 'text' && typeof block.text === 'string') texts.push(block.text);
    else if ((block.type === 'image' || block.type === 'audio') && typeof block.data === 'string') {
      const mime = block.mimeType ?? 'application/octet-stream';
      attachments.push({ mime, url: `data:${mime};base64,${block.data}` });
    } else if (block.type === 'resource' && block.resource) {
      const r = block.resource;
      if (typeof r.text === 'string') texts.push(r.text);
      else if (typeof r.blob === 'string') {
        const mime = r.mimeType ?? 'application/octet-stream';
        attachments.push({ mime, url: `data:${mime};base64,${r.blob}`, ...fileName(r.uri) });
      }
    } else if (block.type === 'resource_link' && typeof block.uri === 'string') {
      const about = [block.title ?? block.name, block.mimeType].filter(Boolean).join(', ');
      texts.push(`[resource] ${formatMcpUri({ server, uri: block.uri })}${about ? ` (${about})` : ''}`);
    }
  }
  if (texts.length === 0 && structuredContent !== undefined) texts.push(JSON.stringify(structuredContent));
  const output = texts.length
    ? texts.join('\n')
    : attachments.length
      ? `(${attachments.length} attachment${attachments.length > 1 ? 's' : ''})`
      : '';
  return attachments.length ? { output, attachments } : { output };
}

/** The text of an error result, for the Error the tool throws. */
export function mcpErrorText(content: readonly McpContent[]): string {
  return content
    .filter((b) => b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text)
    .join('\n');
}

/** `{ filename }` from the last segment of a URI, or nothing when it has none. */
export function fileName(uri: string): { filename?: string } {
  const last = uri.split(/[/\\]/).pop();
  return last ? { filename: last } : {};
}

import { z } from 'zod';
import { defineTool, type AnyTool, type Attachment } from '../../core/index.js';
import { truncateOutput } from '../tools/index.js';
import type { McpServers } from './mcp-servers.js';
import { fileName } from './mcp-result.js';
import { parseMcpUri } from './mcp-uri.js';

/**
 * `read_mcp_resource`: reads `mcp://<server>/<uri>` through the server's `resources/read`. Text contents come back
 * as the output (capped like any tool output; the trace keeps all of it), binary contents as attachments (file
 * parts).
 */
export function readMcpResourceTool(manager: McpServers): AnyTool {
  return defineTool({
    id: 'read_mcp_resource',
    description:
      'Read a resource of a connected MCP server, given as mcp://<server>/<uri> (from ' +
      'list_mcp_resources, a [resource] line of a tool result, or the conversation).',
    parameters: z.object({ uri: z.string().describe('mcp://<server>/<resource uri>') }),
    async execute({ uri }, ctx) {
      const ref = parseMcpUri(uri);
      const result = await manager.readResource(ref, { signal: ctx.signal });
      const texts: string[] = [];
      const attachments: Attachment[] = [];
      for (const c of result.contents) {
        if ('text' in c && typeof c.text === 'string')
          texts.push(result.contents.length > 1 ? `[${c.uri}]\n${c.text}` : c.text);
        else if ('blob' in c && typeof c.blob === 'string') {
          const mime = c.mimeType ?? 'application/octet-stream';
          attachments.push({ mime, url: `data:${mime};base64,${c.blob}`, ...fileName(c.uri) });
        }
      }
      const text = texts.length
        ? texts.join('\n\n')
        : attachments.length
          ? `(${attachments.length} attachment${attachments.length > 1 ? 's' : ''})`
          : '(empty resource)';
      const cut = truncateOutput(
        text,
        'The resource is longer than what is shown; ask the server for a narrower resource if it offers one.',
      );
      return {
        output: cut.output,
        ...(cut.full !== undefined ? { full: cut.full } : {}),
        ...(attachments.length ? { attachments } : {}),
        metadata: { mcpServer: ref.server, uri: ref.uri },
      };
    },
  });
}

import { z } from 'zod';
import { defineTool, errorMessage, type AnyTool } from '../../core/index.js';
import { truncateOutput } from '../tools/index.js';
import type { McpServers } from './mcp-servers.js';
import { formatMcpUri } from './mcp-uri.js';

/**
 * `list_mcp_resources`: the resources and resource templates of the connected MCP servers (or of one), each as
 * the `mcp://<server>/<uri>` the model passes to `read_mcp_resource` (a template's `{placeholders}` filled in).
 */
export function listMcpResourcesTool(manager: McpServers): AnyTool {
  return defineTool({
    id: 'list_mcp_resources',
    description:
      'List the resources (and resource templates) of the connected MCP servers as ' +
      "mcp://<server>/<uri> references. Read one with read_mcp_resource; fill in a template's " +
      '{placeholders} first.',
    parameters: z.object({
      server: z.string().optional().describe('only this server (default: every server that has resources)'),
    }),
    async execute({ server }, ctx) {
      const names =
        server !== undefined
          ? [server]
          : manager
              .statuses()
              .filter((s) => s.resources)
              .map((s) => s.name);
      if (server !== undefined && !manager.serverNames.includes(server))
        throw new Error(`no MCP server named "${server}" (configured: ${manager.serverNames.join(', ') || 'none'})`);
      const sections: string[] = [];
      for (const name of names) {
        if (ctx.signal.aborted) break;
        try {
          const { resources, templates } = await manager.resources(name);
          const lines = [
            `server ${name}: ${resources.length} ` +
              `resource${resources.length === 1 ? '' : 's'}, ${templates.length} ` +
              `template${templates.length === 1 ? '' : 's'}`,
          ];
          for (const r of resources)
            lines.push(entry(formatMcpUri({ server: name, uri: r.uri }), r.title ?? r.name, r.mimeType, r.description));
          for (const t of templates)
            lines.push(
              entry(
                `template ${formatMcpUri({ server: name, uri: t.uriTemplate })}`,
                t.title ?? t.name,
                t.mimeType,
                t.description,
              ),
            );
          sections.push(lines.join('\n'));
        } catch (error) {
          sections.push(`server ${name}: ${errorMessage(error)}`);
        }
      }
      const text = sections.length ? sections.join('\n\n') : 'No connected MCP server has resources.';
      const cut = truncateOutput(text, 'Pass "server" to list one server at a time.');
      return { output: cut.output, ...(cut.full !== undefined ? { full: cut.full } : {}) };
    },
  });
}

function entry(
  ref: string,
  name: string | undefined,
  mime: string | undefined,
  description: string | undefined,
): string {
  const about = [name, mime].filter(Boolean).join(', ');
  return `- ${ref}${about ? ` (${about})` : ''}${description ? `: ${description.replace(/\s+/g, ' ').slice(0, 200)}` : ''}`;
}

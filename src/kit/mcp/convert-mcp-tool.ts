import type { Tool as McpToolInfo } from '@modelcontextprotocol/sdk/types.js';
import { defineTool, type AnyTool } from '../../core/index.js';
import { truncateOutput, type OutputLimits } from '../tools/index.js';
import { mcpParameters } from './mcp-parameters.js';
import { mcpErrorText, mcpToolOutput, type McpContent } from './mcp-result.js';
import type { McpSession } from './mcp-session.js';
import { mcpToolId } from './mcp-tool-id.js';

/** What a converted tool needs to reach its server: the live session, looked up at call time (it changes on reconnect). */
export interface McpToolTarget {
  server: string;
  /** The current session, or an Error saying why there is none (connecting, reconnecting, failed, closed). */
  session(): McpSession | Error;
  outputLimits?: OutputLimits;
}

/** A converted tool, and why its schema could not be converted when that happened. */
export interface ConvertedMcpTool {
  tool: AnyTool;
  /** Set when the input schema could not be converted and any JSON object is accepted (the server validates). */
  unconverted?: string;
}

/**
 * Turns one MCP tool into a qitos tool: id `<server>_<tool>`, the server's description and
 * input schema (as zod, so the executor rejects bad arguments before the server sees them). A call goes to the
 * server's current session with the run's signal; progress notifications update the running tool state's title
 * and restart the request timeout; `isError` results and failures throw, which the executor turns into an error
 * result the model sees.
 */
export function convertMcpTool(info: McpToolInfo, target: McpToolTarget): ConvertedMcpTool {
  const params = mcpParameters(info.inputSchema as Record<string, unknown>);
  const id = mcpToolId(target.server, info.name);
  const tool = defineTool({
    id,
    description: info.description ?? info.title ?? `Tool "${info.name}" of MCP server "${target.server}"`,
    parameters: params.schema,
    // Rules name MCP tools by `server_tool`, as a key (`"github_*": "ask"`) or as a pattern of `"*"`.
    permission: () => ({ kind: 'text', value: id }),
    async execute(args, ctx) {
      const session = target.session();
      if (session instanceof Error) throw session;
      const result = await session
        .callTool(info.name, args as Record<string, unknown>, {
          signal: ctx.signal,
          onProgress: (p) =>
            ctx.metadata({
              title: `${info.name}: ${p.message ?? `progress ${p.progress}${p.total !== undefined ? `/${p.total}` : ''}`}`,
              metadata: { progress: p.progress, ...(p.total !== undefined ? { total: p.total } : {}) },
            }),
        })
        .catch((error: unknown) => {
          throw ctx.signal.aborted ? (ctx.signal.reason ?? error) : error; // the executor reports its own timeout/abort
        });
      const content = (Array.isArray(result.content) ? result.content : []) as McpContent[];
      if (result.isError)
        throw new Error(
          mcpErrorText(content) || `tool "${info.name}" of ${session.label} reported an error without text`,
        );
      const out = mcpToolOutput(target.server, content, result.structuredContent);
      const cut = truncateOutput(
        out.output,
        'Call the tool with narrower arguments to see less at once.',
        target.outputLimits,
      );
      return {
        ...out,
        output: cut.output,
        ...(cut.full !== undefined ? { full: cut.full } : {}),
        metadata: { mcpServer: target.server, mcpTool: info.name, truncated: cut.truncated },
      };
    },
  });
  return { tool, ...(params.converted ? {} : { unconverted: params.reason ?? 'unknown reason' }) };
}

import type { Tool as McpToolInfo } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { defineTool, errorMessage, type AnyTool } from '../../core/index.js';
import { mcpEnv } from './mcp-env.js';
import { mcpParameters } from './mcp-parameters.js';
import { mcpErrorText, mcpToolOutput, type McpContent } from './mcp-result.js';
import { mcpToolId } from './mcp-tool-id.js';
import { truncateOutput } from '../tools/truncate-output.js';

/** Default timeout of one tool call and of the initial handshake (opencode uses the same). */
export const MCP_DEFAULT_TIMEOUT_MS = 30_000;
const STDERR_TAIL = 2_000;

/** How to start a local MCP server over stdio. */
export const McpServerConfig = z.object({
  /** The server's name: the prefix of its tool ids and the name errors use. */
  name: z.string().min(1, 'the server needs a name'),
  command: z.string().min(1, 'the server needs a command'),
  args: z.array(z.string()).default([]),
  /** Variables added to the allow-listed environment (PATH, HOME, LANG). */
  env: z.record(z.string(), z.string()).default({}),
  cwd: z.string().optional(),
  /** Timeout of each tool call and tool listing, in ms. */
  timeoutMs: z.number().int().positive().default(MCP_DEFAULT_TIMEOUT_MS),
  /** Timeout of the start-up handshake, in ms (servers started through npx or tsx may take seconds). */
  startTimeoutMs: z.number().int().positive().default(MCP_DEFAULT_TIMEOUT_MS),
  /** What the model sees of one result's text (default 2000 lines / 50 KiB); the trace keeps the whole text. */
  outputLimits: z.object({ maxLines: z.number().int().positive().optional(), maxBytes: z.number().int().positive().optional() }).default({}),
});
export type McpServerConfig = z.input<typeof McpServerConfig>;

/** A running MCP server: its tools as qitos tools, and `close()` to end it. */
export interface McpConnection {
  readonly name: string;
  /** The server subprocess's pid (null once it has exited). */
  readonly pid: number | null;
  /** The server's tools (asked fresh each time), as tools for a ToolRegistry or an agent. */
  tools(): Promise<AnyTool[]>;
  /** Schemas that could not be converted to zod (those tools accept any JSON object), by tool id. */
  readonly unconvertedSchemas: ReadonlyMap<string, string>;
  /** Ends the session and the subprocess. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * Starts a local MCP server over stdio and completes the MCP handshake.
 * The subprocess gets a cleared environment (PATH, HOME, LANG plus `env`). Fails with an error naming the server
 * and command when the command does not exist, exits before the handshake, or does not answer within `startTimeoutMs`.
 */
export async function connectMcp(config: McpServerConfig): Promise<McpConnection> {
  const parsed = McpServerConfig.safeParse(config);
  if (!parsed.success) throw new Error(`invalid MCP server config: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(config)'}: ${i.message}`).join('; ')}`);
  const cfg = parsed.data;
  const label = `MCP server "${cfg.name}" (${[cfg.command, ...cfg.args].join(' ')})`;

  // The SDK is loaded on the first connection: importing qitos-ts does not load an MCP client it may never use.
  const [{ Client }, { StdioClientTransport, DEFAULT_INHERITED_ENV_VARS }, { ErrorCode, McpError }] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  const transport = new StdioClientTransport({ command: cfg.command, args: cfg.args, env: mcpEnv(cfg.env, process.env, DEFAULT_INHERITED_ENV_VARS), cwd: cfg.cwd, stderr: 'pipe' });
  let stderr = '';
  // keep the tail of the server's stderr: it is what explains a crash
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_TAIL);
  });
  const stderrNote = async () => {
    await new Promise((r) => setImmediate(r)); // let the last stderr chunk arrive
    return stderr.trim() ? `\nserver stderr:\n${stderr.trim()}` : '';
  };

  const client = new Client({ name: 'qitos-ts', version: '0.1.0' });
  let closed = false;
  let closing = false;
  client.onclose = () => {
    closed = true;
  };
  // transport errors also reject the pending request, which is where they are reported
  client.onerror = () => undefined;

  try {
    await client.connect(transport, { timeout: cfg.startTimeoutMs });
  } catch (error) {
    const why =
      (error as NodeJS.ErrnoException).code === 'ENOENT'
        ? `command not found: ${cfg.command}`
        : error instanceof McpError && error.code === ErrorCode.RequestTimeout
          ? `no answer to the MCP handshake within ${cfg.startTimeoutMs} ms`
          : errorMessage(error);
    await client.close().catch(() => undefined); // the start already failed; this only reaps the process
    throw new Error(`${label} failed to start: ${why}${await stderrNote()}`);
  }

  const unconverted = new Map<string, string>();

  const callError = async (tool: string, error: unknown): Promise<Error> => {
    if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) return new Error(`${label}: tool "${tool}" timed out after ${cfg.timeoutMs} ms`);
    if (closed || (error instanceof McpError && error.code === ErrorCode.ConnectionClosed)) {
      return new Error(`${label} ${closing ? 'was closed' : 'exited'} during the call of tool "${tool}"${await stderrNote()}`);
    }
    return new Error(`${label}: tool "${tool}" failed: ${errorMessage(error)}`);
  };

  const toTool = (info: McpToolInfo): AnyTool => {
    const id = mcpToolId(cfg.name, info.name);
    const params = mcpParameters(info.inputSchema as Record<string, unknown>);
    if (!params.converted) unconverted.set(id, params.reason ?? 'unknown reason');
    return defineTool({
      id,
      description: info.description ?? info.title ?? `Tool "${info.name}" of MCP server "${cfg.name}"`,
      parameters: params.schema,
      async execute(args, ctx) {
        if (closed) throw new Error(`${label} is not running (it exited or was closed); cannot call tool "${info.name}"${await stderrNote()}`);
        let result;
        try {
          result = await client.callTool({ name: info.name, arguments: args as Record<string, unknown> }, undefined, { signal: ctx.signal, timeout: cfg.timeoutMs });
        } catch (error) {
          if (ctx.signal.aborted) throw ctx.signal.reason ?? error; // the executor reports its own timeout/abort
          throw await callError(info.name, error);
        }
        const content = (Array.isArray(result.content) ? result.content : []) as McpContent[];
        if (result.isError) throw new Error(mcpErrorText(content) || `tool "${info.name}" of ${label} reported an error without text`);
        const out = mcpToolOutput(content, result.structuredContent);
        const cut = truncateOutput(out.output, 'Call the tool with narrower arguments to see less at once.', cfg.outputLimits);
        return { ...out, output: cut.output, ...(cut.full !== undefined ? { full: cut.full } : {}), metadata: { mcpServer: cfg.name, mcpTool: info.name, truncated: cut.truncated } };
      },
    });
  };

  return {
    name: cfg.name,
    get pid() {
      return closed ? null : transport.pid;
    },
    unconvertedSchemas: unconverted,
    async tools() {
      if (closed) throw new Error(`${label} is not running (it exited or was closed)${await stderrNote()}`);
      const infos: McpToolInfo[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: cfg.timeoutMs }).catch(async (e: unknown) => {
          throw await callError('tools/list', e);
        });
        infos.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor);
      const tools = infos.map(toTool);
      const seen = new Map<string, string>();
      for (const [i, t] of tools.entries()) {
        const other = seen.get(t.id);
        if (other !== undefined) throw new Error(`${label}: tools "${other}" and "${infos[i].name}" both map to the id "${t.id}"`);
        seen.set(t.id, infos[i].name);
      }
      return tools;
    },
    async close() {
      if (closed) return;
      closing = true;
      await client.close();
    },
  };
}

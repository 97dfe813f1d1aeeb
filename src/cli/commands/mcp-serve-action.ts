import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { AppError } from '../../app/app-error.js';
import { effectiveConfig } from '../../app/effective-config.js';
import type { CliIO } from '../io.js';
import { withMcp } from '../../app/mcp-setup.js';
import { servedAgentClass, servedAgents } from '../../app/served-agents.js';
import { agentMcpServer, runToolName } from '../../server/agent-mcp-server.js';
import { startMcpHttpServer } from '../../server/mcp-http-server.js';
import type { McpServeFlags } from './command-flags.js';
import { LiveRuns } from '../../server/live-runs.js';
import { SERVE_DEFAULTS } from '../../server/serve-options.js';
import { connectionFlags, TOKEN_ENV } from './serve-action.js';
import { stopSignal } from '../stop-signal.js';

/**
 * What `qitos mcp serve` does. Over stdio, stdout is the protocol: every line for the operator goes to stderr;
 * it serves until the client closes stdin, or SIGTERM/SIGINT. Over HTTP, until SIGTERM/SIGINT.
 */
export async function mcpServeAction(io: CliIO, flags: McpServeFlags): Promise<void> {
  const config = await effectiveConfig({}, flags, io.cwd);
  const { loaded, name } = await servedAgentClass(io, flags.agent, flags.export, flags.name);
  await withMcp(config, io, async (mcp) => {
    const agents = await servedAgents(io, loaded, name, config, flags.serveModel, mcp);
    const tools = agents.map((a) => runToolName(a.id)).join(', ');
    let stopped: Promise<unknown>;
    let close: () => Promise<void>;
    if (flags.http) {
      const token = io.env[TOKEN_ENV] || undefined;
      const server = await startMcpHttpServer({
        agents,
        ...(token ? { token } : {}),
        host: flags.host,
        port: flags.port,
        ...(flags.maxRuns ? { maxRuns: flags.maxRuns } : {}),
        ...connectionFlags(flags),
      }).catch((err: Error) => {
        throw new AppError(err.message);
      });
      io.err(
        `qitos mcp serve: streamable HTTP at ${server.url}/mcp  tools: ${tools}\nqitos mcp serve: ${server.authNote}\n`,
      );
      stopped = stopSignal();
      close = server.close;
    } else {
      const runs = new LiveRuns();
      const max = flags.maxRuns ?? SERVE_DEFAULTS.maxRuns;
      const server = agentMcpServer(
        agents,
        { name: `qitos-${name}`, version: '1' },
        { max, reserve: () => runs.reserve(max), release: () => runs.release() },
      );
      const transport = new StdioServerTransport();
      const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
      process.stdin.once('end', () => void transport.close());
      await server.connect(transport);
      io.err(`qitos mcp serve: stdio  tools: ${tools}\n`);
      stopped = Promise.race([closed, stopSignal()]);
      close = () => server.close();
    }
    await stopped;
    await close();
  });
}

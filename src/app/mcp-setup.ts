import { McpManager } from '../kit/mcp/mcp-manager.js';
import { recordableMcpConfig } from '../kit/mcp/mcp-vars.js';
import type { McpConfig } from '../kit/mcp/mcp-config.js';
import type { AppIO } from './app-io.js';
import type { QitosConfig } from './config-schema.js';
import { terminalText } from './terminal-text.js';

/**
 * Connects the MCP servers of a config (none: undefined) and prints one line per server that did not connect;
 * the run goes on without it. `${VAR}`s come from the command's environment.
 */
export async function connectConfiguredMcp(
  servers: McpConfig | undefined,
  io: Pick<AppIO, 'err' | 'cwd' | 'env' | 'redactor'>,
  opts: { quiet?: boolean } = {},
): Promise<McpManager | undefined> {
  if (!servers || Object.keys(servers).length === 0) return undefined;
  const manager = await McpManager.connect(servers, {
    env: io.env,
    cwd: io.cwd,
    ...(io.redactor ? { redactor: io.redactor } : {}),
  });
  if (!opts.quiet)
    for (const s of manager.statuses())
      if (s.state === 'failed')
        io.err(`mcp: ${terminalText(`server "${s.name}" is not available: ${(s.reason ?? '').split('\n')[0]}`)}\n`);
  return manager;
}

/**
 * Runs `fn` with the config's MCP servers connected, and closes every server when it ends, however it ends
 * (a `qitos` command never exits with a server still running).
 */
export async function withMcp<T>(
  config: QitosConfig,
  io: Pick<AppIO, 'err' | 'cwd' | 'env' | 'redactor'>,
  fn: (mcp: McpManager | undefined) => Promise<T>,
  opts: { quiet?: boolean } = {},
): Promise<T> {
  const mcp = await connectConfiguredMcp(config.mcp, io, opts);
  try {
    return await fn(mcp);
  } finally {
    await mcp?.close();
  }
}

/**
 * The config as a trace manifest records it: MCP `env`/`headers` literals redacted, `${VAR}`s kept unexpanded, and
 * no `telemetry:` section (where a run's spans went is not part of the run, and its headers may hold a token).
 */
export function recordableConfig(config: QitosConfig): QitosConfig {
  const rest: QitosConfig = { ...config };
  delete rest.telemetry;
  return rest.mcp ? { ...rest, mcp: recordableMcpConfig(rest.mcp) } : rest;
}

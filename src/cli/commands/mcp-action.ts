import { CliError } from '../cli-error.js';
import { effectiveConfig } from '../effective-config.js';
import type { CliIO } from '../io.js';
import { withMcp } from '../mcp-setup.js';
import { table } from '../text-format.js';
import { terminalText } from '../terminal-text.js';

/** What `qitos mcp list` does (loaded when the command runs, so `qitos --help` stays fast). */
export async function mcpListAction(io: CliIO, opts: { config: string; json?: boolean }): Promise<void> {
  const config = await effectiveConfig({}, { config: opts.config }, io.cwd);
  if (!config.mcp || Object.keys(config.mcp).length === 0) throw new CliError(`${opts.config} has no MCP servers (add an mcp: section, see docs/mcp.md)`);
  const servers = await withMcp(config, io, async (m) => m!.statuses(), { quiet: true });
  io.exitCode = servers.some((s) => s.state === 'failed') ? 1 : 0;
  if (opts.json) {
    io.out(JSON.stringify({ servers }, null, 2) + '\n');
    return;
  }
  const state = (s: (typeof servers)[number]) => (s.state === 'failed' ? `failed: ${(s.reason ?? '').split('\n')[0]}` : s.state);
  io.out(table(['server', 'type', 'transport', 'tools', 'resources', 'prompts', 'status'], servers.map((s) => [s.name, s.type, s.transport ?? '-', String(s.tools.length), s.resources ? 'yes' : 'no', s.prompts ? 'yes' : 'no', state(s)])));
  for (const s of servers) {
    if (s.tools.length) io.out(`\n${terminalText(`${s.name}: ${s.tools.join(', ')}`)}\n`);
    for (const k of s.skipped) io.out(`  ${terminalText(`skipped ${k.tool}: ${k.reason}`)}\n`);
  }
}

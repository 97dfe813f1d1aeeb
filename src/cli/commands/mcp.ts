import type { Command } from 'commander';
import { CliError } from '../cli-error.js';
import { effectiveConfig } from '../effective-config.js';
import { ioOf } from '../io.js';
import { withMcp } from '../mcp-setup.js';
import { table } from '../text-format.js';

/** `qitos mcp list`: connects the config's MCP servers and shows each one's status and tools. */
export function registerMcpCommand(program: Command): void {
  const mcp = program.command('mcp').description('work with the MCP servers of a config');
  mcp
    .command('list')
    .description('connect the MCP servers of the config and show the status, transport and tools of each (exit 1 when one failed)')
    .requiredOption('-c, --config <file.yaml>', 'config file with an mcp: section')
    .option('--json', 'print the statuses as JSON')
    .addHelpText('after', '\nExample:\n  $ qitos mcp list --config qitos.yaml\n  $ qitos mcp list --config qitos.yaml --json | jq ".servers[] | {name, state}"\n')
    .action(async function (this: Command, opts: { config: string; json?: boolean }) {
      const io = ioOf(this);
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
        if (s.tools.length) io.out(`\n${s.name}: ${s.tools.join(', ')}\n`);
        for (const k of s.skipped) io.out(`  skipped ${k.tool}: ${k.reason}\n`);
      }
    });
}

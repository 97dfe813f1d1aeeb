import type { Command } from 'commander';
import { ioOf } from '../io.js';

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
      const { mcpListAction } = await import('./mcp-action.js');
      await mcpListAction(ioOf(this), opts);
    });
}

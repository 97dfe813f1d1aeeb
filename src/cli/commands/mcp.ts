import type { Command } from 'commander';
import { ioOf } from '../io.js';
import { nonNegativeInt, positiveInt } from '../option-parsers.js';
import type { McpServeFlags } from './command-flags.js';

/**
 * `qitos mcp list`: connects the config's MCP servers and shows each one's status and tools.
 * `qitos mcp serve`: an agent as an MCP server (stdio, or streamable HTTP), one `run_<agent>` tool.
 */
export function registerMcpCommand(program: Command): void {
  const mcp = program.command('mcp').description('work with the MCP servers of a config');
  mcp
    .command('list')
    .description(
      'connect the MCP servers of the config and show the status, transport and tools of each (exit 1 when one failed)',
    )
    .requiredOption('-c, --config <file.yaml>', 'config file with an mcp: section')
    .option('--json', 'print the statuses as JSON')
    .addHelpText(
      'after',
      '\nExample:\n  $ qitos mcp list --config qitos.yaml\n  $ qitos mcp list --config ' +
        'qitos.yaml --json | jq ".servers[] | {name, state}"\n',
    )
    .action(async function (this: Command, opts: { config: string; json?: boolean }) {
      const { mcpListAction } = await import('./mcp-action.js');
      await mcpListAction(ioOf(this), opts);
    });
  mcp
    .command('call')
    .description(
      'call one tool of a configured MCP server and print its result (exit 1 when the tool reports an error)',
    )
    .argument('<server>', 'server name, as in the mcp: section')
    .argument('<tool>', "the tool's name on that server (as the server lists it)")
    .requiredOption('-c, --config <file.yaml>', 'config file with an mcp: section')
    .option('--args <json>', 'the arguments, a JSON object', '{}')
    .option('--timeout <ms>', 'time limit of the call', positiveInt, 60_000)
    .option('--json', 'print the result as JSON')
    .addHelpText(
      'after',
      '\nExample:\n  $ qitos mcp call fs read_text_file --args \'{"path": "README.md"}\' --config qitos.yaml\n',
    )
    .action(async function (
      this: Command,
      server: string,
      tool: string,
      opts: { config: string; args: string; timeout: number; json?: boolean },
    ) {
      const { mcpCallAction } = await import('./mcp-action.js');
      await mcpCallAction(ioOf(this), server, tool, opts);
    });
  mcp
    .command('serve')
    .description(
      'serve an agent as an MCP server with one tool, run_<name> (task in; answer and trace id ' +
        'out; progress per step), over stdio or streamable HTTP',
    )
    .requiredOption(
      '-a, --agent <module|react>',
      '.ts or .js file exporting an AgentModule subclass, or "react" for the built-in ReActAgent',
    )
    .option('--export <name>', 'export of the agent class')
    .option('--name <id>', 'the agent\'s name in the tool name (default: "react", or the module file name)')
    .option('-m, --model <provider:model>', 'model of the agent')
    .option(
      '--serve-model <provider:model>',
      'also offer the agent on this model, as run_<name>@<provider:model> (repeatable)',
      (v: string, p: string[]) => [...p, v],
      [],
    )
    .option('-c, --config <file.yaml>', 'config file (flags override it)')
    .option('--http', 'serve streamable HTTP at http://<host>:<port>/mcp instead of stdio')
    .option('--host <host>', 'address for --http; other than loopback, QITOS_SERVE_TOKEN must be set', '127.0.0.1')
    .option('--port <n>', 'port for --http (0: any free port)', nonNegativeInt, 8788)
    .option(
      '--max-runs <n>',
      'runs at once (over every session); a call past it is a tool error (default 8)',
      positiveInt,
    )
    .option(
      '--allowed-host <name[:port]>',
      'for --http: also answer requests naming this Host (repeatable; others get 403)',
      (v: string, p: string[]) => [...p, v],
      [],
    )
    .option('--max-connections <n>', 'for --http: open connections at once (default 128)', positiveInt)
    .option(
      '--headers-timeout <ms>',
      "for --http: time a client has to send a request's headers (default 10000)",
      positiveInt,
    )
    .option(
      '--request-timeout <ms>',
      'for --http: time a client has to send a whole request (default 60000)',
      positiveInt,
    )
    .option('--trace-dir <dir>', 'folder for traces (default: traces)')
    .option('--max-steps <n>', 'step budget of each run', positiveInt)
    .option('-w, --workspace <dir>', "workspace folder the agent's file and shell tools work in (a jailed host env)")
    .addHelpText(
      'after',
      '\nExample (an MCP host\'s config):\n  { "command": "npx", "args": ["qitos", "mcp", ' +
        '"serve", "--agent", "react", "--model", "openai:gpt-4o-mini"] }\n  $ qitos mcp serve ' +
        '--agent ./agent.ts --http --port 8788\n',
    )
    .action(async function (this: Command, flags: McpServeFlags) {
      const { mcpServeAction } = await import('./mcp-serve-action.js');
      await mcpServeAction(ioOf(this), flags);
    });
}

import type { Command } from 'commander';
import { ioOf } from '../io.js';
import type { ServeFlags } from './command-flags.js';
import { nonNegativeInt, positiveInt, repeatable, SET_HELP } from '../option-parsers.js';
import { withOtelOptions } from '../otel-options.js';

const collect = (value: string, previous: string[]) => [...previous, value];

/** `qitos serve --agent <module|react>`: the agent behind an OpenAI-compatible HTTP API, with runs and skills. */
export function registerServeCommand(program: Command): void {
  withOtelOptions(
    program
      .command('serve')
      .description(
        'serve an agent behind an OpenAI-compatible API (POST /v1/chat/completions), with its runs and the skills API',
      )
      .requiredOption(
        '-a, --agent <module|react>',
        '.ts or .js file exporting an AgentModule subclass, or "react" for the built-in ReActAgent',
      )
      .option(
        '--export <name>',
        'export of the agent class (default: the default export, else the one AgentModule subclass)',
      )
      .option(
        '--name <id>',
        'the model id clients name to reach this agent (default: "react", or the module file name)',
      )
      .option('-m, --model <provider:model>', 'model of the agent, e.g. openai:gpt-4o-mini or scripted:replies.json')
      .option(
        '--serve-model <provider:model>',
        'also offer the agent on this model, as "<name>@<provider:model>" (repeatable)',
        collect,
        [],
      )
      .option('-c, --config <file.yaml>', 'config file (flags override it)')
      .option('--host <host>', 'address to listen on; other than loopback, QITOS_SERVE_TOKEN must be set', '127.0.0.1')
      .option('--port <n>', 'port to listen on (0: any free port)', nonNegativeInt, 8787)
      .option('--max-runs <n>', 'runs at once; more are answered 429 (default 8)', positiveInt)
      .option(
        '--allowed-host <name[:port]>',
        'also answer requests naming this Host, e.g. a proxy in front (repeatable; others get 403)',
        collect,
        [],
      )
      .option('--max-connections <n>', 'open connections at once (default 128)', positiveInt)
      .option('--headers-timeout <ms>', "time a client has to send a request's headers (default 10000)", positiveInt)
      .option(
        '--request-timeout <ms>',
        'time a client has to send a whole request, headers and body (default 60000)',
        positiveInt,
      )
      .option('--skills-root <dir>', "skills root managed by /v1/skills (its skills are also the agent's)")
      .option('--trace-dir <dir>', 'folder for traces (default: traces)'),
  )
    .option('--max-steps <n>', 'step budget of each run', positiveInt)
    .option(
      '-w, --workspace <dir>',
      "workspace folder the agent's file and shell tools work in (a jailed host env; the config's env: otherwise)",
    )
    .option('--set <key=value>', SET_HELP, repeatable, [])
    .option(
      '--permission <file>',
      "permission rules (YAML or JSON, opencode's shape) replacing the config's permission: section",
    )
    .addHelpText(
      'after',
      '\nThe bearer token clients must send is read from QITOS_SERVE_TOKEN (optional on ' +
        'loopback).\n\nExample:\n  $ qitos serve --agent react --model openai:gpt-4o-mini\n  $ ' +
        'QITOS_SERVE_TOKEN=s3cret qitos serve --agent examples/calculator-agent.ts --host 0.0.0.0 ' +
        '--port 8080\n  $ qitos serve --agent examples/file-editor-agent.ts --workspace ./repo --model openai:gpt-4o-mini\n  $ curl -s localhost:8787/v1/chat/completions -H "content-type: ' +
        'application/json" \\\n      -d ' +
        '\'{"model":"react","messages":[{"role":"user","content":"What is 17 * 23?"}]}\'\n',
    )
    .action(async function (this: Command, flags: ServeFlags) {
      const { serveAction } = await import('./serve-action.js');
      await serveAction(ioOf(this), flags);
    });
}

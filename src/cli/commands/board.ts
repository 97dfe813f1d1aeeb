import type { Command } from 'commander';
import { ioOf } from '../io.js';
import { nonNegativeInt, positiveInt } from '../option-parsers.js';
import type { BoardFlags } from './command-flags.js';

const collect = (value: string, previous: string[]) => [...previous, value];

/** `qitos board [dir...]`: a local web app over traces folders and bench output folders. */
export function registerBoardCommand(program: Command): void {
  program
    .command('board')
    .description(
      'browse runs in a local web app: search, sort, open a run in the viewer, compare two side ' +
        'by side, bench folders with their reports; running runs update live',
    )
    .argument('[dir...]', 'traces folders and bench output folders (default: traces)')
    .option('--host <host>', 'address to listen on; other than loopback, QITOS_SERVE_TOKEN must be set', '127.0.0.1')
    .option('--port <n>', 'port to listen on (0: any free port)', nonNegativeInt, 8789)
    .option(
      '--allowed-host <name[:port]>',
      'also answer requests naming this Host, e.g. a proxy in front (repeatable; others get 403)',
      collect,
      [],
    )
    .option('--no-cache', 'read every manifest at start (no index cache in $XDG_CACHE_HOME/qitos/board)')
    .option('--depth <n>', 'levels of sub-folders searched for runs (default 4)', positiveInt)
    .option('--poll <ms>', 'how often the page asks for changes (default 2000)', positiveInt)
    .option('--max-connections <n>', 'open connections at once (default 128)', positiveInt)
    .option('--headers-timeout <ms>', "time a client has to send a request's headers (default 10000)", positiveInt)
    .option(
      '--request-timeout <ms>',
      'time a client has to send a whole request, headers and body (default 60000)',
      positiveInt,
    )
    .addHelpText(
      'after',
      '\nThe token is read from QITOS_SERVE_TOKEN (optional on loopback); a browser opens ' +
        '/?token=<token> once.\n\nExample:\n  $ qitos board traces bench-out\n  $ qitos board ' +
        'runs/ --port 0\n',
    )
    .action(async function (this: Command, dirs: string[], flags: BoardFlags) {
      const { boardAction } = await import('./board-action.js');
      await boardAction(ioOf(this), dirs, flags);
    });
}

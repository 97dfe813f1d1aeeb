import type { Command } from 'commander';
import { ioOf } from '../io.js';

/** `qitos init [dir]`: writes a starter project (agent, qitos.yaml, suite, test) that runs offline at once. */
export function registerInitCommand(program: Command): void {
  program
    .command('init')
    .description('create a project to start from: an agent, qitos.yaml, a suite with a scorer, a test (offline)')
    .argument('[dir]', 'folder to create it in (made if missing; must be empty unless --force)', '.')
    .option('--force', 'write into a folder that is not empty (files of the same names are replaced)')
    .option('--json', 'print the folder and the files written as JSON')
    .addHelpText(
      'after',
      '\nExample:\n  $ qitos init my-agent && cd my-agent && npm install && npm test\n  $ npm ' +
        'run run     # one run, offline\n  $ npm run bench   # the suite, offline\n',
    )
    .action(async function (this: Command, dir: string, opts: { force?: boolean; json?: boolean }) {
      const { initAction } = await import('./init-action.js');
      await initAction(ioOf(this), dir, opts);
    });
}

#!/usr/bin/env node
// Loads the TypeScript sources at run time with tsx (no build step), then runs the CLI.
import { register } from 'tsx/esm/api';

// `qitos … | head` closes our stdout early: stop quietly, as Unix tools do, instead of crashing on EPIPE.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    process.nextTick(() => {
      throw err;
    });
  });
}

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));

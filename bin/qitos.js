#!/usr/bin/env node
// The `qitos` command. An installed package runs the compiled JavaScript in dist/ with plain node. A source
// checkout (src/ is present; the package does not ship it) always runs the TypeScript sources through tsx, so
// a dist/ left over from an earlier build can never stand in for the code being worked on.
import { existsSync } from 'node:fs';

// `qitos … | head` closes our stdout early: stop quietly, as Unix tools do, instead of crashing on EPIPE.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    process.nextTick(() => {
      throw err;
    });
  });
}

const source = new URL('../src/cli/main.ts', import.meta.url);
let entry = new URL('../dist/cli/main.js', import.meta.url);
if (existsSync(source)) {
  // As src/app/user-module.ts registers tsx for an installed package: both hooks, stacks at .ts lines.
  process.setSourceMapsEnabled(true);
  const [{ register }, cjs] = await Promise.all([import('tsx/esm/api'), import('tsx/cjs/api')]);
  register();
  cjs.register();
  entry = source;
}

let main;
try {
  ({ main } = await import(entry.href));
} catch (err) {
  // Only a broken install gets here (a dependency missing from node_modules): say which, in one line.
  process.stderr.write(
    `qitos: cannot start: ${String(err?.message ?? err).split('\n')[0]} (reinstall qitos-ts and its dependencies)\n`,
  );
  if (process.env.QITOS_DEBUG) process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(2);
}
process.exitCode = await main(process.argv.slice(2));

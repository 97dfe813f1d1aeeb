#!/usr/bin/env node
// Loads the TypeScript sources at run time with tsx (no build step), then runs the CLI.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));

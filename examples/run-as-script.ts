import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Runs `main` when the module at `moduleUrl` (its `import.meta.url`) is the script node was started with, and
 * not when a test, the CLI or another example imports it. A failure prints its message and sets exit code 1.
 */
export function runAsScript(moduleUrl: string, main: () => Promise<void>): void {
  if (!process.argv[1] || resolve(process.argv[1]) !== fileURLToPath(moduleUrl)) return;
  main().catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exitCode = 1;
  });
}

import type { Redactor } from '../core/index.js';

/**
 * What the application layer needs of its caller: where lines go, which folder relative paths are resolved
 * against, the environment (API keys, CI) and the caller's secrets. The CLI's `CliIO` is one; a server or a test
 * passes its own.
 */
export interface AppIO {
  /** Where results go (a command's standard output). */
  out(text: string): void;
  /** Where warnings and notes go (a command's standard error). */
  err(text: string): void;
  /** Folder relative paths are resolved against. */
  cwd: string;
  /** Environment (API keys for providers, CI). */
  env: Record<string, string | undefined>;
  /**
   * The secrets of this caller's runs: what `out` and `err` print, the traces and the server's answers pass
   * through it. MCP servers add their expanded `${VAR}` values.
   */
  redactor?: Redactor;
}

import { DEFAULT_INHERITED_ENV_VARS } from '@modelcontextprotocol/sdk/client/stdio.js';

/** The variables of this process an MCP server inherits; everything else must be passed in `env`. */
export const MCP_INHERITED_ENV = ['PATH', 'HOME', 'LANG'] as const;

/**
 * The environment of an MCP server subprocess: PATH, HOME and LANG from this process plus `extra`, never the
 * whole `process.env` (API keys stay out of third-party servers). The SDK's transport merges its own defaults
 * (USER, SHELL, TERM, ...) under ours; those not in the allow-list are set to undefined, which Node's spawn drops.
 */
export function mcpEnv(extra: Record<string, string> = {}, from: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string | undefined> = {};
  for (const key of DEFAULT_INHERITED_ENV_VARS) env[key] = undefined;
  for (const key of MCP_INHERITED_ENV) {
    const value = from[key];
    if (value !== undefined) env[key] = value;
  }
  Object.assign(env, extra);
  // spawn's typing wants strings; undefined values are documented to be ignored by child_process
  return env as Record<string, string>;
}

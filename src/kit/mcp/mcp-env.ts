/** The variables of this process an MCP server inherits; everything else must be passed in `env`. */
export const MCP_INHERITED_ENV = ['PATH', 'HOME', 'LANG'] as const;

/**
 * The environment of an MCP server subprocess: PATH, HOME and LANG from this process plus `extra`, never the
 * whole `process.env` (API keys stay out of third-party servers). The SDK's transport merges its own defaults
 * (`sdkDefaults`: USER, SHELL, TERM, ...) under ours; those not in the allow-list are set to undefined, which
 * Node's spawn drops.
 */
export function mcpEnv(
  extra: Record<string, string> = {},
  from: Record<string, string | undefined> = process.env,
  sdkDefaults: readonly string[] = [],
): Record<string, string> {
  const env: Record<string, string | undefined> = {};
  for (const key of sdkDefaults) env[key] = undefined;
  for (const key of MCP_INHERITED_ENV) {
    const value = from[key];
    if (value !== undefined) env[key] = value;
  }
  Object.assign(env, extra);
  // spawn's typing wants strings; undefined values are documented to be ignored by child_process
  return env as Record<string, string>;
}

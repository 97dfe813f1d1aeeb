const MAX_ID = 64;

/**
 * The id an MCP tool gets in qitos: `${server}_${tool}` with every character outside `[a-zA-Z0-9_-]`
 * replaced by `_` and cut to 64 characters (what every model provider accepts as a tool name).
 */
export function mcpToolId(server: string, tool: string): string {
  return `${server}_${tool}`.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, MAX_ID);
}

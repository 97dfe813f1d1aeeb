import '../../core/zod-version.js'; // first: a zod older than 4 stops here with the fix, not deep inside another module
export { connectMcp, McpServerConfig, MCP_DEFAULT_TIMEOUT_MS, type McpConnection } from './connect-mcp.js';
export { mcpEnv, MCP_INHERITED_ENV } from './mcp-env.js';
export { mcpParameters, type McpParameters } from './mcp-parameters.js';
export { mcpToolOutput, mcpErrorText, type McpContent } from './mcp-result.js';
export { mcpToolId } from './mcp-tool-id.js';

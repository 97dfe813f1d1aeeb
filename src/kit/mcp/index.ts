import '../../core/zod-version.js'; // first: a zod older than 4 stops here with the fix, not deep inside another module
export {
  McpConfig,
  McpServerConfig,
  McpStdioServerConfig,
  McpHttpServerConfig,
  McpServerName,
  McpToolFilter,
  McpElicitationConfig,
  McpSamplingConfig,
  parseMcpConfig,
  MCP_DEFAULT_TIMEOUT_MS,
  MCP_DEFAULT_MAX_MESSAGE_BYTES,
  MCP_DEFAULT_SAMPLING_MAX_TOKENS,
} from './mcp-config.js';
export {
  McpManager,
  type McpManagerOptions,
  type McpServerStatus,
  type McpServerState,
  type McpEvent,
  type McpRunBinding,
} from './mcp-manager.js';
export { McpSession, type McpSessionHooks, type McpCallOptions, type McpTransportKind } from './mcp-session.js';
export { McpRunPolicy, MAX_REFS_PER_MESSAGE, runModelSampler, type McpSamplerFactory } from './mcp-run-policy.js';
export { convertMcpTool, type McpToolTarget, type ConvertedMcpTool } from './convert-mcp-tool.js';
export { listMcpResourcesTool } from './list-mcp-resources-tool.js';
export { readMcpResourceTool } from './read-mcp-resource-tool.js';
export { mcpPromptTask, promptToTask, parsePromptRef, MCP_PROMPT_FILES } from './mcp-prompt-task.js';
export { samplingRequest, samplingResult, type McpSampler } from './mcp-sampling.js';
export { answerElicitation, type ElicitationAnswer } from './mcp-elicitation.js';
export { formatMcpUri, parseMcpUri, findMcpUris, type McpResourceRef } from './mcp-uri.js';
export { mcpResourceParts, type McpResourceContents, type McpResourceParts } from './mcp-resource-parts.js';
export { expandVars, expandServerConfig, recordableMcpConfig, MCP_REDACTED } from './mcp-vars.js';
export { toolAllowed, wildcardMatch } from './mcp-tool-filter.js';
export { cappedFetch, McpMessageTooLargeError } from './capped-fetch.js';
export { mcpEnv, MCP_INHERITED_ENV } from './mcp-env.js';
export { mcpParameters, type McpParameters } from './mcp-parameters.js';
export { mcpToolOutput, mcpErrorText, type McpContent } from './mcp-result.js';
export { mcpToolId } from './mcp-tool-id.js';

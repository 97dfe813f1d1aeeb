import '../core/zod-version.js'; // first: a zod older than 4 stops here with the fix, not deep inside another module
export { createServeApp, type ServeApp } from './serve-app.js';
export { startServer, isLoopback, type StartServerOptions, type RunningServer } from './start-server.js';
export { SERVE_DEFAULTS, type ServeAppOptions, type ConnectionLimits } from './serve-options.js';
export type { ServedAgent } from '../app/served-agents.js';
export { LocalServerGuard, type LocalServerGuardOptions } from './local-server-guard.js';
export { ChatCompletionRequest, chatTask, ChatRequestError, type ChatTask } from './chat-request.js';
export { HttpError, type OpenAIErrorBody } from './openai-error.js';
/** @experimental The board's view of running runs (`createServeApp(...).runs`): its shape follows the board. */
export { LiveRun, LiveRuns } from './live-runs.js';
export { agentMcpServer, runToolName } from './agent-mcp-server.js';
export { startMcpHttpServer, type McpHttpServerOptions, type McpHttpServer } from './mcp-http-server.js';

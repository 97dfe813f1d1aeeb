/** Built-in tools: files, shell, search, edit, todos, web, sub-agents, arithmetic, time, platform. */
import '../../core/zod-version.js'; // first: a zod older than 4 stops here with the fix, not deep inside another module
export { bashTool, type BashToolOptions } from './bash-tool.js';
export { readTool, type ReadToolOptions } from './read-tool.js';
export { writeTool } from './write-tool.js';
export { editTool } from './edit-tool.js';
export { globTool, type GlobToolOptions } from './glob-tool.js';
export { grepTool, type GrepToolOptions } from './grep-tool.js';
export { TodoItem, TodoStore, renderTodos } from './todo-store.js';
export { todoWriteTool } from './todo-write-tool.js';
export { todoReadTool } from './todo-read-tool.js';
export {
  webFetchTool,
  fetchAllowed,
  fetchSettings,
  type WebFetchToolOptions,
  type FetchSettings,
  type FetchedPage,
} from './web-fetch-tool.js';
export { hostAllowed, parseAllowedHost, type AllowedHost } from './web-fetch-hosts.js';
export {
  pinnedLookup,
  addressRange,
  systemResolver,
  type Resolver,
  type ResolvedAddress,
} from './web-fetch-address.js';
export { htmlToText, htmlTitle, decodeEntities, stripNonContent } from './html-to-text.js';
export { taskTool, type TaskToolOptions, type SubAgentRequest, type SubAgentSpec } from './task-tool.js';
export { calculateTool } from './calculate-tool.js';
export { repoDiffTool } from './repo-diff-tool.js';
export { evaluateArithmetic, formatNumber, ArithmeticError, FUNCTIONS as ARITHMETIC_FUNCTIONS } from './arithmetic.js';
export { datetimeTool, zonedParts, type DatetimeToolOptions } from './datetime-tool.js';
export { platformTool } from './platform-tool.js';
export { webSearchTool } from './web-search-tool.js';
export { codeSearchTool } from './code-search-tool.js';
export type { WebSearchBackend, WebSearchHit, CodeSearchBackend, CodeSearchHit } from './search-backend.js';
export { builtinTools, type BuiltinToolsOptions } from './builtin-tools.js';
export {
  truncateOutput,
  cutToBytes,
  formatBytes,
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_LINES,
  type OutputLimits,
  type Truncated,
} from './truncate-output.js';
export { looksBinary } from './binary-content.js';
export { toolError } from './tool-env.js';

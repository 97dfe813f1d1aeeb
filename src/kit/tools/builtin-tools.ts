import type { AnyTool } from '../../core/index.js';
import { bashTool, type BashToolOptions } from './bash-tool.js';
import { calculateTool } from './calculate-tool.js';
import { codeSearchTool } from './code-search-tool.js';
import { datetimeTool, type DatetimeToolOptions } from './datetime-tool.js';
import { editTool } from './edit-tool.js';
import { globTool, type GlobToolOptions } from './glob-tool.js';
import { grepTool, type GrepToolOptions } from './grep-tool.js';
import { platformTool } from './platform-tool.js';
import { readTool, type ReadToolOptions } from './read-tool.js';
import type { CodeSearchBackend, WebSearchBackend } from './search-backend.js';
import { taskTool, type TaskToolOptions } from './task-tool.js';
import { todoReadTool } from './todo-read-tool.js';
import { TodoStore } from './todo-store.js';
import { todoWriteTool } from './todo-write-tool.js';
import { webFetchTool, type WebFetchToolOptions } from './web-fetch-tool.js';
import { webSearchTool } from './web-search-tool.js';
import { writeTool } from './write-tool.js';

/** Options of {@link builtinTools}. */
export interface BuiltinToolsOptions {
  /** Options of bash, or `false` to leave it out (for an env without the `process` group, e.g. MemoryEnv). */
  bash?: BashToolOptions | false;
  read?: ReadToolOptions;
  glob?: GlobToolOptions;
  grep?: GrepToolOptions;
  datetime?: DatetimeToolOptions;
  /** The todo store both todo tools share (default a new one). */
  todos?: TodoStore;
  /** Adds web_fetch with these options (it needs an allow-list, so it is off unless given). */
  webFetch?: WebFetchToolOptions;
  /** Adds task with this sub-agent factory. */
  task?: TaskToolOptions;
  /** Adds web_search with this backend. */
  webSearch?: WebSearchBackend;
  /** Adds code_search with this backend. */
  codeSearch?: CodeSearchBackend;
  /** Tool ids to leave out. */
  exclude?: string[];
}

/**
 * The default tool set: bash, read, write, edit, glob, grep, todo_write, todo_read, calculate, datetime,
 * platform; plus web_fetch, task, web_search and code_search when their options are given (each needs
 * something only the user can supply: an allow-list, a sub-agent, a search backend).
 */
export function builtinTools(options: BuiltinToolsOptions = {}): AnyTool[] {
  const todos = options.todos ?? new TodoStore();
  const tools: AnyTool[] = [
    ...(options.bash === false ? [] : [bashTool(options.bash)]),
    readTool(options.read),
    writeTool(),
    editTool(),
    globTool(options.glob),
    grepTool(options.grep),
    todoWriteTool({ store: todos }),
    todoReadTool({ store: todos }),
    calculateTool(),
    datetimeTool(options.datetime),
    platformTool(),
    ...(options.webFetch ? [webFetchTool(options.webFetch)] : []),
    ...(options.task ? [taskTool(options.task)] : []),
    ...(options.webSearch ? [webSearchTool(options.webSearch)] : []),
    ...(options.codeSearch ? [codeSearchTool(options.codeSearch)] : []),
  ];
  const exclude = new Set(options.exclude ?? []);
  return tools.filter((t) => !exclude.has(t.id));
}

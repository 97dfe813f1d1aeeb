import type { ToolContext } from '../../core/index.js';
import { toolError } from './tool-env.js';
import { TodoStore } from './todo-store.js';

/** The store a todo tool uses: its own (from the factory) or the engine's `services.todos`. */
export function todoStoreOf(own: TodoStore | undefined, ctx: ToolContext, tool: string): TodoStore {
  if (own) return own;
  const s = ctx.services.todos;
  if (s instanceof TodoStore) return s;
  throw toolError(
    `tool "${tool}" has no todo store: create the todo tools with a shared store ` +
      `(todoWriteTool({ store }), todoReadTool({ store }) or builtinTools()), or pass services: ` +
      `{ todos: new TodoStore() } to the Engine`,
  );
}

import { z } from 'zod';
import { defineTool } from '../../core/index.js';
import { renderTodos, type TodoStore } from './todo-store.js';
import { todoStoreOf } from './todo-tool-store.js';

/** `todo_read`: the run's current todo list. */
export function todoReadTool(options: { store?: TodoStore } = {}) {
  return defineTool({
    id: 'todo_read',
    description: 'Show your current todo list for this task.',
    parameters: z.object({}),
    execute(_args, ctx) {
      const todos = todoStoreOf(options.store, ctx, 'todo_read').get(ctx.runId);
      return { output: renderTodos(todos), title: `${todos.length} todos`, metadata: { todos } };
    },
  });
}

import { z } from 'zod';
import { defineTool } from '../../core/index.js';
import { TodoItem, renderTodos, type TodoStore } from './todo-store.js';
import { todoStoreOf } from './todo-tool-store.js';
import { toolError } from './tool-env.js';

/** `todo_write`: replaces the run's todo list (see {@link TodoStore} for where it lives). */
export function todoWriteTool(options: { store?: TodoStore } = {}) {
  return defineTool({
    id: 'todo_write',
    description:
      'Replace your todo list for this task with the given items (send the whole list every time). ' +
      'Use it to plan multi-step work and to mark progress: at most one item in_progress; mark items completed as soon as they are done.',
    parameters: z.object({ todos: z.array(TodoItem).max(200).describe('The complete todo list.') }),
    execute(args, ctx) {
      const store = todoStoreOf(options.store, ctx, 'todo_write');
      const ids = new Set<string>();
      for (const t of args.todos) {
        if (ids.has(t.id)) throw toolError(`todo id "${t.id}" is used twice; give every item its own id.`);
        ids.add(t.id);
      }
      const active = args.todos.filter((t) => t.status === 'in_progress');
      if (active.length > 1)
        throw toolError(
          `${active.length} items are in_progress (${active.map((t) => t.id).join(', ')}); keep at most one in progress.`,
        );
      store.set(ctx.runId, args.todos);
      return { output: renderTodos(args.todos), title: `${args.todos.length} todos`, metadata: { todos: args.todos } };
    },
  });
}

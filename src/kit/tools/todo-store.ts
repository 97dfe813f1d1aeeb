import { z } from 'zod';

/** One todo item. */
export const TodoItem = z.object({
  id: z.string().min(1).describe('Short stable id, e.g. "1" or "tests".'),
  content: z.string().min(1).describe('What to do, in one line.'),
  status: z
    .enum(['pending', 'in_progress', 'completed', 'cancelled'])
    .describe('pending, in_progress (at most one at a time), completed or cancelled.'),
  priority: z.enum(['high', 'medium', 'low']).optional(),
});
export type TodoItem = z.infer<typeof TodoItem>;

/**
 * Where todo lists live while runs go on: one list per run id, so concurrent runs of one engine (and a
 * parent and its sub-agents) never mix. Tools cannot change the run's state (state changes belong in
 * `reduce`), so `todo_write` writes here and also returns the list in its result metadata (`todos`),
 * which is how the list reaches the trace and, for an agent that wants it in state, its `reduce`.
 * Pass one instance to both tools (`builtinTools` does), or put it in the engine's `services.todos`.
 */
export class TodoStore {
  private readonly lists = new Map<string, TodoItem[]>();

  get(runId: string): TodoItem[] {
    return (this.lists.get(runId) ?? []).map((t) => ({ ...t }));
  }

  set(runId: string, todos: TodoItem[]): void {
    this.lists.set(
      runId,
      todos.map((t) => ({ ...t })),
    );
  }

  /** Forgets a run's list (e.g. when the run is over). */
  clear(runId: string): void {
    this.lists.delete(runId);
  }
}

const MARK: Record<TodoItem['status'], string> = {
  pending: '[ ]',
  in_progress: '[>]',
  completed: '[x]',
  cancelled: '[-]',
};

/** The list as the model reads it: one line per item and a count per status. */
export function renderTodos(todos: TodoItem[]): string {
  if (todos.length === 0) return '(the todo list is empty)';
  const lines = todos.map((t) => `${MARK[t.status]} ${t.id}: ${t.content}${t.priority ? ` (${t.priority})` : ''}`);
  const count = (s: TodoItem['status']) => todos.filter((t) => t.status === s).length;
  lines.push(
    '',
    `${count('completed')} completed, ${count('in_progress')} in progress, ${count('pending')} pending, ${count('cancelled')} cancelled`,
  );
  return lines.join('\n');
}

import type { VariableProvider } from './variable-engine.js';
import { readPath } from './variable-engine.js';

/**
 * Task fields from the context: `{{task}}` (the objective), `{{task.id}}`, `{{task.objective}}`,
 * `{{task.inputs.<key>}}`, `{{task.metadata.<key>}}` (nested keys with dots; objects render as JSON).
 */
export function taskProvider(): VariableProvider {
  return {
    name: 'task',
    resolve(name, _arg, ctx) {
      if (name === 'task') return ctx.task?.objective;
      if (!name.startsWith('task.')) return undefined;
      return readPath(ctx.task, name.slice(5).split('.'));
    },
  };
}

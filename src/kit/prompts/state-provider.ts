import type { VariableProvider } from './variable-engine.js';
import { readPath } from './variable-engine.js';

/** State fields from the context: `{{state.step}}`, `{{state.metrics.toolCalls}}`, any dotted path. */
export function stateProvider(): VariableProvider {
  return {
    name: 'state',
    resolve(name, _arg, ctx) {
      if (!name.startsWith('state.')) return undefined;
      return readPath(ctx.state, name.slice(6).split('.'));
    },
  };
}

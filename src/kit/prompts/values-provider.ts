import type { VariableContext, VariableProvider } from './variable-engine.js';

/** A value, or a function computing it at resolve time. */
export type VariableValue = unknown | ((ctx: VariableContext, arg: string | undefined) => unknown);

/** A custom provider from a record: `valuesProvider({ project: 'qitos', user: (ctx) => ... }, 'mine')`. */
export function valuesProvider(values: Record<string, VariableValue>, name = 'values'): VariableProvider {
  const own = new Map(Object.entries(values));
  return {
    name,
    resolve(key, arg, ctx) {
      if (!own.has(key)) return undefined;
      const v = own.get(key);
      return typeof v === 'function' ? (v as (c: VariableContext, a: string | undefined) => unknown)(ctx, arg) : v;
    },
  };
}

import { envProvider } from './env-provider.js';
import { stateProvider } from './state-provider.js';
import { taskProvider } from './task-provider.js';
import { timeProvider, type TimeProviderOptions } from './time-provider.js';
import { VariableEngine, type VariableProvider } from './variable-engine.js';

/** Options of `createVariableEngine`. */
export interface CreateVariableEngineOptions extends Pick<TimeProviderOptions, 'timeZone' | 'locale' | 'now'> {
  /** Environment variables prompts may read as `{{env.NAME}}` (none by default). */
  envAllow?: readonly string[];
  /** Custom providers, asked after the built-ins. */
  providers?: VariableProvider[];
  unknown?: 'keep' | 'error';
}

/** A VariableEngine with the built-in providers: time, task, state, and env when `envAllow` is given. */
export function createVariableEngine(options: CreateVariableEngineOptions = {}): VariableEngine {
  const engine = new VariableEngine({ unknown: options.unknown });
  engine.register(timeProvider(options)).register(taskProvider()).register(stateProvider());
  if (options.envAllow?.length) engine.register(envProvider({ allow: options.envAllow }));
  for (const p of options.providers ?? []) engine.register(p);
  return engine;
}

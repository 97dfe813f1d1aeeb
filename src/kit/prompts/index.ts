import '../../core/zod-version.js'; // first: a zod older than 4 stops here with the fix, not deep inside another module
export {
  VariableEngine,
  VariableError,
  readPath,
  type VariableContext,
  type VariableProvider,
  type VariableEngineOptions,
} from './variable-engine.js';
export { timeProvider, type TimeProviderOptions } from './time-provider.js';
export { taskProvider } from './task-provider.js';
export { stateProvider } from './state-provider.js';
export { envProvider, type EnvProviderOptions } from './env-provider.js';
export { valuesProvider, type VariableValue } from './values-provider.js';
export { createVariableEngine, type CreateVariableEngineOptions } from './create-variable-engine.js';

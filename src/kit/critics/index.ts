import '../../core/zod-version.js'; // first: a zod older than 4 stops here with the fix, not deep inside another module
export { passThroughCritic } from './pass-through-critic.js';
export { selfReflectionCritic, type SelfReflectionCriticOptions } from './self-reflection-critic.js';
export {
  reactSelfReflectionCritic,
  parseReflection,
  REFLECTION_PROMPT,
  type ReactSelfReflectionOptions,
} from './react-self-reflection-critic.js';

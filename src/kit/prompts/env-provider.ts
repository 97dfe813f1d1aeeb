import type { VariableProvider } from './variable-engine.js';

/** Options of the environment provider. */
export interface EnvProviderOptions {
  /** The variable names a prompt may read; every other name is unknown (secrets stay out of prompts). */
  allow: readonly string[];
  /** Where values come from (default `process.env`, read at resolve time). */
  env?: Record<string, string | undefined>;
}

/** `{{env.NAME}}` for allow-listed environment variables only. An unset variable is unknown. */
export function envProvider(options: EnvProviderOptions): VariableProvider {
  const allow = new Set(options.allow);
  const env = options.env ?? process.env;
  return {
    name: 'env',
    resolve(name) {
      if (!name.startsWith('env.')) return undefined;
      const key = name.slice(4);
      return allow.has(key) && Object.prototype.hasOwnProperty.call(env, key) ? env[key] : undefined;
    },
  };
}

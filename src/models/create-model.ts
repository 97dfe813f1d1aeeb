import type { Model } from '../core/index.js';
import { formatZodIssues } from '../core/index.js';
import { AnthropicModel } from './anthropic.js';
import { ModelConfig } from './model-config.js';
import { ModelConfigError } from './model-config-error.js';
import { OpenAICompatibleModel } from './openai-compatible.js';
import { knownModel, providerPresets, type ProviderPreset } from './presets.js';
import { baseURLProblem, type ProviderOptions } from './provider-options.js';

/** Options of `createModel`. Anything unset comes from the environment, then the provider's preset. */
export interface CreateModelOptions extends ProviderOptions {
  apiKey?: string;
  /** Read the key from this variable instead of the preset's. */
  apiKeyEnv?: string;
  baseURL?: string;
  /** OpenAI-compatible: send reasoning back as `reasoning_content` (default: the preset's choice). */
  reasoningInput?: boolean;
  /** OpenAI-compatible: ask for usage in the stream (default true). */
  includeUsage?: boolean;
  /** OpenAI-compatible: the request field of the output limit. */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  /** Anthropic: prompt-cache breakpoints (default true). */
  cache?: boolean;
  /** Where variables are read from (default `process.env`); tests and hosts pass their own. */
  env?: Record<string, string | undefined>;
  /** Presets added to or replacing the built-in ones. */
  presets?: Record<string, ProviderPreset>;
}

/**
 * Creates a model from `"provider:model"`, e.g. `openai:gpt-4o-mini`, `deepseek:deepseek-chat`,
 * `ollama:qwen2.5:7b` (only the first colon separates), `anthropic:claude-sonnet-4-5`.
 * The base URL comes from `options.baseURL`, the preset's variable (e.g. `OPENAI_BASE_URL`), then the preset;
 * the key from `options.apiKey` or the preset's variable (e.g. `DEEPSEEK_API_KEY`). A missing key throws a
 * ModelConfigError naming the variable to set; an unknown provider one listing the known providers.
 */
export function createModel(spec: string, options: CreateModelOptions = {}): Model {
  const colon = spec.indexOf(':');
  if (colon <= 0 || colon === spec.length - 1) {
    throw new ModelConfigError(
      `invalid model "${spec}": write "provider:model", e.g. "openai:gpt-4o-mini" or "ollama:qwen2.5"`,
    );
  }
  const provider = spec.slice(0, colon);
  const model = spec.slice(colon + 1);
  const presets: Record<string, ProviderPreset> = { ...providerPresets, ...options.presets };
  const preset = Object.hasOwn(presets, provider) ? presets[provider] : undefined;
  if (!preset)
    throw new ModelConfigError(
      `unknown model provider "${provider}" in "${spec}": known providers are ${Object.keys(presets).join(', ')}`,
    );
  const env = options.env ?? process.env;

  const baseURL = options.baseURL || env[preset.baseURLEnv] || preset.baseURL;
  if (!baseURL)
    throw new ModelConfigError(
      `provider "${provider}" needs a base URL: set ${preset.baseURLEnv} or pass baseURL (e.g. http://localhost:8000/v1)`,
    );
  const urlProblem = baseURLProblem(baseURL);
  if (urlProblem) {
    const source = options.baseURL
      ? 'the baseURL option'
      : env[preset.baseURLEnv]
        ? `the environment variable ${preset.baseURLEnv}`
        : `the "${provider}" preset`;
    throw new ModelConfigError(`provider "${provider}": the base URL from ${source}, ${urlProblem}`);
  }
  const limits = knownModel(preset, model);
  const common = {
    model,
    timeoutMs: options.timeoutMs,
    maxRetries: options.maxRetries,
    retry: options.retry,
    pricing: options.pricing,
    price: options.price,
    contextWindow: options.contextWindow ?? limits.contextWindow,
    maxOutputTokens: options.maxOutputTokens ?? limits.maxOutputTokens,
    headers: options.headers,
  };

  const keyEnv = options.apiKeyEnv ?? preset.apiKeyEnv;
  const apiKey = options.apiKey || (keyEnv ? env[keyEnv] : undefined);
  // A variable the user named must hold the key, even where the provider would run without one: otherwise the
  // request goes out with a placeholder and fails later with a 401 that no longer says which variable was empty.
  if (!options.apiKey && options.apiKeyEnv && !env[options.apiKeyEnv]) {
    throw new ModelConfigError(
      `provider "${provider}": apiKeyEnv names the environment variable ${options.apiKeyEnv}, ` +
        `which is not set (or empty): set it, or remove apiKeyEnv`,
    );
  }

  if (preset.protocol === 'anthropic') {
    const authToken = apiKey ? undefined : env.ANTHROPIC_AUTH_TOKEN;
    if (!apiKey && !authToken)
      throw missingKey(provider, keyEnv ?? 'ANTHROPIC_API_KEY', ' (or ANTHROPIC_AUTH_TOKEN for a bearer token)');
    return new AnthropicModel({
      ...common,
      ...(apiKey ? { apiKey } : { authToken }),
      baseURL,
      ...(options.cache !== undefined ? { cache: options.cache } : {}),
    });
  }

  const needsKey = keyEnv !== undefined && !preset.apiKeyOptional && !preset.local;
  if (!apiKey && needsKey) throw missingKey(provider, keyEnv);
  return new OpenAICompatibleModel({
    ...common,
    provider,
    baseURL,
    // Local servers ignore the key, but the SDK insists on one.
    apiKey: apiKey || 'no-key',
    local: preset.local,
    maxTokensField: options.maxTokensField ?? preset.maxTokensField,
    reasoningInput: options.reasoningInput ?? preset.reasoningInput,
    includeUsage: options.includeUsage,
    ...(provider === 'openai' && env.OPENAI_ORG_ID ? { organization: env.OPENAI_ORG_ID } : {}),
    ...(provider === 'openai' && env.OPENAI_PROJECT_ID ? { project: env.OPENAI_PROJECT_ID } : {}),
  });
}

/**
 * Creates a model from a config object (as loaded from YAML), validated by the `ModelConfig` schema.
 * An invalid config throws a ModelConfigError naming the field.
 */
export function modelFromConfig(
  config: unknown,
  options: Pick<CreateModelOptions, 'env' | 'presets' | 'retry'> = {},
): Model {
  const parsed = ModelConfig.safeParse(config);
  if (!parsed.success)
    throw new ModelConfigError(`invalid model config:\n${formatZodIssues(parsed.error, '(model config)')}`);
  const { provider, model, ...rest } = parsed.data;
  return createModel(`${provider}:${model}`, { ...rest, ...options });
}

function missingKey(provider: string, variable: string, extra = ''): ModelConfigError {
  return new ModelConfigError(
    `no API key for provider "${provider}": set the environment variable ${variable}${extra}, or pass apiKey`,
  );
}

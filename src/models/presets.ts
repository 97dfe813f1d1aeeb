import { modelIdCandidates } from './model-id-candidates.js';

/** Context window and output limit of one model, as its provider documents them. */
export interface KnownModel {
  contextWindow?: number;
  maxOutputTokens?: number;
}

/** Everything the factory needs to reach one provider. */
export interface ProviderPreset {
  /** The `provider` part of `provider:model`. */
  name: string;
  /** Which wire protocol (and SDK) it speaks. */
  protocol: 'openai' | 'anthropic';
  /** Default server root; empty when the user must give one (`openai-compatible`). */
  baseURL: string;
  /** Environment variable that overrides `baseURL`. */
  baseURLEnv: string;
  /** Environment variable holding the API key; undefined when the server needs none. */
  apiKeyEnv?: string;
  /** The key is sent when set but not required (e.g. vLLM started without `--api-key`). */
  apiKeyOptional?: boolean;
  /** Request field for the output limit: OpenAI wants `max_completion_tokens`, most compatible servers `max_tokens`. */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  /**
   * Send earlier reasoning back as `reasoning_content` on assistant messages. DeepSeek's thinking mode and
   * Zhipu GLM's preserved thinking expect it during tool calls; other servers reject or ignore the field.
   */
  reasoningInput?: boolean;
  /** A server on your own machine: no per-token bill, so unpriced models cost 0 instead of null. */
  local?: boolean;
  /** Known limits of its models (keys: model id, date suffixes stripped when looking up). */
  models: Readonly<Record<string, KnownModel>>;
}

const gpt4o = { contextWindow: 128_000, maxOutputTokens: 16_384 };
const gpt41 = { contextWindow: 1_047_576, maxOutputTokens: 32_768 };
const oSeries = { contextWindow: 200_000, maxOutputTokens: 100_000 };
const gpt5 = { contextWindow: 400_000, maxOutputTokens: 128_000 };
const claude64k = { contextWindow: 200_000, maxOutputTokens: 64_000 };
const claude32k = { contextWindow: 200_000, maxOutputTokens: 32_000 };

/**
 * The providers `createModel` knows. A read-only table: to add or change one, pass `presets` to `createModel`.
 * Limits are the providers' published figures (late 2025); local servers' limits depend on the model you load.
 */
export const providerPresets: Readonly<Record<string, ProviderPreset>> = Object.freeze({
  openai: {
    name: 'openai',
    protocol: 'openai',
    baseURL: 'https://api.openai.com/v1',
    baseURLEnv: 'OPENAI_BASE_URL',
    apiKeyEnv: 'OPENAI_API_KEY',
    maxTokensField: 'max_completion_tokens',
    models: {
      'gpt-4o': gpt4o,
      'gpt-4o-mini': gpt4o,
      'gpt-4.1': gpt41,
      'gpt-4.1-mini': gpt41,
      'gpt-4.1-nano': gpt41,
      o3: oSeries,
      'o3-mini': oSeries,
      'o4-mini': oSeries,
      'gpt-5': gpt5,
      'gpt-5-mini': gpt5,
      'gpt-5-nano': gpt5,
    },
  },
  deepseek: {
    name: 'deepseek',
    protocol: 'openai',
    baseURL: 'https://api.deepseek.com',
    baseURLEnv: 'DEEPSEEK_BASE_URL',
    apiKeyEnv: 'DEEPSEEK_API_KEY',
    reasoningInput: true,
    models: {
      'deepseek-chat': { contextWindow: 128_000, maxOutputTokens: 8_192 },
      'deepseek-reasoner': { contextWindow: 128_000, maxOutputTokens: 65_536 },
    },
  },
  zhipu: {
    name: 'zhipu',
    protocol: 'openai',
    baseURL: 'https://open.bigmodel.cn/api/paas/v4',
    baseURLEnv: 'ZHIPU_BASE_URL',
    apiKeyEnv: 'ZHIPU_API_KEY',
    reasoningInput: true,
    models: {
      'glm-4.6': { contextWindow: 200_000, maxOutputTokens: 128_000 },
      'glm-4.5': { contextWindow: 128_000, maxOutputTokens: 96_000 },
      'glm-4.5-air': { contextWindow: 128_000, maxOutputTokens: 96_000 },
    },
  },
  qwen: {
    name: 'qwen',
    protocol: 'openai',
    baseURL: 'https://dashscope.aliyuncs.com/compatible-mode/v1',
    baseURLEnv: 'DASHSCOPE_BASE_URL',
    apiKeyEnv: 'DASHSCOPE_API_KEY',
    models: {
      'qwen-max': { contextWindow: 32_768, maxOutputTokens: 8_192 },
      'qwen-plus': { contextWindow: 131_072, maxOutputTokens: 8_192 },
      'qwen-turbo': { contextWindow: 1_000_000, maxOutputTokens: 8_192 },
    },
  },
  ollama: {
    name: 'ollama',
    protocol: 'openai',
    baseURL: 'http://localhost:11434/v1',
    baseURLEnv: 'OLLAMA_BASE_URL',
    local: true,
    models: {},
  },
  vllm: {
    name: 'vllm',
    protocol: 'openai',
    baseURL: 'http://localhost:8000/v1',
    baseURLEnv: 'VLLM_BASE_URL',
    apiKeyEnv: 'VLLM_API_KEY',
    apiKeyOptional: true,
    local: true,
    models: {},
  },
  lmstudio: {
    name: 'lmstudio',
    protocol: 'openai',
    baseURL: 'http://localhost:1234/v1',
    baseURLEnv: 'LMSTUDIO_BASE_URL',
    local: true,
    models: {},
  },
  'openai-compatible': {
    name: 'openai-compatible',
    protocol: 'openai',
    baseURL: '',
    baseURLEnv: 'OPENAI_COMPATIBLE_BASE_URL',
    apiKeyEnv: 'OPENAI_COMPATIBLE_API_KEY',
    apiKeyOptional: true,
    models: {},
  },
  anthropic: {
    name: 'anthropic',
    protocol: 'anthropic',
    baseURL: 'https://api.anthropic.com',
    baseURLEnv: 'ANTHROPIC_BASE_URL',
    apiKeyEnv: 'ANTHROPIC_API_KEY',
    models: {
      'claude-opus-4-5': claude64k,
      'claude-opus-4-1': claude32k,
      'claude-opus-4-0': claude32k,
      'claude-opus-4': claude32k,
      'claude-sonnet-4-5': claude64k,
      'claude-sonnet-4-0': claude64k,
      'claude-sonnet-4': claude64k,
      'claude-haiku-4-5': claude64k,
      'claude-3-7-sonnet': claude64k,
      'claude-3-5-haiku': { contextWindow: 200_000, maxOutputTokens: 8_192 },
    },
  },
} satisfies Record<string, ProviderPreset>);

/** Known limits of `model` in `preset`, or `{}`. */
export function knownModel(preset: ProviderPreset, model: string): KnownModel {
  for (const m of modelIdCandidates(model)) {
    const hit = preset.models[m];
    if (hit) return hit;
  }
  return {};
}

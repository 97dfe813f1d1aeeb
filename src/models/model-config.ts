import { z } from 'zod';
import { ModelPrice, PricingTable } from './pricing.js';

/**
 * A model as a config file describes it (the CLI loads it from YAML). Secrets stay in the environment:
 * the file names the variable (`apiKeyEnv`), never the key.
 */
export const ModelConfig = z
  .object({
    /** A preset name: openai, deepseek, zhipu, qwen, ollama, vllm, lmstudio, openai-compatible, anthropic. */
    provider: z.string().min(1),
    model: z.string().min(1),
    baseURL: z.url().optional(),
    /** Environment variable to read the API key from, instead of the preset's. */
    apiKeyEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name')
      .optional(),
    timeoutMs: z.number().int().positive().optional(),
    maxRetries: z.number().int().nonnegative().optional(),
    contextWindow: z.number().int().positive().optional(),
    maxOutputTokens: z.number().int().positive().optional(),
    /** Pricing entries merged over the default table. */
    pricing: PricingTable.optional(),
    /** This model's price (USD per 1M tokens), overriding any table. */
    price: ModelPrice.optional(),
    headers: z.record(z.string(), z.string()).optional(),
    /** OpenAI-compatible only: send earlier reasoning back as `reasoning_content`. */
    reasoningInput: z.boolean().optional(),
    /** OpenAI-compatible only: ask for usage in the stream (turn off for servers that reject `stream_options`). */
    includeUsage: z.boolean().optional(),
    /** OpenAI-compatible only: the request field of the output limit. */
    maxTokensField: z.enum(['max_tokens', 'max_completion_tokens']).optional(),
    /** Anthropic only: prompt-cache breakpoints (default true). */
    cache: z.boolean().optional(),
  })
  .strict();
export type ModelConfig = z.infer<typeof ModelConfig>;

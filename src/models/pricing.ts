import { z } from 'zod';
import type { Tokens } from '../core/index.js';
import { modelIdCandidates } from './model-id-candidates.js';

/** Prices of one model in USD per 1M tokens. `cacheRead`/`cacheWrite` default to `input` when a provider does not price them apart. */
export const ModelPrice = z.object({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  cacheRead: z.number().nonnegative().optional(),
  cacheWrite: z.number().nonnegative().optional(),
});
export type ModelPrice = z.infer<typeof ModelPrice>;

/** A pricing table: keys are `provider:model` or a bare model id (matched for any provider). */
export const PricingTable = z.record(z.string(), ModelPrice);
export type PricingTable = z.infer<typeof PricingTable>;

/**
 * List prices (USD per 1M tokens, standard tier, short context) published by OpenAI, Anthropic and DeepSeek,
 * as of late 2025. Prices change: pass your own table (`createModel(..., { pricing })`) to override or extend it.
 * Anthropic's cache write is the 5-minute cache price. Zhipu and Qwen are billed in several currencies and
 * tiers, so they are not listed: their cost is `null` until you price them.
 */
export const defaultPricing: Readonly<PricingTable> = Object.freeze({
  'openai:gpt-4o': { input: 2.5, output: 10, cacheRead: 1.25 },
  'openai:gpt-4o-mini': { input: 0.15, output: 0.6, cacheRead: 0.075 },
  'openai:gpt-4.1': { input: 2, output: 8, cacheRead: 0.5 },
  'openai:gpt-4.1-mini': { input: 0.4, output: 1.6, cacheRead: 0.1 },
  'openai:gpt-4.1-nano': { input: 0.1, output: 0.4, cacheRead: 0.025 },
  'openai:o3': { input: 2, output: 8, cacheRead: 0.5 },
  'openai:o3-mini': { input: 1.1, output: 4.4, cacheRead: 0.55 },
  'openai:o4-mini': { input: 1.1, output: 4.4, cacheRead: 0.275 },
  'openai:gpt-5': { input: 1.25, output: 10, cacheRead: 0.125 },
  'openai:gpt-5-mini': { input: 0.25, output: 2, cacheRead: 0.025 },
  'openai:gpt-5-nano': { input: 0.05, output: 0.4, cacheRead: 0.005 },
  'deepseek:deepseek-chat': { input: 0.28, output: 0.42, cacheRead: 0.028 },
  'deepseek:deepseek-reasoner': { input: 0.28, output: 0.42, cacheRead: 0.028 },
  'anthropic:claude-opus-4-5': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
  'anthropic:claude-opus-4-1': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  'anthropic:claude-opus-4-0': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  'anthropic:claude-opus-4': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  'anthropic:claude-sonnet-4-5': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  'anthropic:claude-sonnet-4-0': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  'anthropic:claude-sonnet-4': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  'anthropic:claude-3-7-sonnet': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  'anthropic:claude-haiku-4-5': { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
  'anthropic:claude-3-5-haiku': { input: 0.8, output: 4, cacheRead: 0.08, cacheWrite: 1 },
});

/**
 * The price of `provider:model` in `table`: an exact `provider:model` key first, then the bare model id, then
 * the model id without a date suffix (`claude-sonnet-4-5-20250929` -> `claude-sonnet-4-5`). Undefined when unknown.
 */
export function priceFor(table: Readonly<PricingTable>, provider: string, model: string): ModelPrice | undefined {
  for (const m of modelIdCandidates(model)) {
    const hit = table[`${provider}:${m}`] ?? table[m];
    if (hit) return hit;
  }
  return undefined;
}

/**
 * Cost in USD of one call. `output` already includes reasoning tokens (providers bill them as output), so
 * reasoning is not added again. An unknown price gives `null`, never 0: a budget must not read "free".
 */
export function computeCost(tokens: Tokens, price: ModelPrice | undefined): number | null {
  if (!price) return null;
  const cost =
    tokens.input * price.input +
    tokens.output * price.output +
    tokens.cache.read * (price.cacheRead ?? price.input) +
    tokens.cache.write * (price.cacheWrite ?? price.input);
  return cost / 1_000_000;
}

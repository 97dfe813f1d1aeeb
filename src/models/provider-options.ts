import type { ModelInfo } from '../core/index.js';
import { defaultPricing, priceFor, type ModelPrice, type PricingTable } from './pricing.js';
import type { RetryOptions } from './retry.js';

/** Options every remote provider model takes (Anthropic, OpenAI-compatible), and `createModel` passes through. */
export interface ProviderOptions {
  /** Per-attempt time limit in ms (default 10 minutes). */
  timeoutMs?: number;
  /** Retries after the first attempt (default 2). Shorthand for `retry.maxRetries`. */
  maxRetries?: number;
  /** Backoff tuning and an `onRetry` callback. */
  retry?: RetryOptions;
  /** Pricing entries merged over the default table. */
  pricing?: PricingTable;
  /** The price of this model, overriding any table. `null`: the price is unknown (cost null). */
  price?: ModelPrice | null;
  contextWindow?: number;
  maxOutputTokens?: number;
  /** Extra HTTP headers on every request (e.g. `anthropic-beta`). */
  headers?: Record<string, string>;
}

const DEFAULT_TIMEOUT_MS = 600_000;

/**
 * The retry and per-attempt time limit `callWithRetry` gets from provider options: `maxRetries` overrides
 * `retry.maxRetries`, and the time limit defaults to 10 minutes.
 */
export function attemptLimits(options: ProviderOptions): { retry: RetryOptions; timeoutMs: number } {
  return {
    retry: { ...options.retry, ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}) },
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  };
}

/** The ModelInfo of `provider`'s `model`: the limits are included only when the options set them. */
export function providerModelInfo(provider: string, model: string, options: ProviderOptions): ModelInfo {
  return {
    provider,
    model,
    ...(options.contextWindow ? { contextWindow: options.contextWindow } : {}),
    ...(options.maxOutputTokens ? { maxOutputTokens: options.maxOutputTokens } : {}),
  };
}

/**
 * The price of `provider`'s `model`: `options.price` when set, else the entry found in the default table with
 * `options.pricing` merged over it; undefined (cost null) when unknown or when `options.price` is `null`.
 */
export function configuredPrice(provider: string, model: string, options: ProviderOptions): ModelPrice | undefined {
  return options.price === null ? undefined : (options.price ?? priceFor({ ...defaultPricing, ...options.pricing }, provider, model));
}

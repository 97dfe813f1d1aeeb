import type { ModelInfo } from '../core/index.js';
import { formatZodIssue } from '../core/index.js';
import { ModelConfigError } from './model-config-error.js';
import { ModelPrice, PricingTable, defaultPricing, priceFor } from './pricing.js';
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
export function providerModelInfo(
  provider: string,
  model: string,
  options: ProviderOptions,
  baseURL?: string,
): ModelInfo {
  return {
    provider,
    model,
    ...(baseURL ? { endpoint: publicEndpoint(baseURL) } : {}),
    ...(options.contextWindow ? { contextWindow: options.contextWindow } : {}),
    ...(options.maxOutputTokens ? { maxOutputTokens: options.maxOutputTokens } : {}),
  };
}

/**
 * A base URL as it may be recorded and printed: user name, password, query and fragment removed (a key can
 * hide in any of them), so the endpoint names where requests went and nothing that opens it.
 */
export function publicEndpoint(baseURL: string): string {
  try {
    const u = new URL(baseURL);
    u.username = '';
    u.password = '';
    u.search = '';
    u.hash = '';
    return u.toString().replace(/\/$/, '');
  } catch {
    return '(an invalid URL)';
  }
}

/**
 * The price of `provider`'s `model`: `options.price` when set, else the entry found in the default table with
 * `options.pricing` merged over it; undefined (cost null) when unknown or when `options.price` is `null`.
 */
export function configuredPrice(provider: string, model: string, options: ProviderOptions): ModelPrice | undefined {
  return options.price === null
    ? undefined
    : (options.price ?? priceFor({ ...defaultPricing, ...options.pricing }, provider, model));
}

/**
 * Checks the options a provider model is built with, so a bad value fails at construction with a message
 * naming it, not later as a confusing call failure (a NaN `maxRetries` would otherwise retry forever, a
 * negative `timeoutMs` time out every attempt). Throws a ModelConfigError listing every problem.
 */
export function checkProviderOptions(where: string, options: ProviderOptions & { baseURL?: string }): void {
  const problems: string[] = [];
  const count = (name: string, v: number | undefined, min: number) => {
    if (v !== undefined && !(Number.isInteger(v) && v >= min))
      problems.push(`${name} must be an integer >= ${min}, got ${String(v)}`);
  };
  const ms = (name: string, v: number | undefined, min: number) => {
    if (v !== undefined && !(Number.isFinite(v) && v >= min))
      problems.push(`${name} must be a number of milliseconds >= ${min}, got ${String(v)}`);
  };
  ms('timeoutMs', options.timeoutMs, 1);
  count('maxRetries', options.maxRetries, 0);
  count('retry.maxRetries', options.retry?.maxRetries, 0);
  ms('retry.baseDelayMs', options.retry?.baseDelayMs, 0);
  ms('retry.maxDelayMs', options.retry?.maxDelayMs, 0);
  ms('retry.maxRetryAfterMs', options.retry?.maxRetryAfterMs, 0);
  count('contextWindow', options.contextWindow, 1);
  count('maxOutputTokens', options.maxOutputTokens, 1);
  if (options.price !== undefined && options.price !== null) {
    const r = ModelPrice.safeParse(options.price);
    if (!r.success) problems.push(`price: ${r.error.issues.map((i) => formatZodIssue(i, 'value')).join('; ')}`);
  }
  if (options.pricing !== undefined) {
    const r = PricingTable.safeParse(options.pricing);
    if (!r.success) problems.push(`pricing: ${r.error.issues.map((i) => formatZodIssue(i, 'value')).join('; ')}`);
  }
  if (options.baseURL !== undefined) {
    const problem = baseURLProblem(options.baseURL);
    if (problem) problems.push(`baseURL ${problem}`);
  }
  if (problems.length)
    throw new ModelConfigError(`${where}: invalid option${problems.length > 1 ? 's' : ''}: ${problems.join('; ')}`);
}

/** What is wrong with a base URL (not a URL, or not http/https), or undefined when it is fine. */
export function baseURLProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `${JSON.stringify(url)} is not a URL: write it with its scheme, e.g. http://localhost:11434/v1`;
  }
  // Credentials in the URL are never echoed: fetch refuses to send them, and the URL ends up in traces.
  if (parsed.username || parsed.password)
    return (
      `holds a user name or password (${parsed.protocol}//…@${parsed.host}), which requests ` +
      `cannot carry: pass the key as apiKey or through its environment variable`
    );
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    return `${JSON.stringify(url)} is not an http(s) URL: write it with http:// or https://, e.g. http://localhost:11434/v1`;
  // The client appends its paths (/chat/completions) to the base URL: after a query they would land inside it.
  if (parsed.search)
    return (
      `${parsed.origin}${parsed.pathname} has a query (?…), which the request paths would be ` +
      `appended to: remove it (headers or provider options carry extra parameters)`
    );
  return undefined;
}

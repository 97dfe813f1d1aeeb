import { describe, expect, it } from 'vitest';
import { attemptLimits, configuredPrice, providerModelInfo } from '../../src/models/provider-options.js';

describe('provider options', () => {
  it('configuredPrice: explicit price, then the merged table (date suffix stripped); null forces unknown', () => {
    const mine = { input: 9, output: 9 };
    expect(configuredPrice('anthropic', 'claude-sonnet-4-5', { price: mine })).toBe(mine);
    expect(configuredPrice('anthropic', 'claude-sonnet-4-5-20250929', {})).toMatchObject({ input: 3, output: 15 });
    expect(configuredPrice('openai', 'gpt-4o', { pricing: { 'openai:gpt-4o': mine } })).toBe(mine);
    expect(configuredPrice('openai', 'new-model', { pricing: { 'new-model': mine } })).toBe(mine);
    expect(configuredPrice('openai', 'gpt-4o', { price: null, pricing: { 'openai:gpt-4o': mine } })).toBeUndefined();
    expect(configuredPrice('zhipu', 'glm-4.6', {})).toBeUndefined();
  });

  it('providerModelInfo: limits only when set', () => {
    expect(providerModelInfo('ollama', 'qwen2.5', {})).toEqual({ provider: 'ollama', model: 'qwen2.5' });
    expect(providerModelInfo('openai', 'gpt-4o', { contextWindow: 128_000, maxOutputTokens: 16_384 })).toEqual({
      provider: 'openai',
      model: 'gpt-4o',
      contextWindow: 128_000,
      maxOutputTokens: 16_384,
    });
  });

  it('attemptLimits: maxRetries overrides retry.maxRetries; 10-minute default time limit', () => {
    expect(attemptLimits({})).toEqual({ retry: {}, timeoutMs: 600_000 });
    expect(attemptLimits({ timeoutMs: 5, maxRetries: 0, retry: { maxRetries: 4, baseDelayMs: 1 } })).toEqual({
      retry: { maxRetries: 0, baseDelayMs: 1 },
      timeoutMs: 5,
    });
    expect(attemptLimits({ retry: { maxRetries: 4 } }).retry.maxRetries).toBe(4);
  });
});

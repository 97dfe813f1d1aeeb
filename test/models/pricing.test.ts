import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Tokens } from '../../src/core/index.js';
import { computeCost, defaultPricing, priceFor } from '../../src/models/index.js';

const tokens = (t: Partial<Omit<Tokens, 'cache'>> & { read?: number; write?: number }): Tokens => ({
  input: t.input ?? 0,
  output: t.output ?? 0,
  reasoning: t.reasoning ?? 0,
  cache: { read: t.read ?? 0, write: t.write ?? 0 },
});

describe('pricing', () => {
  it('prices input, output and cache per 1M tokens', () => {
    const price = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
    expect(computeCost(tokens({ input: 1_000_000 }), price)).toBe(3);
    expect(computeCost(tokens({ input: 1000, output: 2000, read: 10_000, write: 4000 }), price)).toBeCloseTo(
      (3000 + 30_000 + 3000 + 15_000) / 1e6,
      12,
    );
  });

  it('does not bill reasoning twice: it is part of output', () => {
    const price = { input: 1, output: 10 };
    expect(computeCost(tokens({ output: 100, reasoning: 80 }), price)).toBe(
      computeCost(tokens({ output: 100 }), price),
    );
  });

  it('is null, never 0, when the price is unknown', () => {
    fc.assert(
      fc.property(fc.nat(), fc.nat(), (i, o) => computeCost(tokens({ input: i, output: o }), undefined) === null),
    );
  });

  it('prices cache tokens at the input price when the provider has no cache price', () => {
    expect(computeCost(tokens({ read: 1_000_000 }), { input: 2, output: 8 })).toBe(2);
  });

  it('looks prices up by provider:model, bare model, then without a date suffix', () => {
    expect(priceFor(defaultPricing, 'anthropic', 'claude-sonnet-4-5-20250929')).toEqual(
      defaultPricing['anthropic:claude-sonnet-4-5'],
    );
    expect(priceFor(defaultPricing, 'openai', 'gpt-4o-2024-08-06')).toEqual(defaultPricing['openai:gpt-4o']);
    expect(priceFor({ 'my-model': { input: 1, output: 1 } }, 'vllm', 'my-model')).toEqual({ input: 1, output: 1 });
    expect(priceFor(defaultPricing, 'deepseek', 'gpt-4o')).toBeUndefined();
    expect(priceFor(defaultPricing, 'zhipu', 'glm-4.6')).toBeUndefined();
  });

  it('is monotone in every token count', () => {
    const price = { input: 1.1, output: 4.4, cacheRead: 0.275, cacheWrite: 2 };
    const t = fc.record({ input: fc.nat(1e7), output: fc.nat(1e7), read: fc.nat(1e7), write: fc.nat(1e7) });
    fc.assert(
      fc.property(t, t, (a, b) => {
        const lo = tokens({
          input: Math.min(a.input, b.input),
          output: Math.min(a.output, b.output),
          read: Math.min(a.read, b.read),
          write: Math.min(a.write, b.write),
        });
        return computeCost(lo, price)! <= computeCost(tokens(a), price)! + 1e-12;
      }),
    );
  });
});

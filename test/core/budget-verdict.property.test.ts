import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { budgetVerdict, totalTokens, type Budget, type Usage } from '../../src/core/index.js';

const limit = (int: boolean) =>
  fc.option(int ? fc.integer({ min: 1, max: 1000 }) : fc.double({ min: 0.001, max: 1000, noNaN: true }), {
    nil: undefined,
  });
const budget: fc.Arbitrary<Budget> = fc.record({
  maxSteps: limit(true),
  maxSeconds: limit(false),
  maxTokens: limit(true),
  maxCost: limit(false),
});
const use = fc.record({
  step: fc.integer({ min: 0, max: 2000 }),
  elapsedMs: fc.integer({ min: 0, max: 2_000_000 }),
  usage: fc.record({
    tokens: fc.record({
      input: fc.nat(1500),
      output: fc.nat(500),
      reasoning: fc.constant(0),
      cache: fc.record({ read: fc.constant(0), write: fc.constant(0) }),
    }),
    cost: fc.option(fc.double({ min: 0, max: 2000, noNaN: true }), { nil: null }),
    modelCalls: fc.nat(10),
  }) as fc.Arbitrary<Usage>,
});

describe('budgetVerdict', () => {
  it(
    'stops exactly when a limit is reached, naming the first in the order steps, time, ' +
      'tokens, cost (an unknown cost reaches none)',
    () => {
      fc.assert(
        fc.property(budget, use, (b, u) => {
          const reached = [
            b.maxSteps !== undefined && u.step >= b.maxSteps ? 'budget_steps' : undefined,
            b.maxSeconds !== undefined && u.elapsedMs >= b.maxSeconds * 1000 ? 'budget_time' : undefined,
            b.maxTokens !== undefined && totalTokens(u.usage.tokens) >= b.maxTokens ? 'budget_tokens' : undefined,
            b.maxCost !== undefined && u.usage.cost !== null && u.usage.cost >= b.maxCost ? 'budget_cost' : undefined,
          ].filter((r) => r !== undefined);
          const v = budgetVerdict(b, u);
          expect(v?.reason).toBe(reached[0]);
          if (v) {
            expect(v.used).toBeGreaterThanOrEqual(v.limit);
            expect(v.message).toContain(
              `budget of ${v.kind === 'cost' ? '$' : ''}${v.limit}${v.kind === 'time' ? 's' : ''} reached`,
            );
          }
        }),
      );
    },
  );
});

import { z } from 'zod';

/** Token counts of one model step or a whole run. `input` excludes cache reads/writes. */
export const Tokens = z.object({
  input: z.number().int().nonnegative(),
  output: z.number().int().nonnegative(),
  reasoning: z.number().int().nonnegative(),
  cache: z.object({ read: z.number().int().nonnegative(), write: z.number().int().nonnegative() }),
});
export type Tokens = z.infer<typeof Tokens>;

/**
 * Usage of a run: tokens, cost and model calls, its own and those of its sub-runs (task tool, workflow branches),
 * each counted once where it was spent and rolled up. `cost` is null when any priced step had an unknown price.
 */
export const Usage = z.object({
  tokens: Tokens,
  cost: z.number().nonnegative().nullable(),
  modelCalls: z.number().int(),
});
export type Usage = z.infer<typeof Usage>;

/** Zero tokens. */
export function emptyTokens(): Tokens {
  return { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } };
}

/** Sum of two token counts (returns a new object). */
export function addTokens(a: Tokens, b: Tokens): Tokens {
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    reasoning: a.reasoning + b.reasoning,
    cache: { read: a.cache.read + b.cache.read, write: a.cache.write + b.cache.write },
  };
}

/** Adds costs where `null` (unknown) is contagious: unknown + anything = unknown. */
export function addCost(a: number | null, b: number | null): number | null {
  return a === null || b === null ? null : a + b;
}

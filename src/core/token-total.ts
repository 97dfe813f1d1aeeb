import type { Tokens } from './usage.js';

/** Total tokens counted against a token budget. (Its own module, free of zod, for `qitos runs`.) */
export function totalTokens(t: Tokens): number {
  return t.input + t.output + t.cache.read + t.cache.write;
}

import type { Score, ScoreInput } from 'qitos-ts/bench';

export function sameLetters({ answer, expected }: ScoreInput): Score {
  const pass = answer === expected;
  return { score: pass ? 1 : 0, pass, explanation: pass ? 'same' : `expected ${String(expected)}` };
}

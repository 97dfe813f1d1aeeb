import { totalTokens } from '../../core/index.js';
import { ExprError, evaluateExpr, parseExpr } from '../../kit/expr/index.js';
import type { ScoreInput, Scorer } from '../scorer.js';
import { show, verdict } from '../scorer.js';

/** The names an `expr` scorer's expression may read. */
export const EXPR_SCORER_NAMES = [
  'answer',
  'expected',
  'stopReason',
  'steps',
  'tokens',
  'cost',
  'state',
  'task',
] as const;

/** What an `expr` scorer's expression sees of a finished run (plain data; see docs/bench.md). */
export function exprScope(input: ScoreInput): Record<(typeof EXPR_SCORER_NAMES)[number], unknown> {
  return {
    answer: input.answer,
    expected: input.expected,
    stopReason: input.stopReason,
    steps: input.steps,
    tokens: input.usage ? totalTokens(input.usage.tokens) : null,
    cost: input.usage ? input.usage.cost : null,
    // Through JSON: the state is plain data in a trace, so the expression sees exactly what the trace holds.
    state: input.state === undefined ? null : JSON.parse(JSON.stringify(input.state)),
    task: input.task,
  };
}

/**
 * Scores a run with an expression of the expression language (docs/expressions.md) over the run's answer,
 * expected value, stop reason, steps, tokens, cost, final state and task: `true`/`false` is pass/fail, a number
 * from 0 to 1 is the score (a pass at `threshold`, default 1). The expression is parsed, and its names checked,
 * when the scorer is made, so a typo fails when the suite loads. An evaluation error is a scoring error (use `?.`
 * and `??` for fields a run may lack), except for a run without an answer, which fails.
 */
export function exprScorer(options: { expr: string; threshold?: number }): Scorer {
  const source = options?.expr;
  let parsed;
  try {
    parsed = parseExpr(source);
  } catch (err) {
    throw new Error(`expr scorer: ${(err as Error).message}`);
  }
  const unknown = parsed.names.filter((n) => !(EXPR_SCORER_NAMES as readonly string[]).includes(n));
  if (unknown.length)
    throw new Error(
      `expr scorer: unknown ` +
        `name${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `"${n}"`).join(', ')} ` +
        `in ${show(source)}; an expression reads ${EXPR_SCORER_NAMES.join(', ')}`,
    );
  const threshold = options.threshold ?? 1;
  const expr = parsed;
  return {
    name: 'expr',
    score(input) {
      let value;
      try {
        value = evaluateExpr(expr, exprScope(input));
      } catch (err) {
        // A run that ended without an answer fails as such (`contains(answer, "x")` cannot read null); any other
        // error (a missing field, "a" < 1) is the expression's, and is recorded as a scoring error, not a quiet fail.
        if (input.answer === null && ExprError.isInstance(err)) return verdict(false, `no answer (${err.message})`);
        throw new Error(`${show(source)}: ${(err as Error).message}`);
      }
      if (typeof value === 'boolean') return verdict(value, `${show(source)} is ${value}`);
      if (typeof value === 'number' && value >= 0 && value <= 1)
        return { score: value, pass: value >= threshold, explanation: `${show(source)} = ${value}` };
      throw new Error(
        `expr scorer: ${show(source)} gave ${show(value)}; it must give true or false, or a score from 0 to 1`,
      );
    },
  };
}

/**
 * A safe arithmetic evaluator for the `calculate` tool: the arithmetic subset of the expression language
 * (src/kit/expr), so one tokenizer and parser serve both, and no `eval` or `Function` anywhere.
 *
 * Grammar (lowest to highest precedence):
 * ```
 * expr    = term (('+' | '-') term)*
 * term    = unary (('*' | '/' | '%') unary)*
 * unary   = ('-' | '+') unary | power
 * power   = primary (('^' | '**') unary)?        right-associative; -2^2 = -(2^2) = -4
 * primary = number | constant | name '(' args ')' | '(' expr ')'
 * ```
 * Numbers: `12`, `3.5`, `.5`, `1e-3`. Constants: `pi`, `e`, `tau`. Functions: see {@link FUNCTIONS}. Names are
 * case-insensitive (`PI`, `Sqrt`).
 */
import { EXPR_MATH_FUNCTIONS, ExprError, MATH_FUNCTIONS, evaluateExpr } from '../expr/index.js';
import { parseTokens, tokenizeExpr, type Token } from '../expr/index.js';
import { markErrorClass } from '../../core/index.js';

/** An expression that cannot be evaluated; the message names the problem and its column. */
export class ArithmeticError extends ExprError {
  static {
    markErrorClass(this, 'ArithmeticError');
  }

  constructor(message: string, column?: number) {
    super(message, column);
    this.name = 'ArithmeticError';
  }
}

const MAX_LENGTH = 2000;
const MAX_DEPTH = 200;

const CONSTANTS: Record<string, number> = { pi: Math.PI, e: Math.E, tau: 2 * Math.PI };

/** Functions the evaluator knows, with their arity ([min, max]; max Infinity for variadic). */
export const FUNCTIONS = MATH_FUNCTIONS;

// The tokens of arithmetic; anything else the expression language reads (strings, comparisons, fields, `true`)
// is refused before parsing, so the parser can only build arithmetic.
const ARITHMETIC_OPS = new Set(['+', '-', '*', '/', '%', '^', '**', '(', ')', ',']);
const KEYWORDS = new Set(['true', 'false', 'null', 'in']);

function arithmeticTokens(source: string): Token[] {
  const tokens = tokenizeExpr(source);
  for (const t of tokens) {
    const bad =
      t.kind === 'str' ||
      (t.kind === 'op' && !ARITHMETIC_OPS.has(t.value)) ||
      (t.kind === 'name' && KEYWORDS.has(t.value));
    if (!bad) continue;
    const text = t.kind === 'str' ? source.slice(t.pos, t.pos + 20).split(/\s/)[0] : t.value;
    throw new ArithmeticError(
      `unexpected "${text}" at column ${t.pos + 1}: calculate takes numbers, + - * / % ^, parentheses, constants and functions`,
      t.pos + 1,
    );
  }
  return tokens;
}

/** Evaluates an arithmetic expression to a finite number, or throws ArithmeticError saying what is wrong. */
export function evaluateArithmetic(expression: string): number {
  if (typeof expression !== 'string' || !expression.trim()) throw new ArithmeticError('the expression is empty');
  if (expression.length > MAX_LENGTH)
    throw new ArithmeticError(`the expression is ${expression.length} characters long; the limit is ${MAX_LENGTH}`);
  try {
    // Lower-cased as a whole: arithmetic has no strings, so only names change (`PI`, `SQRT`).
    const source = expression.toLowerCase();
    const parsed = parseTokens(arithmeticTokens(source), source, MAX_DEPTH);
    const value = evaluateExpr(parsed, CONSTANTS, { functions: EXPR_MATH_FUNCTIONS }) as number;
    return value === 0 ? 0 : value; // no -0 in answers
  } catch (err) {
    if (ArithmeticError.isInstance(err) || !ExprError.isInstance(err)) throw err;
    throw new ArithmeticError(err.message, err.column);
  }
}

/** Formats a result without float noise: 0.1 + 0.2 -> 0.3, large and tiny values in exponent form. */
export function formatNumber(v: number): string {
  if (Number.isInteger(v) && Math.abs(v) < 1e21) return String(v);
  const p = Number(v.toPrecision(15));
  return String(p);
}

import { ExprError } from './expr-error.js';

/** A function over numbers: its arity ([min, max]; max Infinity for variadic) and implementation. */
export interface MathFunction {
  arity: readonly [number, number];
  fn: (...a: number[]) => number;
}

/** The number functions both the `calculate` tool and the expression language know. */
export const MATH_FUNCTIONS: Readonly<Record<string, MathFunction>> = Object.freeze({
  sqrt: { arity: [1, 1], fn: Math.sqrt },
  cbrt: { arity: [1, 1], fn: Math.cbrt },
  abs: { arity: [1, 1], fn: Math.abs },
  min: { arity: [1, Infinity], fn: Math.min },
  max: { arity: [1, Infinity], fn: Math.max },
  round: { arity: [1, 2], fn: (x: number, digits = 0) => roundTo(x, digits) },
  floor: { arity: [1, 1], fn: Math.floor },
  ceil: { arity: [1, 1], fn: Math.ceil },
  trunc: { arity: [1, 1], fn: Math.trunc },
  sign: { arity: [1, 1], fn: Math.sign },
  log: {
    arity: [1, 2],
    fn: (x: number, base?: number) => (base === undefined ? Math.log(x) : Math.log(x) / Math.log(base)),
  },
  ln: { arity: [1, 1], fn: Math.log },
  log10: { arity: [1, 1], fn: Math.log10 },
  log2: { arity: [1, 1], fn: Math.log2 },
  exp: { arity: [1, 1], fn: Math.exp },
  pow: { arity: [2, 2], fn: Math.pow },
  hypot: { arity: [1, Infinity], fn: Math.hypot },
  sin: { arity: [1, 1], fn: Math.sin },
  cos: { arity: [1, 1], fn: Math.cos },
  tan: { arity: [1, 1], fn: Math.tan },
  asin: { arity: [1, 1], fn: Math.asin },
  acos: { arity: [1, 1], fn: Math.acos },
  atan: { arity: [1, 1], fn: Math.atan },
  atan2: { arity: [2, 2], fn: Math.atan2 },
} satisfies Record<string, MathFunction>);

/** Rounds to `digits` decimals (0..15); the epsilon nudge makes 1.005 round to 1.01, as a reader expects. */
function roundTo(x: number, digits: number): number {
  if (!Number.isInteger(digits) || digits < 0 || digits > 15)
    throw new ExprError(`round: digits must be an integer from 0 to 15, got ${digits}`);
  const f = 10 ** digits;
  return Math.round((x + Number.EPSILON * Math.sign(x)) * f) / f;
}

/** "takes 2 arguments" / "takes at least 1 argument" / "takes 1 to 2 arguments", for arity errors. */
export function arityText(arity: readonly [number, number]): string {
  const [lo, hi] = arity;
  const want = lo === hi ? `${lo}` : hi === Infinity ? `at least ${lo}` : `${lo} to ${hi}`;
  const plural = !(lo === 1 && (hi === 1 || hi === Infinity));
  return `takes ${want} argument${plural ? 's' : ''}`;
}

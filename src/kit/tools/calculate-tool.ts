import { z } from 'zod';
import { defineTool } from '../../core/index.js';
import { ArithmeticError, FUNCTIONS, evaluateArithmetic, formatNumber } from './arithmetic.js';
import { toolError } from './tool-env.js';

/** `calculate`: evaluates an arithmetic expression with a small parser of its own (no `eval`). */
export function calculateTool() {
  return defineTool({
    id: 'calculate',
    description:
      'Evaluate an arithmetic expression exactly as written, e.g. "(2 + 3) * 4 ^ 2 / 7", "sqrt(2) * max(3, 4)", "round(pi * 2, 3)". ' +
      `Operators: + - * / % ^ (power; also **), parentheses, unary minus. Constants: pi, e, ` +
      `tau. Functions: ${Object.keys(FUNCTIONS).join(', ')}. ` +
      'Trigonometry uses radians; log(x) is natural, log(x, b) base b.',
    parameters: z.object({ expression: z.string().min(1).max(2000).describe('The expression to evaluate.') }),
    execute(args) {
      try {
        const value = evaluateArithmetic(args.expression);
        const text = formatNumber(value);
        return { output: `${args.expression.trim()} = ${text}`, title: text, metadata: { value } };
      } catch (err) {
        if (ArithmeticError.isInstance(err)) throw toolError(`cannot evaluate "${args.expression}": ${err.message}`);
        throw err;
      }
    },
  });
}

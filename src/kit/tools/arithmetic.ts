/**
 * A safe arithmetic evaluator: its own tokenizer and recursive-descent parser, no `eval` or `Function`.
 *
 * Grammar (lowest to highest precedence):
 * ```
 * expr    = term (('+' | '-') term)*
 * term    = unary (('*' | '/' | '%') unary)*
 * unary   = ('-' | '+') unary | power
 * power   = primary (('^' | '**') unary)?        right-associative; -2^2 = -(2^2) = -4
 * primary = number | constant | name '(' args ')' | '(' expr ')'
 * ```
 * Numbers: `12`, `3.5`, `.5`, `1e-3`. Constants: `pi`, `e`, `tau`. Functions: see {@link FUNCTIONS}.
 */

/** An expression that cannot be evaluated; the message names the problem and its column. */
export class ArithmeticError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ArithmeticError';
  }
}

type Token = { kind: 'num'; value: number; pos: number } | { kind: 'name'; value: string; pos: number } | { kind: 'op'; value: string; pos: number } | { kind: 'end'; pos: number };

const MAX_LENGTH = 2000;
const MAX_DEPTH = 200;

const CONSTANTS: Record<string, number> = { pi: Math.PI, e: Math.E, tau: 2 * Math.PI };

/** Functions the evaluator knows, with their arity ([min, max]; max Infinity for variadic). */
export const FUNCTIONS: Record<string, { arity: [number, number]; fn: (...a: number[]) => number }> = {
  sqrt: { arity: [1, 1], fn: Math.sqrt },
  cbrt: { arity: [1, 1], fn: Math.cbrt },
  abs: { arity: [1, 1], fn: Math.abs },
  min: { arity: [1, Infinity], fn: Math.min },
  max: { arity: [1, Infinity], fn: Math.max },
  round: { arity: [1, 2], fn: (x, digits = 0) => roundTo(x, digits) },
  floor: { arity: [1, 1], fn: Math.floor },
  ceil: { arity: [1, 1], fn: Math.ceil },
  trunc: { arity: [1, 1], fn: Math.trunc },
  sign: { arity: [1, 1], fn: Math.sign },
  log: { arity: [1, 2], fn: (x, base) => (base === undefined ? Math.log(x) : Math.log(x) / Math.log(base)) },
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
};

function roundTo(x: number, digits: number): number {
  if (!Number.isInteger(digits) || digits < 0 || digits > 15) throw new ArithmeticError(`round: digits must be an integer from 0 to 15, got ${digits}`);
  const f = 10 ** digits;
  return Math.round((x + Number.EPSILON * Math.sign(x)) * f) / f;
}

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const num = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/.exec(src.slice(i));
    if (num) {
      out.push({ kind: 'num', value: Number(num[0]), pos: i });
      i += num[0].length;
      continue;
    }
    const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i));
    if (name) {
      out.push({ kind: 'name', value: name[0].toLowerCase(), pos: i });
      i += name[0].length;
      continue;
    }
    if (src.startsWith('**', i)) {
      out.push({ kind: 'op', value: '^', pos: i });
      i += 2;
      continue;
    }
    if ('+-*/%^(),'.includes(c)) {
      out.push({ kind: 'op', value: c, pos: i });
      i++;
      continue;
    }
    throw new ArithmeticError(`unexpected character "${c}" at column ${i + 1}`);
  }
  out.push({ kind: 'end', pos: src.length });
  return out;
}

/** Evaluates an arithmetic expression to a finite number, or throws ArithmeticError saying what is wrong. */
export function evaluateArithmetic(expression: string): number {
  if (typeof expression !== 'string' || !expression.trim()) throw new ArithmeticError('the expression is empty');
  if (expression.length > MAX_LENGTH) throw new ArithmeticError(`the expression is ${expression.length} characters long; the limit is ${MAX_LENGTH}`);
  const tokens = tokenize(expression);
  let k = 0;
  let depth = 0;
  const peek = () => tokens[k];
  const isOp = (v: string) => {
    const t = tokens[k];
    return t.kind === 'op' && t.value === v;
  };
  const describe = (t: Token) => (t.kind === 'end' ? 'the end of the expression' : `"${t.kind === 'num' ? expression.slice(t.pos).match(/^[\d.eE+-]+/)?.[0] : t.value}" at column ${t.pos + 1}`);
  const expect = (v: string) => {
    if (!isOp(v)) throw new ArithmeticError(`expected "${v}" but found ${describe(peek())}`);
    k++;
  };
  const enter = () => {
    if (++depth > MAX_DEPTH) throw new ArithmeticError(`the expression nests deeper than ${MAX_DEPTH} levels`);
  };

  const expr = (): number => {
    enter();
    let v = term();
    while (isOp('+') || isOp('-')) {
      const op = (tokens[k++] as { value: string }).value;
      const r = term();
      v = op === '+' ? v + r : v - r;
    }
    depth--;
    return v;
  };
  const term = (): number => {
    let v = unary();
    while (isOp('*') || isOp('/') || isOp('%')) {
      const t = tokens[k++] as { value: string; pos: number };
      const r = unary();
      if ((t.value === '/' || t.value === '%') && r === 0) throw new ArithmeticError(`division by zero at column ${t.pos + 1}`);
      v = t.value === '*' ? v * r : t.value === '/' ? v / r : v % r;
    }
    return v;
  };
  const unary = (): number => {
    if (isOp('-') || isOp('+')) {
      const neg = isOp('-');
      k++;
      enter();
      const v = unary();
      depth--;
      return neg ? -v : v;
    }
    return power();
  };
  const power = (): number => {
    const b = primary();
    if (isOp('^')) {
      k++;
      enter();
      const x = unary();
      depth--;
      return b ** x;
    }
    return b;
  };
  const primary = (): number => {
    const t = peek();
    if (t.kind === 'num') {
      k++;
      return t.value;
    }
    if (t.kind === 'op' && t.value === '(') {
      k++;
      const v = expr();
      expect(')');
      return v;
    }
    if (t.kind === 'name') {
      k++;
      if (isOp('(')) {
        // Own properties only: `constructor(1)` or `toString(1)` must not reach Object.prototype.
        const f = Object.hasOwn(FUNCTIONS, t.value) ? FUNCTIONS[t.value] : undefined;
        if (!f) throw new ArithmeticError(`unknown function "${t.value}" at column ${t.pos + 1}; known: ${Object.keys(FUNCTIONS).join(', ')}`);
        k++;
        const args: number[] = [];
        if (!isOp(')')) {
          args.push(expr());
          while (isOp(',')) {
            k++;
            args.push(expr());
          }
        }
        expect(')');
        const [lo, hi] = f.arity;
        if (args.length < lo || args.length > hi) {
          const want = lo === hi ? `${lo}` : hi === Infinity ? `at least ${lo}` : `${lo} to ${hi}`;
          const plural = !(lo === 1 && (hi === 1 || hi === Infinity));
          throw new ArithmeticError(`${t.value} takes ${want} argument${plural ? 's' : ''}, got ${args.length}`);
        }
        return f.fn(...args);
      }
      if (Object.hasOwn(CONSTANTS, t.value)) return CONSTANTS[t.value];
      if (Object.hasOwn(FUNCTIONS, t.value)) throw new ArithmeticError(`function "${t.value}" at column ${t.pos + 1} needs arguments in parentheses, e.g. ${t.value}(2)`);
      throw new ArithmeticError(`unknown name "${t.value}" at column ${t.pos + 1}; constants are ${Object.keys(CONSTANTS).join(', ')}`);
    }
    throw new ArithmeticError(t.kind === 'end' ? 'unexpected end of the expression: an operand is missing' : `unexpected ${describe(t)}`);
  };

  const value = expr();
  if (peek().kind !== 'end') throw new ArithmeticError(`unexpected ${describe(peek())}`);
  if (Number.isNaN(value)) throw new ArithmeticError('the result is not a number (e.g. sqrt of a negative number or log of 0)');
  if (!Number.isFinite(value)) throw new ArithmeticError('the result is infinite (overflow)');
  return value === 0 ? 0 : value; // no -0 in answers
}

/** Formats a result without float noise: 0.1 + 0.2 -> 0.3, large and tiny values in exponent form. */
export function formatNumber(v: number): string {
  if (Number.isInteger(v) && Math.abs(v) < 1e21) return String(v);
  const p = Number(v.toPrecision(15));
  return String(p);
}

import { PyException } from './py-value.js';
import { pyFloatRepr } from './py-repr.js';
import { pyRoundFloat } from './py-round.js';

/**
 * The original's `calculate` tool: `str(round(float(eval(expression, {"__builtins__": None}, {})), 2))` for
 * expressions made of `0123456789+-*\/(). `, with CPython 3.11's semantics (ints are exact, `/` is true division,
 * `//` floors, `**` binds tighter than unary minus, a negative base to a fractional power is complex, `...` is
 * Ellipsis, `()` an empty tuple) and its error wording. Evaluated by a small parser, never `eval`.
 */
export function pyCalculate(expression: string): string {
  for (const ch of expression) if (!'0123456789+-*/(). '.includes(ch)) return 'Error: invalid characters in expression';
  try {
    const v = evaluate(expression);
    let f: number;
    if (v.kind === 'int') {
      f = Number(v.v);
      if (!Number.isFinite(f)) throw new PyException('OverflowError', 'int too large to convert to float');
    } else if (v.kind === 'float') f = v.v;
    else throw new PyException('TypeError', `float() argument must be a string or a real number, not '${v.kind}'`);
    return pyFloatRepr(pyRoundFloat(f, 2));
  } catch (e) {
    if (PyException.isInstance(e)) return `Error: ${e.message}`;
    throw e;
  }
}

type Val =
  | { kind: 'int'; v: bigint }
  | { kind: 'float'; v: number }
  | { kind: 'complex' }
  | { kind: 'tuple' }
  | { kind: 'ellipsis' };
type Tok = { t: 'num'; text: string; at: number } | { t: 'op'; text: string; at: number } | { t: 'end'; at: number };

/**
 * Ints past this many bits stop the evaluation (CPython would spend minutes building them; documented). Below it V8
 * builds any power in under half a second, so everything CPython answers in seconds is answered exactly.
 */
const MAX_INT_BITS = 1 << 24;

const syntax = (msg: string, line = 1): PyException =>
  new PyException('SyntaxError', `${msg} (<string>, line ${line})`);

function tokenize(src: string): Tok[] {
  const toks: Tok[] = [];
  const depth: number[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (c === ' ') {
      i++;
      continue;
    }
    if (/[0-9.]/.test(c)) {
      if (src.startsWith('...', i)) {
        toks.push({ t: 'op', text: '...', at: i });
        i += 3;
        continue;
      }
      const m = /^(?:\d+\.?\d*|\.\d+)/.exec(src.slice(i));
      if (!m) {
        toks.push({ t: 'op', text: '.', at: i });
        i++;
        continue;
      }
      const text = m[0];
      if (!text.includes('.') && text.length > 1 && text[0] === '0' && /[1-9]/.test(text)) {
        throw syntax(
          'leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers',
        );
      }
      toks.push({ t: 'num', text, at: i });
      i += text.length;
      continue;
    }
    if (c === '(') depth.push(i);
    if (c === ')') {
      if (depth.length === 0) throw syntax("unmatched ')'");
      depth.pop();
    }
    for (const op of ['**', '//', '+', '-', '*', '/', '(', ')']) {
      if (src.startsWith(op, i)) {
        toks.push({ t: 'op', text: op, at: i });
        i += op.length;
        break;
      }
    }
  }
  if (depth.length) throw syntax("'(' was never closed");
  toks.push({ t: 'end', at: src.length });
  return toks;
}

function evaluate(src: string): Val {
  if (src.trim() === '') throw syntax('invalid syntax', 0);
  const toks = tokenize(src);
  let p = 0;
  const peek = (): Tok => toks[p];
  const isOp = (text: string): boolean => {
    const t = toks[p];
    return t.t === 'op' && t.text === text;
  };
  const invalid = (): never => {
    throw syntax('invalid syntax');
  };
  const expr = (): Val => {
    let v = term();
    while (isOp('+') || isOp('-')) {
      const op = (toks[p++] as { text: string }).text;
      v = binary(op, v, term());
    }
    return v;
  };
  const term = (): Val => {
    let v = factor();
    while (isOp('*') || isOp('/') || isOp('//')) {
      const op = (toks[p++] as { text: string }).text;
      v = binary(op, v, factor());
    }
    return v;
  };
  const factor = (): Val => {
    if (isOp('+') || isOp('-')) {
      const op = (toks[p++] as { text: string }).text;
      return unary(op, factor());
    }
    return power();
  };
  const power = (): Val => {
    const base = primary();
    if (isOp('**')) {
      p++;
      return binary('**', base, factor());
    }
    return base;
  };
  const primary = (): Val => {
    const v = atom();
    while (isOp('(')) {
      p++;
      if (!isOp(')')) {
        expr();
        if (!isOp(')')) invalid();
      }
      p++;
      throw new PyException('TypeError', `'${v.kind}' object is not callable`);
    }
    return v;
  };
  const atom = (): Val => {
    const t = peek();
    if (t.t === 'num') {
      p++;
      if (t.text.includes('.')) return { kind: 'float', v: Number(t.text) };
      return { kind: 'int', v: BigInt(t.text) };
    }
    if (t.t === 'op' && t.text === '...') {
      p++;
      return { kind: 'ellipsis' };
    }
    if (t.t === 'op' && t.text === '(') {
      p++;
      if (isOp(')')) {
        p++;
        return { kind: 'tuple' };
      }
      const v = expr();
      if (!isOp(')')) invalid();
      p++;
      return v;
    }
    return invalid();
  };
  const v = expr();
  if (peek().t !== 'end') invalid();
  return v;
}

function toFloat(v: Val): number {
  if (v.kind === 'float') return v.v;
  const f = Number((v as { v: bigint }).v);
  if (!Number.isFinite(f)) throw new PyException('OverflowError', 'int too large to convert to float');
  return f;
}

function unary(op: string, v: Val): Val {
  if (v.kind === 'int') return op === '-' ? { kind: 'int', v: -v.v } : v;
  if (v.kind === 'float') return op === '-' ? { kind: 'float', v: -v.v } : v;
  if (v.kind === 'complex') return v;
  throw new PyException('TypeError', `bad operand type for unary ${op}: '${v.kind}'`);
}

/** int / int correctly rounded (CPython's long_true_divide), for operands beyond 2^53. */
function intTrueDivide(a: bigint, b: bigint): number {
  if (b === 0n) throw new PyException('ZeroDivisionError', 'division by zero');
  const small = 9007199254740992n;
  if (a <= small && a >= -small && b <= small && b >= -small) return Number(a) / Number(b);
  const neg = a < 0n !== b < 0n;
  let x = a < 0n ? -a : a;
  const y = b < 0n ? -b : b;
  if (x === 0n) return neg ? -0 : 0;
  // scale so the quotient has at least 55 significant bits, then round half-even with a sticky bit
  const shift = Math.max(0, 55 - (x.toString(2).length - y.toString(2).length));
  x <<= BigInt(shift);
  let q = x / y;
  const rem = x % y;
  if (rem !== 0n) q |= 1n; // sticky
  const r = Number(q) / 2 ** shift; // Number(q) rounds half-even; q has >= 55 bits so the sticky bit decides ties right
  if (!Number.isFinite(r)) throw new PyException('OverflowError', 'integer division result too large for a float');
  return neg ? -r : r;
}

function floatFloorDiv(vx: number, wx: number): number {
  if (wx === 0) throw new PyException('ZeroDivisionError', 'float floor division by zero');
  // CPython's float_divmod
  let mod = vx % wx;
  let div = (vx - mod) / wx;
  if (mod) {
    if (wx < 0 !== mod < 0) {
      mod += wx;
      div -= 1.0;
    }
  }
  let floordiv: number;
  if (div) {
    floordiv = Math.floor(div);
    if (div - floordiv > 0.5) floordiv += 1.0;
  } else {
    const q = vx / wx; // copysign(0.0, vx / wx)
    floordiv = q < 0 || Object.is(q, -0) ? -0 : 0;
  }
  return floordiv;
}

function binary(op: string, a: Val, b: Val): Val {
  const num = (v: Val): boolean => v.kind === 'int' || v.kind === 'float';
  if (a.kind === 'tuple' && b.kind === 'tuple' && op === '+') return { kind: 'tuple' };
  if ((a.kind === 'tuple' && b.kind === 'int') || (a.kind === 'int' && b.kind === 'tuple'))
    if (op === '*') return { kind: 'tuple' };
  if (a.kind === 'complex' || b.kind === 'complex') {
    if ((num(a) || a.kind === 'complex') && (num(b) || b.kind === 'complex') && op !== '//') {
      if (op === '/' && b.kind !== 'complex' && toFloat(b) === 0)
        throw new PyException('ZeroDivisionError', 'complex division by zero');
      return { kind: 'complex' };
    }
  }
  if (!num(a) || !num(b)) {
    throw new PyException(
      'TypeError',
      `unsupported operand type(s) for ${op === '**' ? '** or pow()' : op}: '${a.kind}' and '${b.kind}'`,
    );
  }
  if (a.kind === 'int' && b.kind === 'int') {
    const x = a.v;
    const y = b.v;
    switch (op) {
      case '+':
        return { kind: 'int', v: x + y };
      case '-':
        return { kind: 'int', v: x - y };
      case '*': {
        if (x.toString(2).length + y.toString(2).length > MAX_INT_BITS)
          throw new PyException('OverflowError', 'result too large for this port of calculate');
        return { kind: 'int', v: x * y };
      }
      case '/':
        return { kind: 'float', v: intTrueDivide(x, y) };
      case '//': {
        if (y === 0n) throw new PyException('ZeroDivisionError', 'integer division or modulo by zero');
        let q = x / y;
        if (x % y !== 0n && x < 0n !== y < 0n) q -= 1n;
        return { kind: 'int', v: q };
      }
      case '**': {
        if (y < 0n) {
          if (x === 0n) throw new PyException('ZeroDivisionError', '0.0 cannot be raised to a negative power');
          return floatPow(toFloat(a), toFloat(b));
        }
        const bits = x === 0n || x === 1n || x === -1n ? 1 : (x < 0n ? -x : x).toString(2).length * Number(y);
        if (bits > MAX_INT_BITS) throw new PyException('OverflowError', 'result too large for this port of calculate');
        return { kind: 'int', v: x ** y };
      }
    }
  }
  const x = toFloat(a);
  const y = toFloat(b);
  switch (op) {
    case '+':
      return { kind: 'float', v: x + y };
    case '-':
      return { kind: 'float', v: x - y };
    case '*':
      return { kind: 'float', v: x * y };
    case '/':
      if (y === 0) throw new PyException('ZeroDivisionError', 'float division by zero');
      return { kind: 'float', v: x / y };
    case '//':
      return { kind: 'float', v: floatFloorDiv(x, y) };
    default:
      return floatPow(x, y);
  }
}

/** CPython's float_pow. */
function floatPow(x: number, y: number): Val {
  if (y === 0) return { kind: 'float', v: 1 };
  if (Number.isNaN(x)) return { kind: 'float', v: y === 0 ? 1 : NaN };
  if (x === 0) {
    if (y < 0) throw new PyException('ZeroDivisionError', '0.0 cannot be raised to a negative power');
    return { kind: 'float', v: Number.isInteger(y) && Math.abs(y) % 2 === 1 ? x : 0 };
  }
  if (x < 0 && Number.isFinite(y) && !Number.isInteger(y)) return { kind: 'complex' };
  const r = Math.pow(x, y);
  if (!Number.isFinite(r) && Number.isFinite(x) && Number.isFinite(y))
    throw new PyException('OverflowError', "(34, 'Numerical result out of range')");
  return { kind: 'float', v: r };
}

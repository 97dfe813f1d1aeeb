import type { Scorer } from '../scorer.js';
import { show, verdict } from '../scorer.js';

const NUMBER = /[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?/g;

/**
 * Reads a number from an answer: the whole answer when it is a number (thousands separators allowed),
 * else the last number in the text ("... so the total is 1,234.5 apples" -> 1234.5). NaN when there is none.
 */
export function extractNumber(text: string): number {
  const plain = text.trim().replace(/(\d),(?=\d{3}\b)/g, '$1');
  if (plain !== '' && Number.isFinite(Number(plain))) return Number(plain);
  const all = plain.match(NUMBER);
  return all ? Number(all[all.length - 1]) : Number.NaN;
}

/**
 * Passes when the number in the answer is within `tolerance` (absolute, default 1e-9) or `relTolerance`
 * (relative to the expected value) of the expected number.
 */
export function numeric(options: { tolerance?: number; relTolerance?: number } = {}): Scorer {
  const abs = options.tolerance ?? 1e-9;
  const rel = options.relTolerance ?? 0;
  return {
    name: 'numeric',
    score({ answer, expected }) {
      if (answer === null) return verdict(false, 'no answer');
      const want =
        typeof expected === 'number' ? expected : typeof expected === 'string' ? extractNumber(expected) : Number.NaN;
      if (!Number.isFinite(want)) throw new Error(`numeric needs "expected" to be a number, got ${show(expected)}`);
      const got = extractNumber(answer);
      if (!Number.isFinite(got)) return verdict(false, `no number in answer ${show(answer)}`);
      const diff = Math.abs(got - want);
      const ok = diff <= abs || diff <= rel * Math.abs(want);
      return verdict(ok, ok ? `${got} is within tolerance of ${want}` : `${got} differs from ${want} by ${diff}`);
    },
  };
}

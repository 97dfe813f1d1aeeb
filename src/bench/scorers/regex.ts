import type { Scorer } from '../scorer.js';
import { show, verdict } from '../scorer.js';

/**
 * Passes when the answer matches a regular expression: `pattern` when given, else the task's `expected`
 * (a string). `fullMatch` anchors the pattern to the whole (trimmed) answer.
 */
export function regex(options: { pattern?: string; flags?: string; fullMatch?: boolean } = {}): Scorer {
  const fixed = options.pattern !== undefined ? compile(options.pattern, options) : undefined;
  return {
    name: 'regex',
    score({ answer, expected }) {
      if (answer === null) return verdict(false, 'no answer');
      let re = fixed;
      if (!re) {
        if (typeof expected !== 'string')
          throw new Error(
            `regex without a pattern option needs "expected" to be a pattern string, got ${show(expected)}`,
          );
        re = compile(expected, options);
      }
      const text = options.fullMatch ? answer.trim() : answer;
      const m = re.exec(text);
      return m
        ? verdict(true, `matches /${re.source}/ at ${show(m[0], 60)}`)
        : verdict(false, `does not match /${re.source}/${re.flags}`);
    },
  };
}

function compile(pattern: string, o: { flags?: string; fullMatch?: boolean }): RegExp {
  try {
    return new RegExp(o.fullMatch ? `^(?:${pattern})$` : pattern, o.flags ?? '');
  } catch (err) {
    throw new Error(`invalid regex ${show(pattern)}: ${(err as Error).message}`);
  }
}

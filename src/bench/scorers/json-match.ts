import type { Scorer } from '../scorer.js';
import { show, verdict } from '../scorer.js';
import { jsonDifference, type JsonCompareMode } from './json-compare.js';
import { extractJson } from './json-field.js';

/**
 * Parses the answer as JSON (whole, fenced or embedded) and compares the whole document with the task's `expected`:
 * `exact` (default) wants the same keys everywhere, `subset` wants at least the expected keys (extra ones are
 * fine). Numbers are equal within `tolerance` (default 0). The explanation names the first difference's path.
 */
export function jsonMatch(options: { mode?: JsonCompareMode; tolerance?: number } = {}): Scorer {
  return {
    name: 'json_match',
    score({ answer, expected }) {
      if (answer === null) return verdict(false, 'no answer');
      if (expected === undefined) throw new Error('json_match needs the task to have an "expected" JSON value');
      const parsed = extractJson(answer);
      if (parsed === undefined) return verdict(false, `answer is not JSON: ${show(answer)}`);
      const d = jsonDifference(parsed, expected, options);
      return d ? verdict(false, `${d.path} ${d.why}`) : verdict(true, `JSON matches (${options.mode ?? 'exact'})`);
    },
  };
}

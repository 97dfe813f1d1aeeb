import type { Scorer } from '../scorer.js';
import { acceptedAnswers, show, verdict } from '../scorer.js';
import { asText, normalizeText, type TextNormalization } from './normalize-text.js';

/**
 * Passes when the normalised answer equals the normalised expected answer (or any of a list of accepted answers).
 * Defaults: trim and collapse whitespace, case-sensitive.
 */
export function exactMatch(options: TextNormalization = {}): Scorer {
  return {
    name: 'exact_match',
    score({ answer, expected }) {
      if (answer === null) return verdict(false, 'no answer');
      if (expected === undefined) throw new Error('exact_match needs the task to have an "expected" answer');
      const got = normalizeText(answer, options);
      const hit = acceptedAnswers(expected).find((e) => normalizeText(asText(e), options) === got);
      return hit !== undefined
        ? verdict(true, `matches ${show(hit)}`)
        : verdict(false, `${show(got)} does not equal ${show(expected)}`);
    },
  };
}

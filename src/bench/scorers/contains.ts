import type { Scorer } from '../scorer.js';
import { acceptedAnswers, show, verdict } from '../scorer.js';
import { asText, normalizeText, type TextNormalization } from './normalize-text.js';

/** Passes when the normalised answer contains the expected text (or any of a list of accepted texts). */
export function contains(options: TextNormalization = {}): Scorer {
  return {
    name: 'contains',
    score({ answer, expected }) {
      if (answer === null) return verdict(false, 'no answer');
      if (expected === undefined) throw new Error('contains needs the task to have an "expected" text');
      const got = normalizeText(answer, options);
      const hit = acceptedAnswers(expected).find((e) => got.includes(normalizeText(asText(e), options)));
      return hit !== undefined
        ? verdict(true, `contains ${show(hit)}`)
        : verdict(false, `answer does not contain ${show(expected)}`);
    },
  };
}

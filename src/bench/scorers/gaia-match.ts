import type { Scorer } from '../scorer.js';
import { show, verdict } from '../scorer.js';

// Python's float() accepts these (after stripping whitespace); GAIA's scorer decides "is a number" by it.
const PY_FLOAT =
  /^[-+]?(?:(?:\d+(?:_\d+)*(?:\.(?:\d+(?:_\d+)*)?)?|\.\d+(?:_\d+)*)(?:[eE][-+]?\d+(?:_\d+)*)?|inf(?:inity)?|nan)$/i;
const UNIT_SUFFIX = /^([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)\s*[\p{L}°µ²³/.]*$/u;

function isFloat(s: string): boolean {
  return PY_FLOAT.test(s.trim());
}

function pyFloat(s: string): number {
  const t = s.trim().replace(/_/g, '').toLowerCase();
  if (/^[-+]?inf(inity)?$/.test(t)) return t.startsWith('-') ? -Infinity : Infinity;
  if (/^[-+]?nan$/.test(t)) return Number.NaN;
  return Number(t);
}

/**
 * GAIA's number normalisation: drop `$`, `%` and thousands commas (as the official scorer), and also a trailing
 * unit word ("17 km" -> 17) and other currency signs. NaN when no number remains (never equal to anything).
 */
export function gaiaNumber(text: string): number {
  const s = text.replace(/[$%,€£¥]/g, '').trim();
  if (isFloat(s)) return pyFloat(s);
  const m = UNIT_SUFFIX.exec(s);
  return m ? Number(m[1]) : Number.NaN;
}

/** GAIA's string normalisation: remove all whitespace, lowercase, and (optionally) ASCII punctuation. */
export function gaiaString(text: string, removePunct = true): string {
  const s = text.replace(/\s/g, '').toLowerCase();
  return removePunct ? s.replace(/[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g, '') : s;
}

/**
 * GAIA's question scorer (the official `question_scorer`, ported): a numeric truth compares as floats after
 * normalisation; a truth with `,` or `;` is a list compared element by element (numbers as numbers, strings
 * without whitespace and case); anything else compares as a normalised string. A leading "FINAL ANSWER:" in the
 * model's answer (GAIA's answer template) is removed first.
 */
export function gaiaQuestionScore(modelAnswer: string | null, groundTruth: string): boolean {
  const answer = (modelAnswer ?? 'None').replace(/^\s*final\s+answer\s*:\s*/i, '');
  if (isFloat(groundTruth)) return gaiaNumber(answer) === pyFloat(groundTruth);
  if (/[,;]/.test(groundTruth)) {
    const truth = groundTruth.split(/[,;]/);
    const got = answer.split(/[,;]/);
    if (truth.length !== got.length) return false;
    return truth.every((t, i) =>
      isFloat(t) ? gaiaNumber(got[i]) === pyFloat(t) : gaiaString(got[i], false) === gaiaString(t, false),
    );
  }
  return gaiaString(answer) === gaiaString(groundTruth);
}

/** The GAIA exact-match scorer (see `gaiaQuestionScore`); `expected` is the task's "Final answer". */
export function gaiaMatch(): Scorer {
  return {
    name: 'gaia',
    score({ answer, expected }) {
      if (expected === undefined || expected === null) throw new Error('gaia scoring needs the task\'s "Final answer"');
      const truth = typeof expected === 'string' ? expected : String(expected);
      const ok = gaiaQuestionScore(answer, truth);
      return verdict(
        ok,
        ok
          ? `matches ${show(truth)} (GAIA normalised)`
          : `${show(answer)} does not match ${show(truth)} (GAIA normalised)`,
      );
    },
  };
}

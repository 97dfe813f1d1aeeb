import { z } from 'zod';

/** Normalisation options shared by the text scorers (exact match, contains). */
export const TextNormalization = z.object({
  /** Compare case-insensitively (default false). */
  ignoreCase: z.boolean().optional(),
  /** Trim both ends (default true). */
  trim: z.boolean().optional(),
  /** Turn runs of whitespace into one space (default true). */
  collapseWhitespace: z.boolean().optional(),
  /** Remove all whitespace (default false). */
  removeWhitespace: z.boolean().optional(),
  /** Remove Unicode punctuation and symbols (default false). */
  stripPunctuation: z.boolean().optional(),
});
export type TextNormalization = z.infer<typeof TextNormalization>;

/** Applies the normalisation options to a text (NFKC first, so full-width digits equal ASCII ones). */
export function normalizeText(text: string, o: TextNormalization = {}): string {
  let s = text.normalize('NFKC');
  if (o.stripPunctuation) s = s.replace(/[\p{P}\p{S}]/gu, '');
  if (o.removeWhitespace) s = s.replace(/\s+/g, '');
  else if (o.collapseWhitespace ?? true) s = s.replace(/\s+/g, ' ');
  if (o.trim ?? true) s = s.trim();
  if (o.ignoreCase) s = s.toLowerCase();
  return s;
}

/** Expected values as text: strings as they are, anything else as JSON (numbers print plainly). */
export function asText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

import { FILE_HEADERS_ONLY, formatPatch, structuredPatch } from 'diff';
import { canonicalJson } from '../core/index.js';

/** Labels and context of a unified diff. */
export interface TextDiffOptions {
  /** The `---` line's name (default `A`). */
  labelA?: string;
  /** The `+++` line's name (default `B`). */
  labelB?: string;
  /** Unchanged lines shown around each change (default 3). */
  context?: number;
}

/**
 * A unified line diff of two texts (`--- labelA`, `+++ labelB`, then `@@` hunks of ` `, `-` and `+` lines), or
 * the empty string when they are equal. A text without a final newline diffs as if it had one: prompts are
 * compared by their lines, not their last byte. Pure: the same texts give the same diff.
 */
export function unifiedTextDiff(a: string, b: string, options: TextDiffOptions = {}): string {
  if (a === b) return '';
  const nl = (t: string) => (t === '' || t.endsWith('\n') ? t : `${t}\n`);
  const patch = structuredPatch(options.labelA ?? 'A', options.labelB ?? 'B', nl(a), nl(b), undefined, undefined, {
    context: options.context ?? 3,
  });
  // Equal line by line (the texts differed only in a final newline): say so rather than print an empty diff.
  if (!patch.hunks.length)
    return `--- ${patch.oldFileName}\n+++ ${patch.newFileName}\n(the texts differ only in a final newline)\n`;
  // jsdiff's own formatting (hunk headers of empty sides included), without its `Index:` / `====` lines.
  return formatPatch(patch, FILE_HEADERS_ONLY).replace(/\t$/gm, '');
}

/**
 * A JSON value as text for a line diff: keys sorted, two-space indentation, so one changed field (a tool's
 * description) is one changed line.
 */
export function jsonDiffText(value: unknown): string {
  return JSON.stringify(JSON.parse(canonicalJson(value ?? null)), null, 2);
}

/** Line and byte limits of what a model sees of one tool output. */
export interface OutputLimits {
  /** Default 2000 lines. */
  maxLines?: number;
  /** Default 50 KiB (UTF-8 bytes). */
  maxBytes?: number;
}

export const DEFAULT_MAX_LINES = 2000;
export const DEFAULT_MAX_BYTES = 50 * 1024;

/** The cut output, and the whole one when something was cut (for `ToolOutput.full`, kept in the trace). */
export interface Truncated {
  output: string;
  truncated: boolean;
  full?: string;
}

/**
 * Keeps the head of `text` within the limits, cutting at a line end when it can, and appends a note saying
 * how much was shown and `hint` (how to read the rest). Untouched text comes back as it was.
 */
export function truncateOutput(text: string, hint: string, limits: OutputLimits = {}): Truncated {
  const maxLines = limits.maxLines ?? DEFAULT_MAX_LINES;
  const maxBytes = limits.maxBytes ?? DEFAULT_MAX_BYTES;
  const totalBytes = Buffer.byteLength(text, 'utf8');
  const lines = text.split('\n');
  if (lines.length <= maxLines && totalBytes <= maxBytes) return { output: text, truncated: false };
  const kept: string[] = [];
  let bytes = 0;
  for (const line of lines) {
    if (kept.length >= maxLines) break;
    const b = Buffer.byteLength(line, 'utf8') + 1;
    if (bytes + b > maxBytes) {
      // A first line longer than the whole budget is cut inside the line, on a character boundary.
      if (kept.length === 0) kept.push(cutToBytes(line, maxBytes));
      break;
    }
    kept.push(line);
    bytes += b;
  }
  const shownBytes = Buffer.byteLength(kept.join('\n'), 'utf8');
  const note =
    `[output truncated: showing ${kept.length} of ${lines.length} lines ` +
    `(${formatBytes(shownBytes)} of ${formatBytes(totalBytes)}). ${hint}]`;
  return { output: `${kept.join('\n')}\n\n${note}`, truncated: true, full: text };
}

/** The longest prefix of `s` whose UTF-8 encoding fits in `max` bytes. */
export function cutToBytes(s: string, max: number): string {
  const buf = Buffer.from(s, 'utf8');
  if (buf.length <= max) return s;
  let end = max;
  // Step back over UTF-8 continuation bytes (10xxxxxx) so no character is split.
  while (end > 0 && (buf[end] & 0xc0) === 0x80) end--;
  return buf.subarray(0, end).toString('utf8');
}

/** `1536` -> `1.5 KB`. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1).replace(/\.0$/, '')} KB`;
  return `${(n / 1024 / 1024).toFixed(1).replace(/\.0$/, '')} MB`;
}

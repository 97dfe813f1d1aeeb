/**
 * Text with CRLF line ends turned into LF, with the map back to the original offsets, so an edit can match
 * on LF text and still cut the original exactly (a mixed file keeps the ends it had outside the edit).
 */
export class LineEndings {
  /** The text with every `\r\n` as `\n` (a lone `\r` is kept). */
  readonly text: string;
  /** Offsets in `text` of the `\n`s that were `\r\n`, ascending. */
  private readonly crlfAt: number[];

  constructor(readonly original: string) {
    const crlfAt: number[] = [];
    let text = '';
    let from = 0;
    for (let i = original.indexOf('\r\n'); i !== -1; i = original.indexOf('\r\n', i + 2)) {
      text += original.slice(from, i);
      crlfAt.push(text.length);
      text += '\n';
      from = i + 2;
    }
    this.text = text + original.slice(from);
    this.crlfAt = crlfAt;
  }

  /** The offset in the original of an offset in `text` (a CR before a `\n` at `offset` stays outside). */
  toOriginal(offset: number): number {
    let lo = 0;
    let hi = this.crlfAt.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.crlfAt[mid] < offset) lo = mid + 1;
      else hi = mid;
    }
    return offset + lo;
  }

  /** The line end most lines of the file use (`\n` when there are none). */
  get dominant(): '\n' | '\r\n' {
    const lf = (this.text.match(/\n/g)?.length ?? 0) - this.crlfAt.length;
    return this.crlfAt.length > lf ? '\r\n' : '\n';
  }

  /**
   * The line end to write new text with where the original `[start, end)` is replaced: the one that span
   * uses (CRLF if it has any), else the file's dominant one.
   */
  styleOf(start: number, end: number): '\n' | '\r\n' {
    const span = this.original.slice(start, end);
    if (span.includes('\r\n')) return '\r\n';
    if (span.includes('\n')) return '\n';
    return this.dominant;
  }
}

/** `text` with every line end (`\r\n` or `\n`) written as `eol`. */
export function withLineEnds(text: string, eol: '\n' | '\r\n'): string {
  return text.replace(/\r?\n/g, eol);
}

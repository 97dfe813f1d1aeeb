/** One place where `oldString` matched, as offsets in the (LF) content, with the text to put there. */
export interface EditMatch {
  start: number;
  end: number;
  /** What replaces `[start, end)`: `newString`, or `newString` adjusted the same way `oldString` was (re-indented, unescaped, ...). */
  replacement: string;
  /** For the similarity-based replacer: how alike the middle lines were (0-1). */
  similarity?: number;
}

/**
 * One way of finding `oldString` in a file. The edit tool tries them in order, strictest first, and the first
 * one that finds anything decides: one match is replaced; several are an error listing their lines (unless
 * `replaceAll`). Each returns every match it sees, so ambiguity is never hidden by taking the first one.
 */
export interface Replacer {
  /** Recorded in the result's metadata (`replacer`). */
  name: string;
  /** How it matched, for messages ("ignoring indentation"). */
  how: string;
  find(content: string, oldString: string, newString: string): EditMatch[];
}

/** Block anchors and context: a candidate's middle lines must be at least this alike (0-1, Levenshtein). */
export const BLOCK_SIMILARITY = 0.75;
/** Context-aware: at least this share of the middle lines must be equal (trimmed). */
export const CONTEXT_SHARE = 0.5;

/** The lines of a text with the offset where each starts. */
class Lines {
  readonly lines: string[];
  readonly starts: number[];
  constructor(text: string) {
    this.lines = text.split('\n');
    this.starts = [];
    let at = 0;
    for (const l of this.lines) {
      this.starts.push(at);
      at += l.length + 1;
    }
  }
  /** Offsets of lines `i` to `j` inclusive, without the newline after `j`. */
  span(i: number, j: number): { start: number; end: number } {
    return { start: this.starts[i], end: this.starts[j] + this.lines[j].length };
  }
}

/** The lines of a block the model sent; a final newline is not a line of its own. */
function blockOf(s: string): { lines: string[]; trailingNewline: boolean } {
  const lines = s.split('\n');
  const trailingNewline = lines.length > 1 && lines[lines.length - 1] === '';
  if (trailingNewline) lines.pop();
  return { lines, trailingNewline };
}

/** A line-based match does not take the newline after its last line: drop the one `newString` ends with, too. */
function lineReplacement(newString: string, trailingNewline: boolean): string {
  return trailingNewline && newString.endsWith('\n') ? newString.slice(0, -1) : newString;
}

const indentOf = (line: string) => /^[ \t]*/.exec(line)![0];
const isBlank = (line: string) => line.trim() === '';

/** Start offsets of the non-overlapping occurrences of `needle`, left to right. */
export function occurrences(text: string, needle: string): number[] {
  const out: number[] = [];
  if (!needle) return out;
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) out.push(i);
  return out;
}

/** Every block of `n` lines whose lines pass `same(fileLine, blockLine)` pairwise. */
function blocksWhere(
  content: string,
  find: string[],
  same: (a: string, b: string) => boolean,
): Array<{ i: number; j: number; lines: Lines }> {
  const lines = new Lines(content);
  const out: Array<{ i: number; j: number; lines: Lines }> = [];
  const n = find.length;
  for (let i = 0; i + n <= lines.lines.length; i++) {
    let ok = true;
    for (let k = 0; k < n && ok; k++) ok = same(lines.lines[i + k], find[k]);
    if (ok) out.push({ i, j: i + n - 1, lines });
  }
  return out;
}

/** `oldString` exactly; with `replaceAll`, every occurrence (the "multi-occurrence" case). */
export const exact: Replacer = {
  name: 'exact',
  how: 'exactly',
  find: (content, old, neu) =>
    occurrences(content, old).map((start) => ({ start, end: start + old.length, replacement: neu })),
};

/** `oldString` without the blank space (and blank lines) at its start and end; `newString` loses the same. */
export const trimmedBoundary: Replacer = {
  name: 'trimmed-boundary',
  how: 'without the whitespace at the start and end of oldString',
  find(content, old, neu) {
    const core = old.trim();
    if (!core || core === old) return [];
    const lead = old.slice(0, old.indexOf(core));
    const trail = old.slice(lead.length + core.length);
    const replacement =
      neu.startsWith(lead) && neu.endsWith(trail) && neu.length >= lead.length + trail.length
        ? neu.slice(lead.length, neu.length - trail.length)
        : neu;
    return occurrences(content, core).map((start) => ({ start, end: start + core.length, replacement }));
  },
};

/** Backslash escapes a model wrote once too often (`\\n`, `\\t`, `\\"`, `\\'`, `` \\` ``, `\\\\`, `\\$`), read as the characters. */
export function unescapeOnce(s: string): string {
  return s.replace(/\\(n|t|r|'|"|`|\\|\$)/g, (_m, c: string) =>
    c === 'n' ? '\n' : c === 't' ? '\t' : c === 'r' ? '\r' : c,
  );
}

/** `oldString` with its escapes read once (the model escaped a string twice); `newString` is read the same way. */
export const escapeNormalized: Replacer = {
  name: 'escape-normalized',
  how: 'after reading backslash escapes in oldString (\\n, \\t, \\", ...) as the characters',
  find(content, old, neu) {
    const plain = unescapeOnce(old);
    if (plain === old) return [];
    const replacement = unescapeOnce(neu);
    return occurrences(content, plain).map((start) => ({ start, end: start + plain.length, replacement }));
  },
};

/** Removes the indentation all non-blank lines share (its length), keeping the relative indentation. */
function dedent(lines: readonly string[]): { lines: string[]; indent: string } {
  const nonBlank = lines.filter((l) => !isBlank(l));
  if (!nonBlank.length) return { lines: [...lines], indent: '' };
  const indent = nonBlank.map(indentOf).reduce((a, b) => (b.length < a.length ? b : a));
  return { lines: lines.map((l) => (isBlank(l) ? '' : l.slice(indent.length))), indent };
}

/**
 * Moves a line of `newString` from the block's indentation as sent (`from`) to its indentation in the file
 * (`to`): the `from` prefix becomes `to`; a line indented less than `from` gains or loses the difference.
 */
function moveLine(line: string, from: string, to: string): string {
  if (isBlank(line)) return line;
  if (line.startsWith(from)) return to + line.slice(from.length);
  const delta = to.length - from.length;
  if (delta >= 0) return (to[0] ?? ' ').repeat(delta) + line;
  return line.slice(Math.min(indentOf(line).length, -delta));
}

/**
 * Whole lines equal to `oldString`'s once the indentation they all share is removed (the block moved left or
 * right, relative indentation the same). `newString` is moved by the same amount.
 */
export const indentationFlexible: Replacer = {
  name: 'indentation-flexible',
  how: 'ignoring the indentation of the whole block (newString was re-indented to match)',
  find(content, old, neu) {
    const { lines: findLines, trailingNewline } = blockOf(old);
    const want = dedent(findLines);
    if (want.lines.every(isBlank)) return [];
    const out: EditMatch[] = [];
    const lines = new Lines(content);
    const n = findLines.length;
    for (let i = 0; i + n <= lines.lines.length; i++) {
      const got = dedent(lines.lines.slice(i, i + n));
      if (got.lines.some((l, k) => l !== want.lines[k])) continue;
      const reindented = lineReplacement(neu, trailingNewline)
        .split('\n')
        .map((l) => moveLine(l, want.indent, got.indent))
        .join('\n');
      out.push({ ...lines.span(i, i + n - 1), replacement: reindented });
    }
    return out;
  },
};

/** Whole lines equal to `oldString`'s lines when each is trimmed (indentation and trailing spaces differ line by line). */
export const lineTrimmed: Replacer = {
  name: 'line-trimmed',
  how: 'comparing lines without their leading and trailing whitespace',
  find(content, old, neu) {
    const { lines: find, trailingNewline } = blockOf(old);
    if (find.every(isBlank)) return [];
    return blocksWhere(content, find, (a, b) => a.trim() === b.trim()).map((b) => ({
      ...b.lines.span(b.i, b.j),
      replacement: lineReplacement(neu, trailingNewline),
    }));
  },
};

/** `oldString` with every run of whitespace (spaces, tabs, newlines) standing for any run of whitespace. */
export const whitespaceNormalized: Replacer = {
  name: 'whitespace-normalized',
  how: 'treating every run of whitespace as equal to any other',
  find(content, old, neu) {
    const words = old.trim().split(/\s+/).filter(Boolean);
    if (words.length < 2) return [];
    const re = new RegExp(words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('\\s+'), 'g');
    return [...content.matchAll(re)].map((m) => ({ start: m.index, end: m.index + m[0].length, replacement: neu }));
  },
};

/**
 * Blocks whose first and last lines equal `oldString`'s (trimmed) and whose lines in between are alike
 * (Levenshtein similarity at least {@link BLOCK_SIMILARITY}); the block may be a quarter longer or shorter.
 * For text the model remembers almost right.
 */
export const blockAnchor: Replacer = {
  name: 'block-anchor',
  how: `by its first and last lines, with the lines between at least ${BLOCK_SIMILARITY * 100}% alike`,
  find(content, old, neu) {
    const { lines: find, trailingNewline } = blockOf(old);
    if (find.length < 3) return [];
    const first = find[0].trim();
    const last = find[find.length - 1].trim();
    if (!first || !last) return [];
    const lines = new Lines(content);
    const slack = Math.max(1, Math.floor(find.length / 4));
    const wantMiddle = find
      .slice(1, -1)
      .map((l) => l.trim())
      .join('\n');
    const out: EditMatch[] = [];
    for (let i = 0; i < lines.lines.length; i++) {
      if (lines.lines[i].trim() !== first) continue;
      const lo = i + Math.max(2, find.length - 1 - slack);
      const hi = Math.min(lines.lines.length - 1, i + find.length - 1 + slack);
      for (let j = lo; j <= hi; j++) {
        if (lines.lines[j].trim() !== last) continue;
        const similarity = similarityOf(
          lines.lines
            .slice(i + 1, j)
            .map((l) => l.trim())
            .join('\n'),
          wantMiddle,
        );
        if (similarity >= BLOCK_SIMILARITY)
          out.push({ ...lines.span(i, j), replacement: lineReplacement(neu, trailingNewline), similarity });
        break; // the nearest closing anchor only
      }
    }
    return out;
  },
};

/**
 * Blocks of the same number of lines as `oldString` whose first and last lines equal its own (trimmed) and
 * where at least half of the lines in between are equal (trimmed). For an edit that names the right place
 * but got part of its middle wrong.
 */
export const contextAware: Replacer = {
  name: 'context-aware',
  how: `by its first and last lines, with at least ${CONTEXT_SHARE * 100}% of the lines between equal`,
  find(content, old, neu) {
    const { lines: find, trailingNewline } = blockOf(old);
    if (find.length < 3 || !find[0].trim() || !find[find.length - 1].trim()) return [];
    const n = find.length;
    return blocksWhere(content, find, () => true)
      .filter(({ i, lines }) => {
        const block = lines.lines.slice(i, i + n);
        if (block[0].trim() !== find[0].trim() || block[n - 1].trim() !== find[n - 1].trim()) return false;
        let counted = 0;
        let equal = 0;
        for (let k = 1; k < n - 1; k++) {
          if (isBlank(block[k]) && isBlank(find[k])) continue;
          counted++;
          if (block[k].trim() === find[k].trim()) equal++;
        }
        return counted === 0 || equal / counted >= CONTEXT_SHARE;
      })
      .map((b) => ({ ...b.lines.span(b.i, b.j), replacement: lineReplacement(neu, trailingNewline) }));
  },
};

/**
 * The chain, strictest first. Whole-line re-indentation comes before the substring matches that ignore the
 * boundary whitespace, so a block that only moved left or right gets `newString` moved with it.
 */
export const REPLACERS: readonly Replacer[] = [
  exact,
  indentationFlexible,
  trimmedBoundary,
  escapeNormalized,
  lineTrimmed,
  whitespaceNormalized,
  blockAnchor,
  contextAware,
];

/** Above this product of lengths, texts are compared line by line (the full distance would take too long). */
const MAX_LEVENSHTEIN_CELLS = 16_000_000;

/** 1 - Levenshtein distance / longer length: 1 for equal texts, 0 for nothing in common. */
export function similarityOf(a: string, b: string): number {
  if (a === b) return 1;
  if (a.length * b.length > MAX_LEVENSHTEIN_CELLS) {
    // Very long blocks: the mean similarity of the lines at the same position (lines missing count as 0).
    const la = a.split('\n');
    const lb = b.split('\n');
    const n = Math.max(la.length, lb.length);
    let sum = 0;
    for (let k = 0; k < Math.min(la.length, lb.length); k++) sum += similarityOf(la[k], lb[k]);
    return sum / n;
  }
  return 1 - levenshtein(a, b) / Math.max(a.length, b.length);
}

/** Edit distance, in O(min(|a|, |b|)) memory. */
function levenshtein(a: string, b: string): number {
  if (a.length < b.length) [a, b] = [b, a];
  let prev = Array.from({ length: b.length + 1 }, (_, k) => k);
  let cur = new Array<number>(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    for (let k = 1; k <= b.length; k++)
      cur[k] = Math.min(prev[k] + 1, cur[k - 1] + 1, prev[k - 1] + (a[i - 1] === b[k - 1] ? 0 : 1));
    [prev, cur] = [cur, prev];
  }
  return prev[b.length];
}

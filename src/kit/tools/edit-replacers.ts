/**
 * One string a replacer proposes to stand for `oldString`: a piece of the file, or `oldString` read another way.
 * The edit tool replaces it where it occurs in the file (see `editText` for when that counts as one place).
 */
export interface EditCandidate {
  text: string;
  /** For block anchors: how alike the middle lines were (0-1). */
  similarity?: number;
}

/**
 * One way of finding `oldString` in a file, in the order and with the rules of opencode's `replace()` chain.
 * Each proposes candidate strings, best first; `editText` decides which one, if any, is replaced.
 */
export interface Replacer {
  /** Recorded in the result's metadata (`replacer`). */
  name: string;
  /** How it matched, for messages ("ignoring indentation"). */
  how: string;
  candidates(content: string, oldString: string): Iterable<EditCandidate>;
}

/**
 * Block anchors: the block opencode picks is taken only when its middle lines are at least this alike
 * (opencode takes a lone candidate at any similarity, and the best of several from 0.3).
 */
export const BLOCK_SIMILARITY = 0.75;
/** Context-aware: at least this share of the middle lines must be equal (trimmed). */
export const CONTEXT_SHARE = 0.5;

const isBlank = (line: string) => line.trim() === '';

/** The lines of `oldString` for the line-based replacers: a final newline does not make a line of its own. */
function searchLines(s: string): string[] {
  const lines = s.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** The text of lines `i` to `j` (inclusive) of `lines`, joined as in the file. */
const slice = (lines: readonly string[], i: number, j: number) => lines.slice(i, j + 1).join('\n');

/** Start offsets of the non-overlapping occurrences of `needle`, left to right (what `replaceAll` replaces). */
export function occurrences(text: string, needle: string): number[] {
  const out: number[] = [];
  if (!needle) return out;
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) out.push(i);
  return out;
}

/** `oldString` as given; with `replaceAll`, every occurrence. */
export const exact: Replacer = {
  name: 'exact',
  how: 'exactly',
  *candidates(_content, old) {
    yield { text: old };
  },
};

/** Runs of lines equal to `oldString`'s lines when each side is trimmed (indentation and trailing spaces differ). */
export const lineTrimmed: Replacer = {
  name: 'line-trimmed',
  how: 'comparing lines without their leading and trailing whitespace',
  *candidates(content, old) {
    const want = searchLines(old).map((l) => l.trim());
    const lines = content.split('\n');
    for (let i = 0; i + want.length <= lines.length; i++)
      if (want.every((w, k) => lines[i + k].trim() === w)) yield { text: slice(lines, i, i + want.length - 1) };
  },
};

/**
 * Average similarity of the lines strictly between the anchors, compared position by position (trimmed; lines
 * empty on both sides are skipped but still counted); 1 when there is nothing between.
 */
function middleSimilarity(lines: readonly string[], start: number, end: number, want: readonly string[]): number {
  const n = Math.min(want.length, end - start + 1) - 2;
  if (n <= 0) return 1;
  let sum = 0;
  for (let k = 1; k <= n; k++) {
    const a = lines[start + k].trim();
    const b = want[k].trim();
    if (a || b) sum += similarityOf(a, b);
  }
  return sum / n;
}

/**
 * Blocks whose first and last lines equal `oldString`'s (trimmed), for text the model remembers almost right.
 * Each line equal to the first anchor opens a block that the nearest later line (two or more lines on) equal to
 * the last anchor closes; the block with the most alike middle lines is proposed (the first of equals). Safer
 * than opencode: it must have as many lines as `oldString`, give or take a quarter, and be at least
 * {@link BLOCK_SIMILARITY} alike, with at least one line between the anchors.
 */
export const blockAnchor: Replacer = {
  name: 'block-anchor',
  how: `by its first and last lines, with the lines between at least ${BLOCK_SIMILARITY * 100}% alike`,
  *candidates(content, old) {
    if (old.split('\n').length < 3) return;
    const want = searchLines(old);
    const first = want[0].trim();
    const last = want[want.length - 1].trim();
    const lines = content.split('\n');
    let best: { start: number; end: number; similarity: number } | undefined;
    for (let i = 0; i < lines.length; i++) {
      if (lines[i].trim() !== first) continue;
      let j = i + 2;
      while (j < lines.length && lines[j].trim() !== last) j++;
      if (j >= lines.length) continue;
      const similarity = middleSimilarity(lines, i, j, want);
      if (!best || similarity > best.similarity) best = { start: i, end: j, similarity };
    }
    if (!best || want.length < 3) return;
    const size = best.end - best.start + 1;
    if (Math.abs(size - want.length) > Math.max(1, Math.floor(want.length / 4))) return;
    if (best.similarity < BLOCK_SIMILARITY) return;
    yield { text: slice(lines, best.start, best.end), similarity: best.similarity };
  },
};

const squeeze = (s: string) => s.replace(/\s+/g, ' ').trim();

/**
 * `oldString` with every run of whitespace standing for any run of whitespace: a whole line, a piece of one line
 * (the words of `oldString` with any whitespace between), or a run of as many lines as `oldString` has.
 */
export const whitespaceNormalized: Replacer = {
  name: 'whitespace-normalized',
  how: 'treating every run of whitespace as equal to any other',
  *candidates(content, old) {
    const want = squeeze(old);
    const lines = content.split('\n');
    const words = old.trim().split(/\s+/);
    const inLine = new RegExp(words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('\\s+'));
    for (const line of lines) {
      const got = squeeze(line);
      if (got === want) yield { text: line };
      else if (got.includes(want)) {
        const m = inLine.exec(line);
        if (m) yield { text: m[0] };
      }
    }
    const n = old.split('\n').length;
    if (n < 2) return;
    for (let i = 0; i + n <= lines.length; i++) {
      const block = slice(lines, i, i + n - 1);
      if (squeeze(block) === want) yield { text: block };
    }
  },
};

/** The lines without the indentation their non-blank lines share (its length); blank lines stay as they are. */
function dedent(lines: readonly string[]): string {
  const widths = lines.filter((l) => !isBlank(l)).map((l) => l.length - l.trimStart().length);
  if (!widths.length) return lines.join('\n');
  const cut = Math.min(...widths);
  return lines.map((l) => (isBlank(l) ? l : l.slice(cut))).join('\n');
}

/** Runs of as many lines as `oldString` has that equal it once each side's shared indentation is removed. */
export const indentationFlexible: Replacer = {
  name: 'indentation-flexible',
  how: 'ignoring the indentation of the whole block',
  *candidates(content, old) {
    const findLines = old.split('\n');
    const want = dedent(findLines);
    const lines = content.split('\n');
    for (let i = 0; i + findLines.length <= lines.length; i++) {
      const block = lines.slice(i, i + findLines.length);
      if (dedent(block) === want) yield { text: block.join('\n') };
    }
  },
};

/**
 * Backslash escapes a model wrote once too often (`\\n`, `\\t`, `\\r`, `\\"`, `\\'`, `` \\` ``, `\\\\`, `\\$`, and a
 * backslash before a newline), read as the characters.
 */
export function unescapeOnce(s: string): string {
  return s.replace(/\\([ntr'"`\\$\n])/g, (_m, c: string) =>
    c === 'n' ? '\n' : c === 't' ? '\t' : c === 'r' ? '\r' : c,
  );
}

/** `oldString` with its escapes read once (the model escaped a string twice), or lines that read the same. */
export const escapeNormalized: Replacer = {
  name: 'escape-normalized',
  how: 'after reading backslash escapes in oldString (\\n, \\t, \\", ...) as the characters',
  *candidates(content, old) {
    const plain = unescapeOnce(old);
    if (content.includes(plain)) yield { text: plain };
    const lines = content.split('\n');
    const n = plain.split('\n').length;
    for (let i = 0; i + n <= lines.length; i++) {
      const block = slice(lines, i, i + n - 1);
      if (unescapeOnce(block) === plain) yield { text: block };
    }
  },
};

/** `oldString` without the whitespace at its start and end, or runs of lines that trim to that. */
export const trimmedBoundary: Replacer = {
  name: 'trimmed-boundary',
  how: 'without the whitespace at the start and end of oldString',
  *candidates(content, old) {
    const core = old.trim();
    if (core === old) return;
    if (content.includes(core)) yield { text: core };
    const lines = content.split('\n');
    const n = old.split('\n').length;
    for (let i = 0; i + n <= lines.length; i++) {
      const block = slice(lines, i, i + n - 1);
      if (block.trim() === core) yield { text: block };
    }
  },
};

/**
 * Blocks opened by a line equal to `oldString`'s first line (trimmed) and closed by the nearest later line (two or
 * more lines on) equal to its last, with as many lines as `oldString` and at least {@link CONTEXT_SHARE} of the
 * non-blank lines between equal (trimmed). For an edit that names the right place but got part of its middle wrong.
 */
export const contextAware: Replacer = {
  name: 'context-aware',
  how: `by its first and last lines, with at least ${CONTEXT_SHARE * 100}% of the lines between equal`,
  *candidates(content, old) {
    if (old.split('\n').length < 3) return;
    const want = searchLines(old);
    const first = want[0].trim();
    const last = want[want.length - 1].trim();
    const lines = content.split('\n');
    for (let i = 0; i < lines.length; i++) {
      if (lines[i].trim() !== first) continue;
      let j = i + 2;
      while (j < lines.length && lines[j].trim() !== last) j++;
      if (j >= lines.length || j - i + 1 !== want.length) continue;
      let counted = 0;
      let equal = 0;
      for (let k = 1; k < want.length - 1; k++) {
        const a = lines[i + k].trim();
        const b = want[k].trim();
        if (!a && !b) continue;
        counted++;
        if (a === b) equal++;
      }
      if (counted === 0 || equal / counted >= CONTEXT_SHARE) yield { text: slice(lines, i, j) };
    }
  },
};

/** The chain, in opencode's order: the first replacer with a usable candidate decides. */
export const REPLACERS: readonly Replacer[] = [
  exact,
  lineTrimmed,
  blockAnchor,
  whitespaceNormalized,
  indentationFlexible,
  escapeNormalized,
  trimmedBoundary,
  contextAware,
];

/** Above this product of lengths, texts are compared line by line (the full distance would take too long). */
const MAX_LEVENSHTEIN_CELLS = 16_000_000;

/** 1 - Levenshtein distance / longer length: 1 for equal texts, 0 for nothing in common. */
export function similarityOf(a: string, b: string): number {
  if (a === b) return 1;
  if (a.length * b.length > MAX_LEVENSHTEIN_CELLS) {
    // Very long texts: the mean similarity of the lines at the same position (lines missing count as 0).
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

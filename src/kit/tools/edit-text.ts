import { REPLACERS, exact, occurrences, type EditCandidate, type Replacer } from './edit-replacers.js';
import { LineEndings, withLineEnds } from './line-endings.js';
import { QitosError, markErrorClass } from '../../core/index.js';

const BOM = '\uFEFF';

/** An edit that cannot be made, with a message the model can act on. */
export class EditError extends QitosError {
  static {
    markErrorClass(this, 'EditError');
  }

  constructor(message: string) {
    super('edit', message);
    this.name = 'EditError';
  }
}

/** What {@link editText} did. */
export interface EditResult {
  /** The whole new text (BOM and line ends as the file had them). */
  text: string;
  /** Which replacer matched (`exact`, `line-trimmed`, ...) and how, in words. */
  replacer: string;
  how: string;
  /** 1-based line of each replacement, in the original. */
  lines: number[];
  /** Lines the first replacement takes in the new text (for showing the edited region). */
  firstLines: number;
  /** How alike the matched block was (block-anchor only). */
  similarity?: number;
}

/**
 * Replaces `oldString` with `newString` in a file's text, the way the edit tool does:
 * - a UTF-8 BOM at the start is kept, and never matched;
 * - line ends do not matter for matching (CRLF, LF or mixed, in the file or in the arguments); the new text
 *   is written with the line ends of the place it replaces (CRLF if that place has any, else LF; the file's
 *   most used one when the place is inside one line), and the rest of the file keeps its own;
 * - the replacers are tried in opencode's order ({@link REPLACERS}), and a candidate is used as opencode's
 *   `replace()` uses it: `newString` goes where the candidate occurs in the file, if it occurs exactly once
 *   (candidates occurring several times are passed over); with `replaceAll`, the first candidate that occurs at
 *   all is replaced everywhere it occurs. Stricter than opencode: when one replacer has candidates that each
 *   occur once but at different places, that is an {@link EditError} listing them (opencode takes the first);
 *   an `oldString` of only whitespace is matched exactly or not at all. When candidates were found but none
 *   could be used, the error lists where they occur.
 */
export function editText(
  original: string,
  oldString: string,
  newString: string,
  options: { replaceAll?: boolean; file?: string } = {},
): EditResult {
  const inFile = options.file ? ` in "${options.file}"` : '';
  const bom = original.startsWith(BOM) ? BOM : '';
  const ends = new LineEndings(original.slice(bom.length));
  const content = ends.text;
  const old = withLineEnds(oldString, '\n');
  const neu = withLineEnds(newString, '\n');
  if (!old) throw new EditError('oldString is empty. To create a file or replace all of it, use write.');
  if (old === neu) throw new EditError('oldString and newString are the same (line ends aside); nothing would change.');
  const result = (replacer: Replacer, starts: number[], c: EditCandidate): EditResult => ({
    text: bom + splice(ends, starts, c.text.length, neu),
    replacer: replacer.name,
    how: replacer.how,
    lines: starts.map((s) => lineOf(content, s)),
    firstLines: neu.split('\n').length,
    ...(c.similarity !== undefined ? { similarity: Math.round(c.similarity * 1000) / 1000 } : {}),
  });
  // The first replacer whose candidates occur, and where: named when nothing could be used.
  let seen: { replacer: Replacer; starts: Set<number> } | undefined;
  for (const replacer of REPLACERS) {
    if (replacer !== exact && !old.trim()) break;
    const unique: Array<{ start: number; c: EditCandidate }> = [];
    for (const c of replacer.candidates(content, old)) {
      const start = c.text ? content.indexOf(c.text) : -1;
      if (start === -1) continue;
      if (options.replaceAll) return result(replacer, occurrences(content, c.text), c);
      seen ??= { replacer, starts: new Set() };
      if (seen.replacer === replacer) for (const s of occurrences(content, c.text)) seen.starts.add(s);
      if (content.lastIndexOf(c.text) === start) unique.push({ start, c });
    }
    if (!unique.length) continue;
    const [first] = unique;
    const apart = unique.filter(
      (u) => u.start >= first.start + first.c.text.length || u.start + u.c.text.length <= first.start,
    );
    if (apart.length) {
      const lines = [...new Set([first, ...apart].map((u) => lineOf(content, u.start)))].sort((a, b) => a - b);
      throw new EditError(
        `oldString matches ${lines.length} places${inFile}${how(replacer)} (at ` +
          `lines ${list(lines)}). Include more surrounding lines to pick one occurrence, or set ` +
          `replaceAll to true to replace all of them.`,
      );
    }
    return result(replacer, [first.start], first.c);
  }
  if (seen) {
    const lines = [...new Set([...seen.starts].map((s) => lineOf(content, s)))].sort((a, b) => a - b);
    const count =
      seen.replacer === exact
        ? `occurs ${seen.starts.size} times${inFile}`
        : `matches ${lines.length} places${inFile}${how(seen.replacer)}`;
    throw new EditError(
      `oldString ${count} (at lines ${list(lines)}). Include more surrounding lines to pick one ` +
        `occurrence, or set replaceAll to true to replace all of them.`,
    );
  }
  throw new EditError(`oldString was not found${inFile}${notFoundHint(content, old)}`);
}

const how = (r: Replacer) => (r === exact ? '' : ` when matched ${r.how} (${r.name})`);

/** The original text with `length` characters at each of `starts` replaced, in the line ends of that span. */
function splice(ends: LineEndings, starts: readonly number[], length: number, replacement: string): string {
  let out = '';
  let at = 0;
  for (const s of starts) {
    const start = ends.toOriginal(s);
    const end = ends.toOriginal(s + length);
    out += ends.original.slice(at, start) + withLineEnds(replacement, ends.styleOf(start, end));
    at = end;
  }
  return out + ends.original.slice(at);
}

/** Where the model should look when nothing matched: lines that hold `oldString`'s first line. */
function notFoundHint(content: string, old: string): string {
  const first = old
    .split('\n')
    .find((l) => l.trim())
    ?.trim();
  const at: number[] = [];
  if (first) content.split('\n').forEach((l, i) => l.includes(first) && at.push(i + 1));
  return at.length
    ? `, even ignoring whitespace, indentation, escapes and line ends. Its first line appears ` +
        `at line ${list(at)}: read the file there and copy the text to replace.`
    : ', even ignoring whitespace, indentation, escapes and line ends. Read the file and copy the text to replace.';
}

function lineOf(text: string, offset: number): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

function list(nums: number[]): string {
  return nums.length > 10 ? `${nums.slice(0, 10).join(', ')}, …` : nums.join(', ');
}

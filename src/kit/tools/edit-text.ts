import { REPLACERS, type EditMatch } from './edit-replacers.js';
import { LineEndings, withLineEnds } from './line-endings.js';

const BOM = '\uFEFF';

/** An edit that cannot be made, with a message the model can act on. */
export class EditError extends Error {
  override readonly name = 'EditError';
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
 * - the replacers are tried strictest first ({@link REPLACERS}); the first that finds anything decides. One
 *   match is replaced; several are an {@link EditError} listing their lines, unless `replaceAll`.
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
  for (const replacer of REPLACERS) {
    const matches = replacer.find(content, old, neu).sort((a, b) => a.start - b.start);
    if (!matches.length) continue;
    const lines = matches.map((m) => lineOf(content, m.start));
    const how = replacer.name === 'exact' ? '' : ` when matched ${replacer.how} (${replacer.name})`;
    if (matches.length > 1 && !options.replaceAll) {
      const count =
        replacer.name === 'exact'
          ? `occurs ${matches.length} times${inFile}`
          : `matches ${matches.length} places${inFile}${how}`;
      throw new EditError(
        `oldString ${count} (at lines ${list(lines)}). Include more surrounding lines to pick one occurrence, or set replaceAll to true to replace all of them.`,
      );
    }
    const overlap = matches.findIndex((m, k) => k > 0 && m.start < matches[k - 1].end);
    if (overlap > 0)
      throw new EditError(
        `oldString matches places that overlap${inFile}${how} (at lines ${lines[overlap - 1]} and ${lines[overlap]}), so replaceAll cannot replace them all; edit them one at a time.`,
      );
    return {
      text: bom + splice(ends, matches),
      replacer: replacer.name,
      how: replacer.how,
      lines,
      firstLines: matches[0].replacement.split('\n').length,
      ...(matches[0].similarity !== undefined ? { similarity: Math.round(matches[0].similarity * 1000) / 1000 } : {}),
    };
  }
  throw new EditError(`oldString was not found${inFile}${notFoundHint(content, old)}`);
}

/** The original text with each match's span replaced, in the line ends of that span. */
function splice(ends: LineEndings, matches: readonly EditMatch[]): string {
  let out = '';
  let at = 0;
  for (const m of matches) {
    const start = ends.toOriginal(m.start);
    const end = ends.toOriginal(m.end);
    out += ends.original.slice(at, start) + withLineEnds(m.replacement, ends.styleOf(start, end));
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
    ? `, even ignoring whitespace, indentation, escapes and line ends. Its first line appears at line ${list(at)}: read the file there and copy the text to replace.`
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

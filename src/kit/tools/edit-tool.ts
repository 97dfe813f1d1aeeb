import { z } from 'zod';
import { defineTool } from '../../core/index.js';
import { looksBinary } from './binary-content.js';
import { fileOpsOf, toolError } from './tool-env.js';

/**
 * `edit`: replaces an exact string in a file. The string must occur exactly once, unless `replaceAll` is
 * set; zero or several matches are error results that say how many there were and where, so the model can
 * widen `oldString` with surrounding lines. A file with CRLF line ends matches an LF `oldString`.
 */
export function editTool() {
  return defineTool({
    id: 'edit',
    description:
      'Replace exact text in a file. oldString must match the file exactly (whitespace and indentation included) and occur exactly once; ' +
      'include enough surrounding lines to make it unique, or set replaceAll to replace every occurrence. Read the file first to copy the text.',
    parameters: z.object({
      path: z.string().min(1).describe('File path, relative to the workspace root (or absolute inside it).'),
      oldString: z.string().describe('The exact text to replace.'),
      newString: z.string().describe('The text to put in its place.'),
      replaceAll: z.boolean().optional().describe('Replace every occurrence instead of requiring exactly one (default false).'),
    }),
    requires: ['file'],
    async execute(args, ctx) {
      const files = fileOpsOf(ctx, 'edit');
      if (args.oldString === '') throw toolError('oldString is empty. To create a file or replace all of it, use write.');
      if (args.oldString === args.newString) throw toolError('oldString and newString are the same; nothing would change.');
      const st = await files.stat(args.path);
      if (!st) throw toolError(`File not found: "${args.path}". To create it, use write.`);
      if (st.type === 'directory') throw toolError(`"${st.path}" is a folder, not a file.`);
      const bytes = await files.readBytes(args.path);
      if (looksBinary(bytes)) throw toolError(`"${st.path}" looks like a binary file; edit only changes text files.`);
      const content = new TextDecoder('utf-8').decode(bytes);

      let oldString = args.oldString;
      let newString = args.newString;
      let positions = occurrences(content, oldString);
      if (positions.length === 0 && content.includes('\r\n') && !oldString.includes('\r\n')) {
        oldString = oldString.replace(/\n/g, '\r\n');
        newString = newString.replace(/\r?\n/g, '\r\n');
        positions = occurrences(content, oldString);
      }
      if (positions.length === 0) {
        const loose = looseMatchLine(content, args.oldString);
        throw toolError(
          `oldString was not found in "${st.path}". It must match exactly, including whitespace and indentation.` +
            (loose ? ` Text that differs only in whitespace starts at line ${loose}; read the file there and copy it exactly.` : ' Read the file and copy the text to replace.'),
        );
      }
      const lineNos = positions.map((p) => lineOf(content, p));
      if (positions.length > 1 && !args.replaceAll) {
        throw toolError(
          `oldString occurs ${positions.length} times in "${st.path}" (at lines ${list(lineNos)}). ` +
            'Include more surrounding lines to pick one occurrence, or set replaceAll to true to replace all of them.',
        );
      }
      const updated = content.split(oldString).join(newString);
      await files.writeText(args.path, updated);
      const n = positions.length;
      const where = n === 1 ? `line ${lineNos[0]}` : `lines ${list(lineNos)}`;
      return {
        output: `Edited "${st.path}": replaced ${n} occurrence${n === 1 ? '' : 's'} (${where}).\n${snippet(updated, positions[0], newString)}`,
        title: st.path,
        metadata: { path: st.path, replacements: n, lines: lineNos },
      };
    },
  });
}

/** Start offsets of non-overlapping occurrences, left to right (what split/join replaces). */
function occurrences(text: string, needle: string): number[] {
  const out: number[] = [];
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) out.push(i);
  return out;
}

function lineOf(text: string, offset: number): number {
  let n = 1;
  for (let i = 0; i < offset; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}

function list(nums: number[]): string {
  return nums.length > 10 ? `${nums.slice(0, 10).join(', ')}, …` : nums.join(', ');
}

/** Line where a whitespace-insensitive match of `needle` starts, if there is one. */
function looseMatchLine(text: string, needle: string): number | undefined {
  const words = needle.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return undefined;
  const re = new RegExp(words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('\\s+'));
  const m = re.exec(text);
  return m ? lineOf(text, m.index) : undefined;
}

/** The edited region with line numbers and two lines of context either side. */
function snippet(text: string, at: number, inserted: string): string {
  const lines = text.split('\n');
  const first = lineOf(text, at);
  const last = first + inserted.split('\n').length - 1;
  const from = Math.max(1, first - 2);
  const to = Math.min(lines.length, last + 2, from + 40);
  return lines
    .slice(from - 1, to)
    .map((l, i) => `${String(from + i).padStart(6)}\t${l.replace(/\r$/, '')}`)
    .join('\n');
}

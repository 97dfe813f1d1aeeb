import { z } from 'zod';
import { defineTool } from '../../core/index.js';
import { looksBinary } from './binary-content.js';
import { EditError, editText } from './edit-text.js';
import { KeyedLock } from './keyed-lock.js';
import { fileOpsOf, toolError } from './tool-env.js';

/**
 * `edit`: replaces `oldString` with `newString` in a file (see {@link editText} for the matching rules: exact
 * first, then a chain of tolerant replacers, each refusing ambiguity). The file's BOM and line ends are kept.
 * Edits of one file through one tool instance run one at a time, so concurrent calls never lose an update.
 */
export function editTool() {
  const locks = new KeyedLock();
  return defineTool({
    id: 'edit',
    description:
      'Replace text in a file. oldString should match the file exactly (copy it from read, ' +
      'without the line-number prefix) and occur once; ' +
      'include enough surrounding lines to make it unique, or set replaceAll to replace every occurrence. ' +
      'Line endings never matter; if there is no exact match, matches that differ only in ' +
      'indentation, surrounding whitespace or escaping are tried, and the result says which one ' +
      'was used.',
    parameters: z.object({
      path: z.string().min(1).describe('File path, relative to the workspace root (or absolute inside it).'),
      oldString: z.string().describe('The text to replace.'),
      newString: z.string().describe('The text to put in its place.'),
      replaceAll: z
        .boolean()
        .optional()
        .describe('Replace every occurrence instead of requiring exactly one (default false).'),
    }),
    requires: ['file'],
    permission: (args) => ({ kind: 'path', value: args.path }),
    async execute(args, ctx) {
      const files = fileOpsOf(ctx, 'edit');
      if (args.oldString === '')
        throw toolError('oldString is empty. To create a file or replace all of it, use write.');
      if (args.oldString === args.newString)
        throw toolError('oldString and newString are the same; nothing would change.');
      const st = await files.stat(args.path);
      if (!st) throw toolError(`File not found: "${args.path}". To create it, use write.`);
      if (st.type === 'directory') throw toolError(`"${st.path}" is a folder, not a file.`);
      return locks.run(`${files.root}\0${st.path}`, async () => {
        const bytes = await files.readBytes(st.path);
        if (looksBinary(bytes)) throw toolError(`"${st.path}" looks like a binary file; edit only changes text files.`);
        // ignoreBOM: keep a byte-order mark in the text, so it is written back.
        const content = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
        let r;
        try {
          r = editText(content, args.oldString, args.newString, { replaceAll: args.replaceAll, file: st.path });
        } catch (err) {
          if (EditError.isInstance(err)) throw toolError(err.message);
          throw err;
        }
        await files.writeText(st.path, r.text);
        const n = r.lines.length;
        const where = n === 1 ? `line ${r.lines[0]}` : `lines ${r.lines.join(', ')}`;
        const fuzzy =
          r.replacer === 'exact'
            ? ''
            : ` oldString did not match exactly; it was matched ${r.how} (${r.replacer}): check the result.`;
        return {
          output:
            `Edited "${st.path}": replaced ${n} occurrence${n === 1 ? '' : 's'} ` +
            `(${where}).${fuzzy}\n${snippet(r.text, r.lines[0], r.firstLines)}`,
          title: st.path,
          metadata: {
            path: st.path,
            replacements: n,
            lines: r.lines,
            replacer: r.replacer,
            ...(r.similarity !== undefined ? { similarity: r.similarity } : {}),
          },
        };
      });
    },
  });
}

/** Lines `first` .. `first + count - 1` of `text` with numbers and two lines of context either side (at most 40). */
function snippet(text: string, first: number, count: number): string {
  const lines = text.replace(/^\uFEFF/, '').split('\n');
  const from = Math.max(1, first - 2);
  const to = Math.min(lines.length, first + count - 1 + 2, from + 40);
  return lines
    .slice(from - 1, to)
    .map((l, i) => `${String(from + i).padStart(6)}\t${l.replace(/\r$/, '')}`)
    .join('\n');
}

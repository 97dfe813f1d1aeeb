import path from 'node:path';
import { z } from 'zod';
import { defineTool, type FileOps } from '../../core/index.js';
import { looksBinary } from './binary-content.js';
import { fileOpsOf, toolError } from './tool-env.js';
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, formatBytes } from './truncate-output.js';

/** Options of the read tool. */
export interface ReadToolOptions {
  /** Lines shown when the call gives no limit, and the most a call may ask for (default 2000). */
  maxLines?: number;
  /** Bytes of numbered text shown at most per call (default 50 KiB). */
  maxBytes?: number;
  /** Longer lines are cut (default 2000 characters). */
  maxLineLength?: number;
  /** Larger files are refused; search them with grep instead (default 20 MiB). */
  maxFileBytes?: number;
}

/**
 * `read`: a text file with numbered lines (`cat -n` style), from `offset` for `limit` lines. A page that
 * does not reach the end says which offset continues it. Binary files, folders and missing files are
 * error results that say what to do instead.
 */
export function readTool(options: ReadToolOptions = {}) {
  const maxLines = options.maxLines ?? DEFAULT_MAX_LINES;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const maxLineLength = options.maxLineLength ?? 2000;
  const maxFileBytes = options.maxFileBytes ?? 20 * 1024 * 1024;
  return defineTool({
    id: 'read',
    description:
      `Read a text file from the workspace. Lines come numbered from 1 ("     1\\tcontent"). ` +
      `Shows up to ${maxLines} lines or ${formatBytes(maxBytes)} per call; ` +
      'use offset and limit to page through longer files. Cannot read binary files or folders (use glob to list a folder).',
    parameters: z.object({
      path: z.string().min(1).describe('File path, relative to the workspace root (or absolute inside it).'),
      offset: z.number().int().positive().optional().describe('First line to show, counting from 1 (default 1).'),
      limit: z
        .number()
        .int()
        .positive()
        .max(maxLines)
        .optional()
        .describe(`How many lines to show (default and max ${maxLines}).`),
    }),
    requires: ['file'],
    permission: (args) => ({ kind: 'path', value: args.path }),
    async execute(args, ctx) {
      const files = fileOpsOf(ctx, 'read');
      const st = await files.stat(args.path);
      if (!st) throw toolError(`File not found: "${args.path}".${await suggest(files, args.path)}`);
      if (st.type === 'directory')
        throw toolError(`"${st.path}" is a folder, not a file. List it with glob (pattern "*", path "${st.path}").`);
      if (st.size > maxFileBytes)
        throw toolError(
          `"${st.path}" is ${formatBytes(st.size)}, over the ${formatBytes(maxFileBytes)} read ` +
            `limit. Search it with grep, or look at parts of it with bash (head, tail, sed -n).`,
        );
      const bytes = await files.readBytes(args.path);
      if (looksBinary(bytes))
        throw toolError(
          `"${st.path}" looks like a binary file (${formatBytes(bytes.length)}); read only shows text files.`,
        );
      const text = new TextDecoder('utf-8').decode(bytes);
      if (text.length === 0)
        return { output: `(empty file: "${st.path}")`, title: st.path, metadata: { path: st.path, lines: 0 } };
      const lines = text.endsWith('\n') ? text.slice(0, -1).split('\n') : text.split('\n');
      const offset = args.offset ?? 1;
      if (offset > lines.length)
        throw toolError(
          `offset ${offset} is past the end of "${st.path}", which has ${lines.length} line${lines.length === 1 ? '' : 's'}.`,
        );
      const limit = args.limit ?? maxLines;
      const out: string[] = [];
      let bytesShown = 0;
      let last = offset - 1;
      for (let i = offset - 1; i < lines.length && out.length < limit; i++) {
        let line = lines[i].endsWith('\r') ? lines[i].slice(0, -1) : lines[i];
        if (line.length > maxLineLength)
          line = `${line.slice(0, maxLineLength)}… [line cut at ${maxLineLength} characters]`;
        const numbered = `${String(i + 1).padStart(6)}\t${line}`;
        const b = Buffer.byteLength(numbered, 'utf8') + 1;
        if (out.length > 0 && bytesShown + b > maxBytes) break;
        out.push(numbered);
        bytesShown += b;
        last = i + 1;
      }
      let output = out.join('\n');
      if (last < lines.length) {
        output += `\n\n(Showing lines ${offset}-${last} of ${lines.length} in "${st.path}". Read more with offset=${last + 1}.)`;
      }
      return { output, title: st.path, metadata: { path: st.path, lines: lines.length, from: offset, to: last } };
    },
  });
}

/** " Did you mean ...?" from files with the same name elsewhere in the workspace. */
async function suggest(files: FileOps, p: string): Promise<string> {
  const name = path.posix.basename(p.replace(/\\/g, '/'));
  if (!name || /[*?[\]{}]/.test(name)) return '';
  const hits = await files.glob(`**/${name}`, { limit: 5 }).catch(() => [] as string[]);
  return hits.length ? ` Files with that name: ${hits.join(', ')}.` : ' Use glob to find files.';
}

import { z } from 'zod';
import { EnvError, defineTool } from '../../core/index.js';
import { looksBinary } from './binary-content.js';
import { fileOpsOf, toolError } from './tool-env.js';
import { formatBytes, truncateOutput, type OutputLimits } from './truncate-output.js';

const READ_BATCH = 32;

/** Options of the grep tool. */
export interface GrepToolOptions {
  /** Most matching lines returned per call (default 200; a call may ask for fewer). */
  maxResults?: number;
  /** Files larger than this are skipped (default 2 MiB). */
  maxFileBytes?: number;
  /** Matching lines are shown up to this many characters (default 500). */
  maxLineLength?: number;
  /** Most files searched per call (default 20 000). */
  maxFiles?: number;
  limits?: OutputLimits;
}

/**
 * `grep`: lines matching a JavaScript regular expression in the workspace's text files, as
 * `path:line: text`. `include`/`exclude` are glob patterns (relative to `path`). Binary and oversized files
 * are skipped and counted. The result is capped; the note says more exist and how to narrow the search.
 *
 * The regex runs on the event loop, one line at a time: a pathological pattern on a very long line can
 * stall it, which is why lines longer than 10 000 characters are matched on their first 10 000 only.
 */
export function grepTool(options: GrepToolOptions = {}) {
  const maxResults = options.maxResults ?? 200;
  const maxFileBytes = options.maxFileBytes ?? 2 * 1024 * 1024;
  const maxLineLength = options.maxLineLength ?? 500;
  const maxFiles = options.maxFiles ?? 20_000;
  return defineTool({
    id: 'grep',
    description:
      'Search file contents with a regular expression (JavaScript syntax, e.g. "function\\s+\\w+", "TODO|FIXME"). ' +
      'Returns matching lines as path:line: text. Narrow with path (a folder or one file), include (glob, e.g. "**/*.ts") and exclude (glob). ' +
      `At most ${maxResults} matches per call.`,
    parameters: z.object({
      pattern: z.string().min(1).describe('Regular expression to search for.'),
      path: z.string().min(1).optional().describe('Folder (or single file) to search, relative to the workspace root (default the root).'),
      include: z.string().min(1).optional().describe('Only files matching this glob, relative to path (default "**/*").'),
      exclude: z.string().min(1).optional().describe('Skip files matching this glob, relative to path.'),
      ignoreCase: z.boolean().optional().describe('Match case-insensitively (default false).'),
      maxResults: z.number().int().positive().max(maxResults).optional().describe(`Most matches to return (default ${maxResults}).`),
    }),
    requires: ['file'],
    async execute(args, ctx) {
      const files = fileOpsOf(ctx, 'grep');
      let re: RegExp;
      try {
        re = new RegExp(args.pattern, args.ignoreCase ? 'i' : '');
      } catch (err) {
        throw toolError(`pattern is not a valid regular expression: ${(err as Error).message}. Escape special characters such as ( ) [ ] { } . * + ? with a backslash to match them literally.`);
      }
      const cap = args.maxResults ?? maxResults;
      const root = args.path ?? '.';
      const st = await files.stat(root);
      if (!st) throw toolError(`path not found: "${root}".`);
      let candidates: string[];
      if (st.type === 'file') {
        candidates = [st.path];
      } else {
        candidates = await files.glob(args.include ?? '**/*', { cwd: root, limit: maxFiles + 1 });
        if (args.exclude) {
          const excluded = new Set(await files.glob(args.exclude, { cwd: root }));
          candidates = candidates.filter((c) => !excluded.has(c));
        }
      }
      const tooManyFiles = candidates.length > maxFiles;
      if (tooManyFiles) candidates = candidates.slice(0, maxFiles);

      const matches: string[] = [];
      let more = false;
      let binary = 0;
      let large = 0;
      let filesWithMatches = 0;
      const unreadable: string[] = [];
      // Files load a batch at a time (the jail's lstat/open calls overlap); matching stays in path order.
      const load = async (file: string): Promise<Uint8Array | 'skip' | 'large' | 'unreadable'> => {
        try {
          const fst = await files.stat(file);
          if (!fst || fst.type !== 'file') return 'skip';
          if (fst.size > maxFileBytes) return 'large';
          return await files.readBytes(file);
        } catch (err) {
          // A symlink out of the workspace, or a file that vanished or is unreadable: skip it and say so.
          if (!(err instanceof EnvError)) throw err;
          return 'unreadable';
        }
      };
      scan: for (let b = 0; b < candidates.length; b += READ_BATCH) {
        ctx.signal.throwIfAborted();
        const batch = candidates.slice(b, b + READ_BATCH);
        const loaded = await Promise.all(batch.map(load));
        for (let j = 0; j < batch.length; j++) {
          const file = batch[j];
          const bytes = loaded[j];
          if (bytes === 'skip') continue;
          if (bytes === 'large') {
            large++;
            continue;
          }
          if (bytes === 'unreadable') {
            unreadable.push(file);
            continue;
          }
          if (looksBinary(bytes)) {
            binary++;
            continue;
          }
          const lines = new TextDecoder('utf-8').decode(bytes).split('\n');
          let hit = false;
          for (let i = 0; i < lines.length; i++) {
            const line = lines[i].endsWith('\r') ? lines[i].slice(0, -1) : lines[i];
            if (!re.test(line.length > 10_000 ? line.slice(0, 10_000) : line)) continue;
            if (matches.length >= cap) {
              more = true;
              break;
            }
            hit = true;
            const text = line.length > maxLineLength ? `${line.slice(0, maxLineLength)}… [cut]` : line;
            matches.push(`${file}:${i + 1}: ${text}`);
          }
          if (hit) filesWithMatches++;
          if (more) break scan;
        }
      }

      const notes: string[] = [];
      if (more) notes.push(`Showing the first ${cap} matches; there are more. Use a more specific pattern, a narrower path, or an include glob.`);
      if (tooManyFiles) notes.push(`Only the first ${maxFiles} files were searched; narrow path or include.`);
      if (unreadable.length) notes.push(`Could not read ${unreadable.length} file${unreadable.length === 1 ? '' : 's'} (${unreadable.slice(0, 3).join(', ')}${unreadable.length > 3 ? ', …' : ''}): outside the workspace or unreadable.`);
      if (binary || large) notes.push(`Skipped ${binary} binary file${binary === 1 ? '' : 's'} and ${large} file${large === 1 ? '' : 's'} over ${formatBytes(maxFileBytes)}.`);
      const head = matches.length ? matches.join('\n') : `No matches for /${args.pattern}/${args.ignoreCase ? 'i' : ''} in "${root}"${args.include ? ` (include ${args.include})` : ''}.`;
      const text = head + (notes.length ? `\n\n(${notes.join(' ')})` : '');
      const t = truncateOutput(text, 'Use a more specific pattern, a narrower path, or an include glob.', options.limits);
      return {
        output: t.output,
        ...(t.full !== undefined ? { full: t.full } : {}),
        title: args.pattern,
        metadata: { matches: matches.length, files: filesWithMatches, more, skippedBinary: binary, skippedLarge: large },
      };
    },
  });
}

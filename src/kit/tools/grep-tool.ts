import { z } from 'zod';
import { EnvError, defineTool, type FileOps } from '../../core/index.js';
import { looksBinary } from './binary-content.js';
import { grepCandidates } from './grep-candidates.js';
import { GrepMatcher, type GrepInput } from './grep-matcher.js';
import { GrepWorkers } from './grep-workers.js';
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
  /** Time the pattern may spend matching in one call, ms (default 10 000); past it the call is an error result. */
  matchTimeoutMs?: number;
  limits?: OutputLimits;
}

/** What reading one candidate gave: its bytes, or why it is skipped. */
type Loaded = Uint8Array | 'skip' | 'large' | 'unreadable';

/**
 * `grep`: lines matching a JavaScript regular expression in the workspace's text files, as
 * `path:line: text`. `include`/`exclude` are glob patterns (relative to `path`). Binary and oversized files
 * are skipped and counted. The result is capped; the note says more exist and how to narrow the search.
 *
 * The regex runs in a worker thread with a deadline ({@link GrepMatcher}): a pattern that backtracks
 * catastrophically is stopped and reported, and never blocks the process.
 */
export function grepTool(options: GrepToolOptions = {}) {
  const maxResults = options.maxResults ?? 200;
  const maxFileBytes = options.maxFileBytes ?? 2 * 1024 * 1024;
  const maxLineLength = options.maxLineLength ?? 500;
  const maxFiles = options.maxFiles ?? 20_000;
  const matchTimeoutMs = options.matchTimeoutMs ?? 10_000;
  const workers = new GrepWorkers();
  return defineTool({
    id: 'grep',
    description:
      'Search file contents with a regular expression (JavaScript syntax, e.g. "function\\s+\\w+", "TODO|FIXME"). ' +
      'Returns matching lines as path:line: text. Narrow with path (a folder or one file), ' +
      'include (glob, e.g. "**/*.ts") and exclude (glob). ' +
      `At most ${maxResults} matches per call.`,
    parameters: z.object({
      pattern: z.string().min(1).describe('Regular expression to search for.'),
      path: z
        .string()
        .min(1)
        .optional()
        .describe('Folder (or single file) to search, relative to the workspace root (default the root).'),
      include: z
        .string()
        .min(1)
        .optional()
        .describe('Only files matching this glob, relative to path (default "**/*").'),
      exclude: z.string().min(1).optional().describe('Skip files matching this glob, relative to path.'),
      ignoreCase: z.boolean().optional().describe('Match case-insensitively (default false).'),
      maxResults: z
        .number()
        .int()
        .positive()
        .max(maxResults)
        .optional()
        .describe(`Most matches to return (default ${maxResults}).`),
    }),
    requires: ['file'],
    permission: (args) => ({ kind: 'path', value: args.path ?? '.' }),
    async execute(args, ctx) {
      const files = fileOpsOf(ctx, 'grep');
      const flags = args.ignoreCase ? 'i' : '';
      try {
        new RegExp(args.pattern, flags);
      } catch (err) {
        throw toolError(
          `pattern is not a valid regular expression: ${(err as Error).message}. Escape special ` +
            `characters such as ( ) [ ] { } . * + ? with a backslash to match them literally.`,
        );
      }
      const cap = args.maxResults ?? maxResults;
      const root = args.path ?? '.';
      const candidates = await grepCandidates(files, root, args.include, args.exclude, maxFiles);
      const matcher = new GrepMatcher(workers, {
        pattern: args.pattern,
        flags,
        maxLineLength,
        timeoutMs: matchTimeoutMs,
        signal: ctx.signal,
      });
      const matches: string[] = [];
      const withMatches = new Set<string>();
      const unreadable: string[] = [];
      let more = false;
      let binary = 0;
      let large = 0;
      try {
        // Files load a batch at a time (the jail's open calls overlap); matching stays in path order.
        for (let b = 0; b < candidates.files.length && !more; b += READ_BATCH) {
          ctx.signal.throwIfAborted();
          const batch = candidates.files.slice(b, b + READ_BATCH);
          const loaded = await Promise.all(batch.map((f) => loadCandidate(files, f, maxFileBytes)));
          const kinds = loaded.map((bytes) =>
            typeof bytes === 'string' ? bytes : looksBinary(bytes) ? 'binary' : 'text',
          );
          const texts: GrepInput[] = batch.flatMap((path, j) =>
            kinds[j] === 'text' ? [{ path, bytes: loaded[j] as Uint8Array }] : [],
          );
          const r = texts.length
            ? await matcher.match(texts, cap - matches.length)
            : { hits: [], stoppedAt: undefined };
          for (const h of r.hits) {
            matches.push(`${h.path}:${h.line}: ${h.text}`);
            withMatches.add(h.path);
          }
          // Skipped files are counted up to where the search stopped, as a reader going file by file would.
          const end = r.stoppedAt === undefined ? batch.length : batch.indexOf(r.stoppedAt);
          for (let j = 0; j < end; j++) {
            if (kinds[j] === 'large') large++;
            else if (kinds[j] === 'unreadable') unreadable.push(batch[j]);
            else if (kinds[j] === 'binary') binary++;
          }
          more = r.stoppedAt !== undefined;
        }
      } finally {
        matcher.close();
      }

      const notes: string[] = [];
      if (more)
        notes.push(
          `Showing the first ${cap} matches; there are more. Use a more specific pattern, a narrower path, or an include glob.`,
        );
      if (candidates.tooMany) notes.push(`Only the first ${maxFiles} files were searched; narrow path or include.`);
      if (unreadable.length)
        notes.push(
          `Could not read ${unreadable.length} file${unreadable.length === 1 ? '' : 's'} ` +
            `(${unreadable.slice(0, 3).join(', ')}${unreadable.length > 3 ? ', …' : ''}): outside the ` +
            `workspace or unreadable.`,
        );
      if (binary || large)
        notes.push(
          `Skipped ${binary} binary file${binary === 1 ? '' : 's'} and ${large} ` +
            `file${large === 1 ? '' : 's'} over ${formatBytes(maxFileBytes)}.`,
        );
      const head = matches.length
        ? matches.join('\n')
        : `No matches for /${args.pattern}/${flags} in "${root}"${args.include ? ` (include ${args.include})` : ''}.`;
      const text = head + (notes.length ? `\n\n(${notes.join(' ')})` : '');
      const t = truncateOutput(
        text,
        'Use a more specific pattern, a narrower path, or an include glob.',
        options.limits,
      );
      return {
        output: t.output,
        ...(t.full !== undefined ? { full: t.full } : {}),
        title: args.pattern,
        metadata: {
          matches: matches.length,
          files: withMatches.size,
          more,
          skippedBinary: binary,
          skippedLarge: large,
        },
      };
    },
  });
}

/** Reads one candidate through the env, or says why it is skipped. */
async function loadCandidate(files: FileOps, file: string, maxFileBytes: number): Promise<Loaded> {
  try {
    const st = await files.stat(file);
    if (!st || st.type !== 'file') return 'skip';
    if (st.size > maxFileBytes) return 'large';
    return await files.readBytes(file);
  } catch (err) {
    // A symlink out of the workspace, or a file that vanished or is unreadable: skip it and say so.
    if (!EnvError.isInstance(err)) throw err;
    return 'unreadable';
  }
}

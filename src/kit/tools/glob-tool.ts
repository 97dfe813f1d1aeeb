import { z } from 'zod';
import { defineTool } from '../../core/index.js';
import { fileOpsOf } from './tool-env.js';
import { truncateOutput, type OutputLimits } from './truncate-output.js';

/** Options of the glob tool. */
export interface GlobToolOptions {
  /** Most paths returned per call (default 1000). */
  maxResults?: number;
  limits?: OutputLimits;
}

/** `glob`: file paths matching a pattern, relative to the workspace root, in a stable (name) order. */
export function globTool(options: GlobToolOptions = {}) {
  const maxResults = options.maxResults ?? 1000;
  return defineTool({
    id: 'glob',
    description:
      'Find files by name pattern: "**/*.ts", "src/*.{js,json}", "test/**". * matches within one folder name, ** across folders; ' +
      `names starting with "." and node_modules are skipped unless the pattern names them. ` +
      `Returns paths relative to the workspace root (at most ${maxResults}).`,
    parameters: z.object({
      pattern: z.string().min(1).describe('Glob pattern, relative to path.'),
      path: z
        .string()
        .min(1)
        .optional()
        .describe('Folder to search in, relative to the workspace root (default the root).'),
    }),
    requires: ['file'],
    permission: (args) => ({ kind: 'path', value: args.path ?? '.' }),
    async execute(args, ctx) {
      const files = fileOpsOf(ctx, 'glob');
      const hits = await files.glob(args.pattern, { cwd: args.path, limit: maxResults + 1 });
      const where = args.path ? ` in "${args.path}"` : '';
      if (hits.length === 0) return { output: `No files match "${args.pattern}"${where}.`, metadata: { count: 0 } };
      const more = hits.length > maxResults;
      const shown = hits.slice(0, maxResults);
      const text =
        shown.join('\n') +
        (more ? `\n\n(Showing the first ${maxResults} matches; there are more. Use a narrower pattern or path.)` : '');
      const t = truncateOutput(text, 'Use a narrower pattern or path.', options.limits);
      return {
        output: t.output,
        ...(t.full !== undefined ? { full: t.full } : {}),
        title: args.pattern,
        metadata: { count: shown.length, more },
      };
    },
  });
}

import { z } from 'zod';
import { defineTool } from '../../core/index.js';
import type { CodeSearchBackend } from './search-backend.js';
import { toolError } from './tool-env.js';
import { truncateOutput } from './truncate-output.js';

/**
 * `code_search`: searches code beyond the workspace (other repositories, an index) through a pluggable
 * backend. Without a backend (none passed and none in `services.codeSearch`) every call is an error result
 * saying so; use grep for the workspace itself.
 */
export function codeSearchTool(backend?: CodeSearchBackend) {
  return defineTool({
    id: 'code_search',
    description:
      `Search source code outside the workspace${backend ? ` (via ${backend.name})` : ''}: ` +
      `returns file paths, lines and snippets. For files in the workspace, use grep.`,
    parameters: z.object({
      query: z.string().min(1).max(500).describe('What to search for (identifier, phrase or backend query syntax).'),
      language: z.string().min(1).optional().describe('Restrict to one language, e.g. "typescript".'),
      limit: z.number().int().min(1).max(50).optional().describe('Most results to return (default 10).'),
    }),
    async execute(args, ctx) {
      const b = backend ?? (ctx.services.codeSearch as CodeSearchBackend | undefined);
      if (!b || typeof b.search !== 'function')
        throw toolError(
          'code_search has no code search backend configured, so it cannot search. Use grep to ' +
            'search the workspace; the user can configure one with codeSearchTool(backend) or ' +
            'services.codeSearch.',
        );
      const limit = args.limit ?? 10;
      const hits = await b.search(args.query, {
        limit,
        ...(args.language ? { language: args.language } : {}),
        signal: ctx.signal,
      });
      if (hits.length === 0)
        return { output: `No code matches "${args.query}" (${b.name}).`, metadata: { backend: b.name, count: 0 } };
      const text = hits
        .slice(0, limit)
        .map((h) => {
          const where = `${h.repo ? `${h.repo}: ` : ''}${h.path}${h.line ? `:${h.line}` : ''}`;
          return `${where}${h.url ? ` (${h.url})` : ''}${h.snippet ? `\n${h.snippet.replace(/^/gm, '    ')}` : ''}`;
        })
        .join('\n');
      const t = truncateOutput(text, 'Ask for fewer results or a more specific query.');
      return {
        output: t.output,
        ...(t.full !== undefined ? { full: t.full } : {}),
        title: args.query,
        metadata: { backend: b.name, count: hits.length },
      };
    },
  });
}

import { z } from 'zod';
import { defineTool } from '../../core/index.js';
import type { WebSearchBackend } from './search-backend.js';
import { toolError } from './tool-env.js';
import { truncateOutput } from './truncate-output.js';

/**
 * `web_search`: searches the web through a pluggable backend. Without a backend (none passed and none in
 * `services.webSearch`) every call is an error result saying so.
 */
export function webSearchTool(backend?: WebSearchBackend) {
  return defineTool({
    id: 'web_search',
    description:
      `Search the web and get result titles, URLs and ` +
      `snippets${backend ? ` (via ${backend.name})` : ''}. Fetch a result's page with web_fetch ` +
      `when you need its content.`,
    parameters: z.object({
      query: z.string().min(1).max(500).describe('The search query.'),
      limit: z.number().int().min(1).max(20).optional().describe('Most results to return (default 8).'),
    }),
    async execute(args, ctx) {
      const b = backend ?? (ctx.services.webSearch as WebSearchBackend | undefined);
      if (!b || typeof b.search !== 'function')
        throw toolError(
          'web_search has no search backend configured, so it cannot search. Answer from what you ' +
            'know or fetch a known URL; the user can configure one with webSearchTool(backend) or ' +
            'services.webSearch.',
        );
      const hits = await b.search(args.query, { limit: args.limit ?? 8, signal: ctx.signal });
      if (hits.length === 0)
        return { output: `No results for "${args.query}" (${b.name}).`, metadata: { backend: b.name, count: 0 } };
      const text = hits
        .slice(0, args.limit ?? 8)
        .map(
          (h, i) =>
            `${i + 1}. ${h.title}\n   ${h.url}${h.snippet ? `\n   ${h.snippet.replace(/\s+/g, ' ').trim()}` : ''}`,
        )
        .join('\n');
      const t = truncateOutput(text, 'Ask for fewer results.');
      return {
        output: t.output,
        ...(t.full !== undefined ? { full: t.full } : {}),
        title: args.query,
        metadata: { backend: b.name, count: hits.length },
      };
    },
  });
}

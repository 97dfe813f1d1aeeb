import { z } from 'zod';
import { defineTool } from '../../core/index.js';
import { toolError } from '../tools/index.js';
import { browserOf, viewResult } from './browser-of.js';

/** `web_scroll`: moves the view of the open page down or up, or to a line. */
export function webScrollTool() {
  return defineTool({
    id: 'web_scroll',
    description:
      'Scroll the open page: direction "down" (default) or "up" by one view or by `lines`, or jump to line `toLine`.',
    parameters: z.object({
      direction: z.enum(['down', 'up']).optional().describe('Which way to scroll (default down).'),
      lines: z.number().int().positive().optional().describe('How many lines (default one view).'),
      toLine: z.number().int().positive().optional().describe('Show the page from this line (1-based) instead.'),
    }),
    requires: ['web'],
    execute(args, ctx) {
      if (args.toLine !== undefined && (args.direction !== undefined || args.lines !== undefined))
        throw toolError('give either toLine, or direction and lines, not both');
      return viewResult(browserOf(ctx, 'web_scroll').scroll(args));
    },
  });
}

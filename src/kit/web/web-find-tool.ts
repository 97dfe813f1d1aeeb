import { z } from 'zod';
import { defineTool } from '../../core/index.js';
import { browserOf, viewResult } from './browser-of.js';

/** `web_find`: finds text on the open page (again for the next match) and shows the view around it. */
export function webFindTool() {
  return defineTool({
    id: 'web_find',
    description:
      'Find text on the open page (case-insensitive) and show the lines around it. Call it again with the same text for the next match.',
    parameters: z.object({ text: z.string().min(1).describe('The text to find.') }),
    requires: ['web'],
    execute(args, ctx) {
      return viewResult(browserOf(ctx, 'web_find').find(args.text));
    },
  });
}

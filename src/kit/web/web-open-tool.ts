import { z } from 'zod';
import { defineTool } from '../../core/index.js';
import { browserOf, viewResult } from './browser-of.js';

/** `web_open`: opens a URL in the text browser (allow-listed hosts only) and shows its first lines. */
export function webOpenTool() {
  return defineTool({
    id: 'web_open',
    description:
      'Open a web page in the text browser and show its first lines, numbered, with links marked "text [n]". ' +
      'Then use web_scroll to read on, web_find to jump to a word, web_follow to open link n, ' +
      'web_back to return. Only hosts the user allowed can be opened.',
    parameters: z.object({ url: z.string().min(1).describe('Full http:// or https:// URL.') }),
    requires: ['web'],
    async execute(args, ctx) {
      return viewResult(await browserOf(ctx, 'web_open').open(args.url, ctx.signal));
    },
  });
}

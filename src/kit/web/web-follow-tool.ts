import { z } from 'zod';
import { defineTool } from '../../core/index.js';
import { browserOf, viewResult } from './browser-of.js';

/** `web_follow`: opens link [n] of the open page. */
export function webFollowTool() {
  return defineTool({
    id: 'web_follow',
    description:
      'Open link [n] of the open page (the number shown after the link text). Only links to hosts the user allowed can be opened.',
    parameters: z.object({ link: z.number().int().positive().describe('The link number, e.g. 3 for "[3]".') }),
    requires: ['web'],
    async execute(args, ctx) {
      return viewResult(await browserOf(ctx, 'web_follow').follow(args.link, ctx.signal));
    },
  });
}

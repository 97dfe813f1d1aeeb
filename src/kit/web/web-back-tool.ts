import { z } from 'zod';
import { defineTool } from '../../core/index.js';
import { browserOf, viewResult } from './browser-of.js';

/** `web_back`: returns to the page before, where it was left. */
export function webBackTool() {
  return defineTool({
    id: 'web_back',
    description: 'Go back to the page you were on before, at the place you left it.',
    parameters: z.object({}),
    requires: ['web'],
    execute(_args, ctx) {
      return viewResult(browserOf(ctx, 'web_back').back());
    },
  });
}

import type { ToolContext } from '../../core/index.js';
import { toolError } from '../tools/index.js';
import { renderView, type TextBrowser, type WebView } from './text-browser.js';

/** The env's `web` op group (a TextBrowser), or a tool error naming the tool and the missing group. */
export function browserOf(ctx: ToolContext, tool: string): TextBrowser {
  const b = ctx.env.ops('web') as TextBrowser | undefined;
  if (!b || typeof b.open !== 'function')
    throw toolError(`tool "${tool}" needs the "web" op group (a TextWebEnv), and env "${ctx.env.name}" has none`);
  return b;
}

/** A view as a tool result: the rendered lines, the page as title, where the view is as metadata. */
export function viewResult(v: WebView) {
  return {
    output: renderView(v),
    title: v.title ?? v.url,
    metadata: { url: v.url, from: v.from, to: v.to, total: v.total, links: v.links.length },
  };
}

import type { AnyTool } from '../../core/index.js';
import { webBackTool } from './web-back-tool.js';
import { webFindTool } from './web-find-tool.js';
import { webFollowTool } from './web-follow-tool.js';
import { webOpenTool } from './web-open-tool.js';
import { webScrollTool } from './web-scroll-tool.js';

/** The text browser's tools: web_open, web_scroll, web_find, web_follow, web_back (they need a TextWebEnv). */
export function textWebTools(): AnyTool[] {
  return [webOpenTool(), webScrollTool(), webFindTool(), webFollowTool(), webBackTool()];
}

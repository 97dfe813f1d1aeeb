/** A text browser env and its tools: open, scroll, find, follow links, go back, over allow-listed hosts. */
import '../../core/zod-version.js'; // first: a zod older than 4 stops here with the fix, not deep inside another module
export { TextWebEnv, type TextWebEnvOptions } from './text-web-env.js';
export { TextBrowser, renderView, type TextBrowserOptions, type WebView } from './text-browser.js';
export { pageText, type PageText, type PageLink } from './page-text.js';
export { textWebTools } from './text-web-tools.js';
export { webOpenTool } from './web-open-tool.js';
export { webScrollTool } from './web-scroll-tool.js';
export { webFindTool } from './web-find-tool.js';
export { webFollowTool } from './web-follow-tool.js';
export { webBackTool } from './web-back-tool.js';

import { readFileSync } from 'node:fs';
import type { ViewData } from './view-data.js';
import { packView } from './view-pack.js';

/**
 * The self-contained viewer page: inline CSS and JS, the data compressed (see {@link packView}) in
 * `<script type="application/json">`, and a Content-Security-Policy that forbids every network request.
 * The page inflates the index at once and a chunk of steps when its rows come into view or a step is opened, so
 * a 10,000-step run is a few MB and opens in well under a second. The data is base64 inside escaped JSON, so
 * nothing in a trace can close the script element or inject markup; the page script renders with `textContent` only.
 */
export function viewHtml(data: ViewData): string {
  const css = readFileSync(new URL('./viewer.css', import.meta.url), 'utf8');
  const js = readFileSync(new URL('./viewer.js', import.meta.url), 'utf8');
  const title =
    data.runs.length === 2
      ? `qitos diff ${data.runs[0].runId} vs ${data.runs[1].runId}`
      : `qitos run ${data.runs[0].runId}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
${css}
</style>
</head>
<body>
<header id="head"></header>
<main>
  <section id="left">
    <div id="toolbar"><input id="filter" type="search" placeholder="filter steps (tool, answer, error)"><label id="only-diff-label"><input id="only-diff" type="checkbox"> only differences</label><span id="count"></span></div>
    <div id="cols"></div>
    <div id="timeline" tabindex="0"><div id="spacer"></div><div id="rows"></div></div>
  </section>
  <section id="detail"><p class="hint">Select a step (click, or j / k).</p></section>
</main>
<script type="application/json" id="qitos-data">${jsonForScript(packView(data))}</script>
<script>
${js}
</script>
</body>
</html>
`;
}

/** JSON that is safe inside a script element: no `<`, `>`, `&` or line separators survive as-is. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** Escapes text for HTML. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

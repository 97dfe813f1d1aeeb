/**
 * The board page: a shell whose script (`/board.js`) and style (`/board.css`) come from the board itself, so its
 * Content-Security-Policy can forbid inline script. Everything shown comes from `/api/runs` and is rendered with
 * `textContent` only: nothing in a trace becomes markup.
 */
export function boardHtml(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>qitos board</title>
<link rel="stylesheet" href="/board.css">
</head>
<body>
<header>
  <h1>qitos board</h1>
  <nav>
    <button id="tab-runs" class="tab on" type="button">Runs <span id="runs-total"></span></button>
    <button id="tab-benches" class="tab" type="button">Bench folders <span id="benches-total"></span></button>
  </nav>
  <span id="live" title="the list updates while runs run"></span>
</header>
<section id="runs-view">
  <div class="toolbar">
    <input id="search" type="search" placeholder="search: words match any column; field:value (agent:, model:, status:, stop:, task:, variant:, bench:)" autocomplete="off">
    <a id="compare" class="button disabled" href="#">Compare A | B</a>
    <span id="count"></span>
  </div>
  <p id="skipped" class="note" hidden></p>
  <table id="runs">
    <thead><tr>
      <th class="sel" title="pick two runs to compare"></th>
      <th data-key="runId">run</th><th data-key="agent">agent</th><th data-key="model">model</th>
      <th data-key="task">task</th><th data-key="status">status</th><th data-key="stopReason">stop reason</th>
      <th data-key="steps" class="num">steps</th><th data-key="tokens" class="num">tokens</th>
      <th data-key="cost" class="num">cost</th><th data-key="createdAt">started</th>
      <th data-key="durationMs" class="num">time</th><th data-key="variant">variant</th>
    </tr></thead>
    <tbody></tbody>
  </table>
  <button id="more" type="button" hidden>show more</button>
</section>
<section id="benches-view" hidden>
  <div class="toolbar"><a id="compare-benches" class="button disabled" href="#">Compare reports</a></div>
  <table id="benches">
    <thead><tr><th class="sel"></th><th>folder</th><th>suite</th><th>model</th><th>agent</th><th class="num">trials</th><th class="num">pass rate</th><th class="num">errors</th><th class="num">cost</th><th>updated</th></tr></thead>
    <tbody></tbody>
  </table>
  <div id="bench-detail" hidden>
    <h2 id="bench-title"></h2>
    <table id="results">
      <thead><tr><th>task</th><th class="num">epoch</th><th>pass</th><th class="num">score</th><th>stop reason</th><th class="num">steps</th><th class="num">tokens</th><th class="num">cost</th><th class="num">time</th><th>error</th></tr></thead>
      <tbody></tbody>
    </table>
    <h2>Report</h2>
    <iframe id="report" title="bench report"></iframe>
  </div>
</section>
<script src="/board.js"></script>
</body>
</html>
`;
}

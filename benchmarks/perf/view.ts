/**
 * Viewer size and speed: the `qitos view` page of a 10,000-step run, its size, the time to build it, and the time
 * until it is ready in headless Chromium (header and rows drawn, the steps in view decoded: `body[data-ready]`).
 * Two traces:
 * - varied: a real traced run of 10,000 steps (a calculator agent, ScriptedModel with a different thought,
 *   reasoning and expression at every step, the conversation kept in state);
 * - repeated: one recorded step repeated 10,000 times (how test/cli/view.test.ts builds its big trace, and the
 *   trace behind the 26.4 MB of issue 31).
 * For each, "one JSON blob" is the size the data had embedded as plain JSON (the page before compression).
 * Targets: page <= 3 MB, ready in < 1 s.
 * Run: npm run bench:view ; with -- --write, records the figures in docs/performance.md `## CLI viewer`.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { z } from 'zod';
import { AgentModule, Engine, baseState, defineTool, type State, type Task } from '../../src/index.js';
import { ScriptedModel } from '../../src/models/index.js';
import { jsonParser } from '../../src/kit/parsers/index.js';
import { readTrace } from '../../src/trace/index.js';
import { viewData } from '../../src/app/view/view-data.js';
import { jsonForScript, viewHtml } from '../../src/app/view/view-html.js';
import { quantile, seededRandom } from '../../src/bench/stats.js';
import { writePerformanceSection } from './performance-doc.js';

const STEPS = 10_000;
const OPENS = 5;
const CHROMIUM = '/usr/bin/chromium';

const calc = defineTool({
  id: 'calc',
  description: 'Computes a binary arithmetic expression such as "17 * 23".',
  parameters: z.object({ expr: z.string() }),
  execute({ expr }) {
    const m = /^\s*(-?[\d.]+)\s*([-+*/])\s*(-?[\d.]+)\s*$/.exec(expr);
    if (!m) throw new Error(`expected "<number> <op> <number>", got ${expr}`);
    const [a, b] = [Number(m[1]), Number(m[3])];
    return String(m[2] === '+' ? a + b : m[2] === '-' ? a - b : m[2] === '*' ? a * b : a / b);
  },
});

class CalcAgent extends AgentModule<State> {
  initState(task: Task) {
    return baseState(task, STEPS);
  }
  override buildSystemPrompt(): string {
    return 'You are a careful calculator. Use the calc tool, then give the final answer.';
  }
}

const rand = seededRandom(7);
const words = ['carry', 'the', 'total', 'next', 'term', 'check', 'sum', 'value', 'so', 'far', 'add', 'product'];
const phrase = (n: number) => Array.from({ length: n }, () => words[Math.floor(rand() * words.length)]).join(' ');
const int = (n: number) => Math.floor(rand() * n);

/** A different reply at every step; the last one answers. */
function script(n: number) {
  return Array.from({ length: n }, (_, i) => {
    const expr = `${int(100_000)} ${'+-*/'[int(4)]} ${1 + int(999)}`;
    const usage = { input: 120 + i, output: 20 + int(30) };
    if (i === n - 1) return { text: `{"thought": "done", "final_answer": "${int(1e6)}"}`, usage, cost: 0.0015 };
    return {
      reasoning: `step ${i + 1}: ${phrase(6 + int(10))}`,
      text: JSON.stringify({ thought: phrase(4 + int(8)), action: { name: 'calc', args: { expr } } }),
      usage,
      cost: Number((0.001 + rand() / 1000).toFixed(6)),
    };
  });
}

/** One recorded step repeated: the steps.jsonl of `src` with its first step copied `n - 1` times, then its last. */
function repeatedTrace(src: string, out: string, n: number): void {
  const lines = readFileSync(join(src, 'steps.jsonl'), 'utf8').trim().split('\n');
  const [first, last] = [JSON.parse(lines[0]), JSON.parse(lines.at(-1)!)];
  mkdirSync(out, { recursive: true });
  const manifest = JSON.parse(readFileSync(join(src, 'manifest.json'), 'utf8'));
  manifest.runId = 'repeated-run';
  manifest.summary.steps = n;
  writeFileSync(join(out, 'manifest.json'), JSON.stringify(manifest));
  const body: string[] = [];
  for (let i = 1; i <= n; i++) body.push(JSON.stringify({ ...(i === n ? last : first), step: i }));
  writeFileSync(join(out, 'steps.jsonl'), body.join('\n') + '\n');
}

const mb = (b: number) => `${(b / 1e6).toFixed(2)} MB`;
const loadAtStart = loadavg()[0];
const root = mkdtempSync(join(tmpdir(), 'qitos-bench-view-'));
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
});
const rows: Array<[string, string]> = [];
try {
  let t0 = performance.now();
  const run = await new Engine({
    agent: new CalcAgent({ tools: [calc], model: new ScriptedModel(script(STEPS)), parser: jsonParser() }),
    trace: { dir: root },
  }).run({ id: 'calc', objective: 'Add up the running total step by step.', budget: { maxSteps: STEPS } });
  if (run.steps !== STEPS) throw new Error(`the run took ${run.steps} steps, expected ${STEPS}: ${run.stopMessage}`);
  console.log(`recorded a ${STEPS}-step run in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const traces = { varied: run.traceDir!, repeated: join(root, 'repeated') };
  repeatedTrace(traces.varied, traces.repeated, STEPS);

  for (const [name, dir] of Object.entries(traces)) {
    const trace = await readTrace(dir);
    t0 = performance.now();
    const data = viewData([trace]);
    const html = viewHtml(data);
    const buildMs = performance.now() - t0;
    const file = join(root, `${name}.html`);
    writeFileSync(file, html);
    const blob = Buffer.byteLength(jsonForScript(data));
    const ready: number[] = [];
    const last: number[] = [];
    for (let i = 0; i < OPENS; i++) {
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      const s = performance.now();
      await page.goto(pathToFileURL(file).href);
      await page.waitForSelector('body[data-ready="true"]');
      ready.push(performance.now() - s);
      // The last step: scroll to the end, open it (its chunk is decoded as its rows come into view).
      const l = performance.now();
      await page.locator('#timeline').evaluate((el) => (el.scrollTop = el.scrollHeight));
      await page.locator(`.row[data-step="${STEPS}"]`).click();
      await page.waitForSelector(`#detail h2:text("Step ${STEPS}")`);
      last.push(performance.now() - l);
      if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
      await page.close();
    }
    const bytes = Buffer.byteLength(html);
    rows.push(
      [
        `${name}: page size (the same data as one uncompressed JSON blob)`,
        `${mb(bytes)} (${mb(blob)}; ${(blob / bytes).toFixed(1)}x smaller)`,
      ],
      [`${name}: build the page (viewData + viewHtml)`, `${(buildMs / 1000).toFixed(2)} s`],
      [
        `${name}: ready in Chromium, ${OPENS} opens`,
        `median ${quantile(ready, 0.5).toFixed(0)} ms, max ${Math.max(...ready).toFixed(0)} ms`,
      ],
      [`${name}: scroll to the last step and open it`, `median ${quantile(last, 0.5).toFixed(0)} ms`],
    );
  }
} finally {
  await browser.close();
  rmSync(root, { recursive: true, force: true });
}

const section = `## CLI viewer (\`qitos view\`)

\`npm run bench:view\` (\`benchmarks/perf/view.ts\`): the page of a ${STEPS.toLocaleString('en')}-step run, built as
\`qitos view\` builds it, opened ${OPENS} times in headless Chromium (${CHROMIUM}, viewport 1280x800); ready =
\`body[data-ready]\` (header and rows drawn, the steps in view decoded). "varied": a real traced run of a calculator
agent whose every step differs (thought, reasoning, expression, tokens); "repeated": one recorded step repeated (how
test/cli/view.test.ts builds its big trace; the page of issue 31's 26.4 MB). 1-minute load average at the start:
${loadAtStart.toFixed(1)}.

| what | figure |
|---|---|
${rows.map(([k, v]) => `| ${k} | ${v} |`).join('\n')}

Targets: page <= 3 MB, ready in < 1 s. The page is still one offline file: the index (runs, timeline rows, a short
summary of each step: what a row shows and the filter searches) and the steps in chunks of 64 are each raw DEFLATE
(node:zlib) in base64, inflated in the page with \`DecompressionStream('deflate-raw')\`. The page inflates the index
at once and a chunk of full steps when its rows come into view or one of its steps is opened (at most 48 chunks
stay decoded), so a step's long texts (outputs, model replies, state changes) are decoded only on demand. Before
(the data as one JSON blob, parsed whole at load): 26.4 MB and 1.2-1.5 s to ready for the repeated trace.
`;
writePerformanceSection(section);

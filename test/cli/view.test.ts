import { existsSync } from 'node:fs';
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { chromium } from 'playwright-core';
import { jsonForScript } from '../../src/app/view/view-html.js';
import { qitos, recordCalcRun, tempDir, CALC_AGENT, CALC_SCRIPT } from '../helpers/cli-harness.js';
import { CHROMIUM, requires } from '../helpers/requires.js';

const EVIL = '</script><script>document.title="pwned"</script><img src=x onerror="document.title=\'pwned\'">';

let dir: string;
let cleanup: () => Promise<void>;
let single: string;
let pair: string;
let evil: string;
let big: string;
let forkPair: string;
let searched: string;
let workflowPage: string;

/** A 10,000-step trace: a recorded run's step 1 repeated, then its final step. */
async function bigTrace(src: string, out: string, n: number): Promise<void> {
  const lines = (await readFile(join(src, 'steps.jsonl'), 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  await mkdir(out, { recursive: true });
  const manifest = JSON.parse(await readFile(join(src, 'manifest.json'), 'utf8'));
  manifest.runId = 'big-run';
  manifest.summary.steps = n;
  await writeFile(join(out, 'manifest.json'), JSON.stringify(manifest));
  const body: string[] = [];
  for (let i = 1; i <= n; i++) body.push(JSON.stringify({ ...(i === n ? lines[1] : lines[0]), step: i }));
  await writeFile(join(out, 'steps.jsonl'), body.join('\n') + '\n');
}

/**
 * A recorded run made to look like a workflow run: its agent config names a workflow, and its last step's state
 * diff sets the thread (start and fetch done, check failed, retry current, end never reached).
 */
async function workflowTrace(src: string, out: string): Promise<void> {
  await mkdir(out, { recursive: true });
  const manifest = JSON.parse(await readFile(join(src, 'manifest.json'), 'utf8'));
  manifest.runId = 'wf-run';
  manifest.agent.config = {
    workflow: {
      name: 'pipeline',
      nodes: [
        { id: 'start', kind: 'start' },
        { id: 'fetch', kind: 'tool' },
        { id: 'check', kind: 'condition', then: 'end', else: 'retry' },
        { id: 'retry', kind: 'llm' },
        { id: 'end', kind: 'end' },
      ],
      edges: [
        { from: 'start', to: 'fetch' },
        { from: 'fetch', to: 'check' },
        { from: 'retry', to: 'fetch' },
      ],
    },
  };
  await writeFile(join(out, 'manifest.json'), JSON.stringify(manifest));
  const lines = (await readFile(join(src, 'steps.jsonl'), 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  const rec = (node: string, status: string, tokens?: object) => ({
    node,
    kind: 'x',
    step: 1,
    status,
    inputs: {},
    outputs: {},
    attempts: 1,
    ...(tokens ? { tokens } : {}),
  });
  const thread = {
    status: 'running',
    current: 'retry',
    completed: [
      rec('start', 'done'),
      rec('fetch', 'done', { input: 10, output: 5, reasoning: 0, cache: { read: 0, write: 0 } }),
      rec('check', 'error'),
    ],
  };
  const last = lines.at(-1);
  last.stateDiff = { ...last.stateDiff, set: { ...(last.stateDiff.set ?? {}), thread } };
  await writeFile(join(out, 'steps.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
}

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('qitos-view-'));
  const a = (await recordCalcRun(dir)).traceDir;
  await writeFile(
    join(dir, 'b.json'),
    JSON.stringify([
      '{"thought": "compute it", "action": {"name": "calc", "args": {"expr": "17 * 22"}}}',
      '{"final_answer": "374"}',
    ]),
  );
  const b = (await recordCalcRun(dir, [], join(dir, 'b.json'))).traceDir;
  single = join(dir, 'run.html');
  pair = join(dir, 'pair.html');
  evil = join(dir, 'evil.html');
  big = join(dir, 'big.html');
  expect((await qitos(['view', a, '-o', single], dir)).code).toBe(0);
  expect((await qitos(['view', a, b, '-o', pair], dir)).code).toBe(0);
  forkPair = join(dir, 'fork-pair.html');
  await writeFile(join(dir, 'fork.json'), JSON.stringify(['{"final_answer": "three hundred ninety-one"}']));
  const f = JSON.parse(
    (await qitos(['fork', a, '--at', '1', '-m', `scripted:${join(dir, 'fork.json')}`, '--json'], dir)).out,
  ).traceDir;
  expect((await qitos(['view', a, f, '-o', forkPair], dir)).code).toBe(0);
  const e = await qitos(['run', CALC_AGENT, '-t', EVIL, '-m', `scripted:${CALC_SCRIPT}`, '--json'], dir);
  expect((await qitos(['view', JSON.parse(e.out).traceDir, '-o', evil], dir)).code).toBe(0);
  searched = join(dir, 'searched.html');
  await writeFile(join(dir, 'search.yaml'), 'search:\n  type: best-first\ncritics:\n  - type: self-reflection\n');
  const sr = JSON.parse(
    (
      await qitos(
        ['run', join(__dirname, '../kit/search/path-agent.ts'), '-t', 'find G', '-c', 'search.yaml', '--json'],
        dir,
      )
    ).out,
  );
  expect((await qitos(['view', sr.traceDir, '-o', searched], dir)).code).toBe(0);
  workflowPage = join(dir, 'workflow.html');
  await workflowTrace(a, join(dir, 'wf'));
  expect((await qitos(['view', join(dir, 'wf'), '-o', workflowPage], dir)).code).toBe(0);
  await bigTrace(a, join(dir, 'big'), 10_000);
  const t0 = performance.now();
  const v = await qitos(['view', join(dir, 'big'), '-o', big, '--json'], dir);
  console.log(
    `[view.test] qitos view of a 10,000-step trace: ${(performance.now() - t0).toFixed(0)} ` +
      `ms, ${(JSON.parse(v.out).bytes / 1e6).toFixed(1)} MB`,
  );
});
afterAll(() => cleanup());

describe('qitos view (file)', () => {
  it('writes one self-contained file: inline CSS/JS, no external src or href, a CSP that forbids the network', async () => {
    for (const f of [single, pair]) {
      const html = await readFile(f, 'utf8');
      expect(html).toMatch(/^<!doctype html>/);
      expect(html).not.toMatch(/\b(src|href)\s*=\s*["']?\s*(https?:)?\/\//i);
      expect(html).not.toMatch(/<link\b/i);
      expect(html).not.toMatch(/<script[^>]+src=/i);
      expect(html).toContain(`content="default-src 'none'`);
      expect(html).toContain('<script type="application/json" id="qitos-data">');
    }
  });

  it('defaults: <trace>/view.html for one trace; --json says where', async () => {
    const { traceDir } = await recordCalcRun(dir);
    const r = await qitos(['view', traceDir, '--json'], dir);
    expect(JSON.parse(r.out)).toMatchObject({ output: join(traceDir, 'view.html'), steps: [2] });
    expect(existsSync(join(traceDir, 'view.html'))).toBe(true);
  });

  it('the default name of a two-run page comes from run ids made file-safe: a run id of ../../x stays in the working folder', async () => {
    const work = join(dir, 'work', 'here');
    await mkdir(work, { recursive: true });
    const [a, b] = [(await recordCalcRun(dir)).traceDir, (await recordCalcRun(dir)).traceDir];
    for (const [t, runId] of [
      [a, '../../x'],
      [b, '/tmp/../../y'],
    ] as const) {
      const p = join(t, 'manifest.json');
      await writeFile(p, JSON.stringify({ ...JSON.parse(await readFile(p, 'utf8')), runId }));
    }
    const r = await qitos(['view', a, b, '--json'], work);
    expect(r.code, r.err).toBe(0);
    const out = JSON.parse(r.out).output as string;
    expect(out).toMatch(/^.*\/work\/here\/qitos-diff-_\._\.\._x-[0-9a-f]{8}-vs-_tmp_\.\._\.\._y-[0-9a-f]{8}\.html$/);
    expect(existsSync(out)).toBe(true);
    expect(existsSync(join(dir, 'x-vs-_tmp_.._.._y.html'))).toBe(false);
  });

  it('a trace line nested 100,000 deep is a one-line error in view, inspect and replay, not a stack overflow', async () => {
    const { traceDir } = await recordCalcRun(dir);
    const stepsPath = join(traceDir, 'steps.jsonl');
    const lines = (await readFile(stepsPath, 'utf8')).trim().split('\n');
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    await writeFile(
      stepsPath,
      [`${lines[0].slice(0, -1)}, "observation": ${deep}}`, ...lines.slice(1)].join('\n') + '\n',
    );
    for (const cmd of ['view', 'inspect', 'replay']) {
      const r = await qitos([cmd, traceDir], dir);
      expect(r.code, cmd).toBe(2);
      expect(r.err, cmd).toBe('qitos: corrupt trace: steps.jsonl line 1 nests deeper than 512 levels\n');
    }
  });

  it('trace contents cannot close the data script or inject markup', async () => {
    const html = await readFile(evil, 'utf8');
    const start = html.indexOf('id="qitos-data">') + 'id="qitos-data">'.length;
    const data = html.slice(start, html.indexOf('</script>', start));
    expect(data.length).toBeGreaterThan(1000);
    expect(data).not.toMatch(/[<>]/);
    expect(html.match(/<\/script>/g)).toHaveLength(2); // the data element's and the viewer's own
    const s = jsonForScript({ t: '</script>\u2028&<!--' });
    expect(s).toBe('{"t":"\\u003c/script\\u003e\\u2028\\u0026\\u003c!--"}');
    expect(JSON.parse(s)).toEqual({ t: '</script>\u2028&<!--' });
  });
});

describe.runIf(requires('chromium'))('qitos view in headless Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
  });
  afterAll(() => browser?.close());

  async function open(file: string) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const errors: string[] = [];
    const requests: string[] = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('request', (r) => !r.url().startsWith('file:') && requests.push(r.url()));
    const t0 = performance.now();
    await page.goto(pathToFileURL(file).href);
    await page.waitForSelector('body[data-ready="true"]');
    return { page, errors, requests, ms: performance.now() - t0 };
  }

  it('renders the steps; expanding a step shows its tool call with state and timing; reasoning is folded; no console errors', async () => {
    const { page, errors, requests } = await open(single);
    expect(await page.locator('.row').count()).toBe(2);
    expect(await page.locator('.row').nth(0).innerText()).toMatch(/1\s+calc\(expr="17 \* 23"\)\s+140 tok/);
    expect(await page.locator('header').innerText()).toMatch(/stop: final/);
    await page.locator('.row').nth(0).click();
    const tool = page.locator('#detail .tool');
    expect(await tool.count()).toBe(1);
    expect(await tool.innerText()).toMatch(/calc\s+completed\s+queued \d+ms · ran \d+ms/);
    expect(await tool.innerText()).toContain('"expr": "17 * 23"');
    expect(await tool.innerText()).toContain('391');
    // the model input shows the system prompt, folded, where the trace recorded it (the first model call)
    const system = page.locator('#detail details', { hasText: 'system prompt' });
    expect(await system.locator('summary').innerText()).toMatch(/^system prompt \(\d+ chars, new at this step\)$/);
    expect(await system.getAttribute('open')).toBeNull();
    await system.locator('summary').click();
    expect(await system.innerText()).toContain('You are a careful calculator.');
    await page.locator('.row').nth(1).click();
    expect(await page.locator('#detail').innerText()).toContain('system prompt: as at the last step that shows one');
    const reasoning = page.locator('#detail details').first();
    expect(await reasoning.getAttribute('open')).toBeNull();
    expect(await reasoning.locator('summary').innerText()).toBe('reasoning (26 chars)');
    expect(await page.locator('#detail').innerText()).toMatch(/stop: final/);
    expect(errors).toEqual([]);
    expect(requests).toEqual([]);
    await page.close();
  });

  it('two traces side by side: differing steps are marked and the detail shows both sides', async () => {
    const { page, errors } = await open(pair);
    expect(await page.locator('header').innerText()).toMatch(/first difference: step 1, action_args/);
    // B's variant: the settings in which it differs from A (here the scripted model's reply file)
    expect(await page.locator('.run').nth(1).locator('.variant').innerText()).toMatch(
      /^variant: model\.id=scripted:.*b\.json$/,
    );
    expect(await page.locator('.row.differs').count()).toBe(2);
    await page.locator('.row').nth(0).click();
    expect(await page.locator('#detail .side').count()).toBe(2);
    expect(await page.locator('#detail section.differs h3').first().innerText()).toMatch(/TOOL CALLS \(DIFFERS\)/i);
    expect(await page.locator('#detail .side').nth(1).innerText()).toContain('"expr": "17 * 22"');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a run and its fork: the steps before the fork point show as shared, not as a difference', async () => {
    const { page, errors } = await open(forkPair);
    expect(await page.locator('.row').count()).toBe(2);
    expect(await page.locator('.row.differs').count()).toBe(1);
    expect(await page.locator('.row').nth(0).innerText()).toContain('(shared: before the fork)');
    await page.locator('.row').nth(0).click();
    expect(await page.locator('#detail .side').nth(1).innerText()).toMatch(
      /This run is a fork: it starts after this step/,
    );
    expect(errors).toEqual([]);
    await page.close();
  });

  it(
    'a branch step shows every candidate with its score and what was taken (a backtrack says ' +
      'so); critics show their verdicts',
    async () => {
      const { page, errors } = await open(searched);
      await page.locator('.row').nth(1).click();
      const detail = await page.locator('#detail').innerText();
      expect(detail).toMatch(/CANDIDATES \(BEST-FIRST\)/i);
      expect(detail).toContain('backtracked: acted on candidate 1 of step 1');
      expect(detail).toContain('#0 score 0.1 · not taken · move {');
      expect(detail).toContain('--branch <j>');
      expect(detail).toMatch(/self-reflection: continue \(score 1\)/);
      expect(errors).toEqual([]);
      await page.close();
    },
  );

  it("a workflow run shows its graph: every node with its status, the condition's branches and their labels", async () => {
    const { page, errors } = await open(workflowPage);
    const graph = page.locator('svg.wf-graph');
    expect(await graph.count()).toBe(1);
    const box = await graph.boundingBox();
    expect(box!.width).toBeGreaterThan(300);
    const status = async (id: string) => page.locator(`g.wf-node[data-node="${id}"]`).getAttribute('class');
    expect(await status('start')).toContain('wf-done');
    expect(await status('fetch')).toContain('wf-done');
    expect(await status('check')).toContain('wf-error');
    expect(await status('retry')).toContain('wf-current');
    expect(await status('end')).toContain('wf-pending');
    expect(await page.locator('g.wf-node[data-node="fetch"]').textContent()).toContain('15 tok');
    expect(await page.locator('.wf-label').allTextContents()).toEqual(expect.arrayContaining(['then', 'else']));
    expect(await page.locator('details.workflow summary').innerText()).toBe(
      'workflow pipeline · running · 2 of 5 nodes done',
    );
    expect(errors).toEqual([]);
    await page.close();
  });

  it('trace contents render as text, never as markup', async () => {
    const { page, errors } = await open(evil);
    expect(await page.title()).not.toBe('pwned');
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.locator('header .task').innerText()).toBe(`task: ${EVIL}`);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a 10,000-step trace opens quickly and renders only the rows in view', async () => {
    const { page, errors, ms } = await open(big);
    console.log(`[view.test] 10,000-step page ready in ${ms.toFixed(0)} ms`);
    const rows = await page.locator('.row').count();
    expect(rows).toBeGreaterThan(10);
    expect(rows).toBeLessThan(200);
    expect(await page.locator('#count').innerText()).toBe('10000 / 10000 steps');
    await page.locator('#timeline').evaluate((el) => (el.scrollTop = el.scrollHeight));
    await page.waitForSelector('.row[data-step="10000"]');
    await page.locator('.row[data-step="10000"]').click();
    expect(await page.locator('#detail h2').innerText()).toBe('Step 10000');
    await page.locator('#filter').fill('final');
    expect(await page.locator('#count').innerText()).toBe('1 / 10000 steps');
    expect(errors).toEqual([]);
    expect(ms).toBeLessThan(15_000); // loose: a shared CI machine
    await page.close();
  });
});

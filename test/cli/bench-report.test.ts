import fc from 'fast-check';
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { qitos, tempDir } from '../helpers/cli-harness.js';
import { CHROMIUM, requires } from '../helpers/requires.js';
import { benchReportData } from '../../src/bench/index.js';
import { niceTicks } from '../../src/app/bench-report/report-svg.js';

const REPO = resolve(__dirname, '../..');
const EVIL_ID = '<script>document.title="pwned"</script><img src=x onerror="document.title=\'pwned\'">';

let dir: string;
let cleanup: () => Promise<void>;

/** 8 tasks (one with a hostile id): the A model answers "1", the B model "2"; expected is "2" for every third task. */
beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('qitos-bench-report-'));
  await writeFile(join(dir, 'package.json'), '{"type": "module"}\n');
  await writeFile(
    join(dir, 'agent.ts'),
    `import { AgentModule, baseState, type AgentModuleOptions, type State, type Task } from ${JSON.stringify(join(REPO, 'src/index.ts'))};
import { jsonParser } from ${JSON.stringify(join(REPO, 'src/kit/parsers/index.ts'))};
export default class Answerer extends AgentModule<State> {
  constructor(options: AgentModuleOptions = {}) { super({ ...options, parser: jsonParser() }); }
  initState(task: Task): State { return baseState(task, 3); }
}
`,
  );
  await writeFile(join(dir, 'suite.yaml'), 'name: flips\ntasks: tasks.jsonl\nscorer: exact_match\nagent: ./agent.ts\n');
  const ids = ['t1', 't2', 't3', 't4', 't5', 't6', EVIL_ID, 't8'];
  await writeFile(
    join(dir, 'tasks.jsonl'),
    ids.map((id, i) => JSON.stringify({ id, objective: 'answer', expected: i % 3 === 0 ? '2' : '1' })).join('\n') +
      '\n',
  );
  const replies = (answer: string, cost: number, input: number) =>
    JSON.stringify({
      replies: [{ text: JSON.stringify({ final_answer: answer }), usage: { input, output: 10 }, cost }],
      loop: true,
    });
  await writeFile(join(dir, 'a.json'), replies('1', 0.001, 100));
  await writeFile(join(dir, 'b.json'), replies('2', 0.004, 300));
  for (const [out, model] of [
    ['runs/a', 'a.json'],
    ['runs/b', 'b.json'],
  ]) {
    const r = await qitos(['bench', 'run', '.', '-o', out, '-m', `scripted:${model}`, '--no-progress'], dir);
    expect(r.code, r.err).toBe(0);
  }
});
afterAll(() => cleanup?.());

describe('qitos bench report', () => {
  it('reads run folders into pass rates with Wilson intervals, costs, per-trial tokens and flips', () => {
    const d = benchReportData([join(dir, 'runs/a'), join(dir, 'runs/b')], ['runs/a', 'runs/b']);
    expect(d.runs.map((r) => [r.label, r.trials, r.passRate.successes, r.model])).toEqual([
      ['runs/a', 8, 5, 'scripted:a.json'],
      ['runs/b', 8, 3, 'scripted:b.json'],
    ]);
    expect(d.runs[0].passRate.ci[0]).toBeCloseTo(0.3057, 3);
    expect(d.runs[0].cost).toBeCloseTo(0.008, 10);
    expect(d.runs[1].tokens).toEqual(Array(8).fill(310));
    expect(d.flipCounts).toEqual([{ run: 1, onlyA: 5, onlyB: 3, shared: 8 }]);
    expect(d.tasks.every((t) => t.flips)).toBe(true);
    expect(() => benchReportData([join(dir, 'nope')], ['nope'])).toThrow(
      'bench report: nope is not a bench run folder (no results.jsonl)',
    );
  });

  it('writes one page with no script and no network reference; bench output is escaped', async () => {
    const r = await qitos(['bench', 'report', 'runs/a', 'runs/b', '-o', 'report.html'], dir);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toBe(`wrote ${join(dir, 'report.html')} (2 runs, 8 tasks, 8 flipping)\n`);
    const html = await readFile(join(dir, 'report.html'), 'utf8');
    expect(html).not.toMatch(/<script|<img|<link|src=["']?http/i);
    expect(html.replace(/xmlns="http:\/\/www\.w3\.org\/2000\/svg"/g, '')).not.toMatch(/https?:\/\//);
    expect(html).toContain(
      '&lt;script&gt;document.title=&quot;pwned&quot;&lt;/script&gt;&lt;img src=x onerror=&quot;document.title=&#39;pwned&#39;&quot;&gt;',
    );
    const bad = await qitos(['bench', 'report', 'runs/a', 'missing'], dir);
    expect(bad.code).toBe(2);
    expect(bad.err).toBe('qitos: bench report: missing is not a bench run folder (no results.jsonl)\n');
  });

  it('niceTicks: increasing round ticks whose range holds [lo, hi]', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -1e6, max: 1e6, noNaN: true }),
        fc.double({ min: 0, max: 1e6, noNaN: true }),
        (lo, span) => {
          const t = niceTicks(lo, lo + span);
          expect(t.length).toBeGreaterThanOrEqual(2);
          expect(t.length).toBeLessThanOrEqual(12);
          // covers [lo, hi] up to a billionth of the axis (float noise at the ends is not worth a tick)
          const slack = 1e-9 * (t[t.length - 1] - t[0]);
          expect(t[0]).toBeLessThanOrEqual(lo + slack);
          expect(t[t.length - 1]).toBeGreaterThanOrEqual(lo + span - slack);
          for (let i = 1; i < t.length; i++) expect(t[i]).toBeGreaterThan(t[i - 1]);
        },
      ),
    );
  });
});

describe.runIf(requires('chromium'))('qitos bench report in headless Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
    });
  });
  afterAll(() => browser?.close());

  it(
    'the charts render (SVGs of non-zero size, a bar and a point per run), the page is not ' +
      'blank, the hostile task id stays text',
    async () => {
      expect((await qitos(['bench', 'report', 'runs/a', 'runs/b', '-o', 'shown.html'], dir)).code).toBe(0);
      const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
      const errors: string[] = [];
      const requests: string[] = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
      page.on('request', (q) => !q.url().startsWith('file:') && requests.push(q.url()));
      await page.goto(pathToFileURL(join(dir, 'shown.html')).href);
      const charts = page.locator('svg.chart');
      expect(await charts.count()).toBe(4);
      for (let i = 0; i < 4; i++) {
        const box = await charts.nth(i).boundingBox();
        expect(box!.width).toBeGreaterThan(300);
        expect(box!.height).toBeGreaterThan(50);
      }
      const bars = page.locator('svg.chart g.run-score rect');
      expect(await bars.count()).toBe(2);
      const [a, b] = [(await bars.nth(0).boundingBox())!, (await bars.nth(1).boundingBox())!];
      expect(a.width / b.width).toBeCloseTo(5 / 3, 1); // 62.5% against 37.5%
      expect(await page.locator('svg.chart g.run-point circle').count()).toBe(2);
      expect(await page.locator('svg.chart g.run-box rect').count()).toBe(4);
      expect(await page.locator('#flips tr.flip').count()).toBe(8);
      expect(await page.locator('#flips').innerText()).toContain(EVIL_ID);
      expect(await page.locator('body').innerText()).toContain(
        'B against A: 5 tasks pass only in A, 3 only in B (of 8 tasks both ran)',
      );
      expect(await page.title()).toBe('qitos bench report: runs/a vs runs/b');
      expect(await page.locator('script, img').count()).toBe(0);

      // Not blank: count the distinct colours of a screenshot (decoded by the browser on a blank page).
      const png = (await page.screenshot({ fullPage: true })).toString('base64');
      const probe = await browser.newPage();
      const colours = await probe.evaluate(async (src) => {
        const img = new Image();
        img.src = src;
        await img.decode();
        const c = document.createElement('canvas');
        [c.width, c.height] = [img.width, img.height];
        const g = c.getContext('2d')!;
        g.drawImage(img, 0, 0);
        const px = g.getImageData(0, 0, c.width, c.height).data;
        const seen = new Set<number>();
        for (let i = 0; i < px.length; i += 4) seen.add((px[i] << 16) | (px[i + 1] << 8) | px[i + 2]);
        return seen.size;
      }, `data:image/png;base64,${png}`);
      expect(colours).toBeGreaterThan(100);
      expect(errors).toEqual([]);
      expect(requests).toEqual([]);
      await probe.close();
      await page.close();
    },
  );
});

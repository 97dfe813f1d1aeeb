import { appendFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BoardIndex } from '../../../src/server/board/board-index.js';
import { startBoard, type RunningBoard } from '../../../src/server/board/start-board.js';
import { tempDir } from '../../helpers/cli-harness.js';
import { CHROMIUM, requires } from '../../helpers/requires.js';
import { boardFixture, copyRun, type BoardFixture } from './board-fixtures.js';

const EVIL = '<img src=x onerror="document.title=\'pwned\'">';

describe.runIf(requires('chromium'))('qitos board in headless Chromium', () => {
  let fx: BoardFixture;
  let cleanup: () => Promise<void>;
  let board: RunningBoard;
  let browser: Browser;

  beforeAll(async () => {
    let dir: string;
    ({ dir, cleanup } = await tempDir('qitos-board-browser-'));
    fx = await boardFixture(dir);
    // a run whose task is markup: shown as text
    await copyRun(fx.a, fx.traces, 'evil-run', (m) => (m.task.objective = EVIL));
    board = await startBoard({
      index: new BoardIndex([fx.traces, fx.bench]),
      port: 0,
      pollMs: 250,
      refreshMs: 100,
    });
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
  afterAll(async () => {
    await browser?.close();
    await board?.close();
    await cleanup?.();
  });

  async function open(): Promise<{ page: Page; errors: string[] }> {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const errors: string[] = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`${board.url}/`);
    await page.waitForSelector('body[data-ready="true"]');
    return { page, errors };
  }
  const runIds = (page: Page) => page.locator('#runs tbody tr.run td.run-id a').allInnerTexts();

  it('lists every run with its columns, newest first; markup in a trace is text', async () => {
    const { page, errors } = await open();
    expect(await page.locator('#runs tbody tr.run').count()).toBe(6);
    expect(await page.locator('#count').innerText()).toBe('6 of 6 runs');
    const row = page.locator('#runs tbody tr.run', { hasText: basename(fx.a) });
    expect(await row.locator('td.agent').innerText()).toBe('CalcAgent');
    expect(await row.locator('td.stop').innerText()).toBe('final');
    expect(await row.locator('td.steps').innerText()).toBe('2');
    expect(await row.locator('td.tokens').innerText()).toBe('312');
    expect(await row.locator('td.cost').innerText()).toBe('$0.0027');
    expect(await row.locator('td.variant').innerText()).toMatch(/^settings [0-9a-f]{8}$/);
    expect(await page.locator('tr.run', { hasText: 'evil-run' }).locator('td.task').innerText()).toBe(EVIL);
    expect(await page.title()).toBe('qitos board');
    const started = await page.locator('#runs tbody td.started').allInnerTexts();
    expect(started).toEqual([...started].sort().reverse());
    expect(errors).toEqual([]);
    await page.close();
  });

  it('searches by words and by field:value, and sorts by a column both ways', async () => {
    const { page, errors } = await open();
    await page.fill('#search', 'agent:answerer');
    await expect.poll(() => page.locator('#runs tbody tr.run').count()).toBe(3);
    expect(new Set(await page.locator('#runs tbody td.agent').allInnerTexts())).toEqual(new Set(['Answerer']));
    await page.fill('#search', 'task:17 calcagent');
    await expect.poll(() => page.locator('#count').innerText()).toBe('2 of 6 runs');
    expect(new Set(await runIds(page))).toEqual(new Set([basename(fx.a), basename(fx.b)]));
    await page.fill('#search', 'no such run anywhere');
    await expect.poll(() => page.locator('#runs tbody tr.run').count()).toBe(0);
    await page.fill('#search', '');
    await expect.poll(() => page.locator('#runs tbody tr.run').count()).toBe(6);
    const tokens = async () =>
      (await page.locator('#runs tbody td.tokens').allInnerTexts()).map((t) => Number(t.replace(/,/g, '')));
    await page.click('#runs th[data-key="tokens"]');
    const down = await tokens();
    expect(down).toEqual([...down].sort((x, y) => y - x));
    expect(down[0]).toBeGreaterThan(down.at(-1)!);
    await page.click('#runs th[data-key="tokens"]');
    expect(await tokens()).toEqual([...down].reverse());
    expect(await page.locator('#runs th[data-key="tokens"]').getAttribute('class')).toBe('num asc');
    await page.click('#runs th[data-key="agent"]');
    const agents = await page.locator('#runs tbody td.agent').allInnerTexts();
    expect(agents).toEqual([...agents].sort((x, y) => x.localeCompare(y)));
    expect(errors).toEqual([]);
    await page.close();
  });

  it('opens a run in the viewer, and two picked runs side by side (A | B)', async () => {
    const { page, errors } = await open();
    await page.click(`#runs tbody tr.run td.run-id a:text-is("${basename(fx.a)}")`);
    await page.waitForSelector('body[data-ready="true"] #timeline');
    expect(await page.title()).toBe(`qitos run ${basename(fx.a)}`);
    expect(await page.locator('.row').count()).toBe(2);
    await page.goBack();
    await page.waitForSelector('body[data-ready="true"]');
    expect(await page.locator('#compare').getAttribute('class')).toContain('disabled');
    await page
      .locator('tr.run', { hasText: basename(fx.a) })
      .locator('input.pick')
      .check();
    await page
      .locator('tr.run', { hasText: basename(fx.b) })
      .locator('input.pick')
      .check();
    expect(await page.locator('#compare').getAttribute('class')).not.toContain('disabled');
    await page.click('#compare');
    await page.waitForSelector('#timeline');
    expect(await page.title()).toBe(`qitos diff ${basename(fx.a)} vs ${basename(fx.b)}`);
    expect(await page.locator('header').innerText()).toMatch(/first difference: step 1/);
    expect(await page.locator('.row.differs').count()).toBe(2);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a bench folder shows its results, linked to their runs, and its report', async () => {
    const { page, errors } = await open();
    await page.click('#tab-benches');
    expect(await page.locator('#benches tbody tr.bench').count()).toBe(1);
    expect(await page.locator('#benches tbody td.rate').innerText()).toBe('66.7% (2/3)');
    await page.click('#benches tbody tr.bench td.folder a');
    await page.waitForSelector('#results tbody tr.result');
    expect(await page.locator('#results tbody tr.result').count()).toBe(3);
    expect(await page.locator('#results tbody tr.result').first().innerText()).toMatch(/^t1\s+1\s+fail/);
    const frame = page.frameLocator('#report');
    await expect.poll(() => frame.locator('h1').innerText()).toBe('qitos bench report');
    expect(await frame.locator('#runs tr.run').count()).toBe(1);
    await page.locator('#results tbody tr.result a', { hasText: 't2' }).click();
    await page.waitForSelector('#timeline');
    expect(await page.title()).toMatch(/^qitos run /);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('with a token: the page opened once with ?token= keeps it in a cookie and lists the runs; without it, 401', async () => {
    const secured = await startBoard({ index: new BoardIndex([fx.traces]), port: 0, token: 'browser-token' });
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const refused = await page.goto(`${secured.url}/`);
      expect(refused!.status()).toBe(401);
      await page.goto(`${secured.url}/?token=browser-token`);
      await page.waitForSelector('body[data-ready="true"]');
      expect(page.url()).toBe(`${secured.url}/`); // the token is gone from the address
      expect(await page.locator('#runs tbody tr.run').count()).toBe(3);
      const cookie = (await context.cookies()).find((c) => c.name === 'qitos_board_token')!;
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    } finally {
      await context.close();
      await secured.close();
    }
  });

  it('a run that starts while the page is open appears, its steps count up, and it ends', async () => {
    const { page, errors } = await open();
    const dir = await copyRun(fx.a, fx.traces, 'zz-live-run', (m) => {
      m.status = 'running';
      m.summary = null;
      m.createdAt = '2999-01-01T00:00:00.000Z';
    });
    const row = page.locator('tr.run', { hasText: 'zz-live-run' });
    await expect.poll(() => row.count(), { timeout: 10_000 }).toBe(1);
    expect(await row.getAttribute('class')).toContain('running');
    expect(await row.locator('td.status').innerText()).toBe('running');
    expect(await page.locator('#live').innerText()).toMatch(/^1 running/);
    const step = (n: number) =>
      JSON.stringify({
        step: n,
        tokens: { input: 100, output: 10, reasoning: 0, cache: { read: 0, write: 0 } },
        cost: 0.01,
      }) + '\n';
    await writeFile(join(dir, 'steps.jsonl'), step(1));
    await expect.poll(() => row.locator('td.steps').innerText(), { timeout: 10_000 }).toBe('1');
    await appendFile(join(dir, 'steps.jsonl'), step(2));
    await expect.poll(() => row.locator('td.steps').innerText(), { timeout: 10_000 }).toBe('2');
    expect(await row.locator('td.tokens').innerText()).toBe('220');
    await copyRun(fx.a, fx.traces, 'zz-live-run', (m) => (m.createdAt = '2999-01-01T00:00:00.000Z'));
    await expect.poll(() => row.locator('td.status').innerText(), { timeout: 10_000 }).toBe('completed');
    expect(await row.locator('td.stop').innerText()).toBe('final');
    expect(await row.getAttribute('class')).not.toContain('running');
    expect(errors).toEqual([]);
    await page.close();
  });
});

import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { qitos, qitosProcess, tempDir } from '../helpers/cli-harness.js';
import { CHROMIUM, requires } from '../helpers/requires.js';
import { firstUserFrame } from '../../src/trace/index.js';
import { bugStack, QitosError } from '../../src/core/index.js';

const REPO = resolve(__dirname, '../..');
const SRC = join(REPO, 'src/index.ts');

/** An agent whose reduce reads a field of undefined on line 10 (column 14) of its file. */
const BUGGY = `import { AgentModule, baseState, type State, type Task } from ${JSON.stringify(SRC)};
// a type-only line, so the compiled JavaScript's lines differ from the .ts file's
type Unused = { a: number };

export default class Buggy extends AgentModule<State> {
  initState(t: Task): State { return baseState(t, 3); }
  override decide(s: State) { return { mode: 'final' as const, answer: 'x' }; }
  override reduce(s: State): State {
    const x: any = undefined;
    return x.field;
  }
}
`;
const LINE = 10;

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir('qitos-bug-')));
afterEach(() => cleanup());

describe('a bug in the user agent module (real process, tsx)', () => {
  // Both ways node meets a .ts file: an ESM package ("type": "module") and a CommonJS scope (no package.json).
  for (const scope of ['esm', 'cjs'] as const) {
    it(`names the .ts file and line where reduce threw (${scope} scope); QITOS_DEBUG prints the stack; the manifest keeps it`, async () => {
      if (scope === 'esm') await writeFile(join(dir, 'package.json'), '{"type": "module"}\n');
      const file = join(dir, 'buggy.ts');
      await writeFile(file, BUGGY);
      const r = await qitosProcess(['run', 'buggy.ts', '-t', 'hi'], dir);
      expect(r.code).toBe(1);
      expect(r.stdout).toContain(
        "stop:   unrecoverable_error (internal error in step 1: Cannot read properties of undefined (reading 'field'))",
      );
      expect(r.stdout).toContain(`at:     ${file}:${LINE}:14  (QITOS_DEBUG=1 prints the stack)`);
      expect(r.stdout).not.toContain('at Boom.reduce');

      const debug = await qitosProcess(['run', 'buggy.ts', '-t', 'hi'], dir, { QITOS_DEBUG: '1' });
      expect(debug.stdout).toContain(`at:     ${file}:${LINE}:14\n`);
      expect(debug.stdout).toMatch(
        new RegExp(
          `^ +TypeError: Cannot read properties of undefined \\(reading 'field'\\)\\n +at ` +
            `Buggy\\.reduce \\(${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:${LINE}:14\\)$`,
          'm',
        ),
      );

      const [runId] = await readdir(join(dir, 'traces'));
      const manifest = JSON.parse(await readFile(join(dir, 'traces', runId, 'manifest.json'), 'utf8'));
      const [failure] = manifest.summary.failures;
      expect(failure).toMatchObject({ step: 1, kind: 'internal', fatal: true, at: `${file}:${LINE}:14` });
      expect(failure.stack).toContain(`at Buggy.reduce (${file}:${LINE}:14)`);
      const events = (await readFile(join(dir, 'traces', runId, 'events.jsonl'), 'utf8'))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(events.find((e) => e.type === 'recover').data).toMatchObject({
        kind: 'internal',
        fatal: true,
        at: `${file}:${LINE}:14`,
        stack: failure.stack,
      });
    });
  }

  it('bench: a task whose agent throws prints ERROR at the file:line and the summary names it', async () => {
    await writeFile(join(dir, 'package.json'), '{"type": "module"}\n');
    await writeFile(join(dir, 'agent.ts'), BUGGY);
    await writeFile(
      join(dir, 'suite.yaml'),
      'name: buggy\ntasks: tasks.jsonl\nscorer: exact_match\nagent: ./agent.ts\n',
    );
    await writeFile(join(dir, 'tasks.jsonl'), JSON.stringify({ id: 'only', objective: 'q', expected: 'x' }) + '\n');
    const r = await qitosProcess(['bench', 'run', '.', '--out', 'out'], dir);
    const file = join(dir, 'agent.ts');
    expect(r.stderr).toContain(`only e1 ERROR at ${file}:${LINE}:14 (unrecoverable_error`);
    expect(r.stdout).toContain(
      `first: internal error in step 1: Cannot read properties of undefined (reading 'field') (at ${file}:${LINE}:14)`,
    );
    const line = JSON.parse((await readFile(join(dir, 'out/results.jsonl'), 'utf8')).trim());
    expect(line).toMatchObject({ errorKind: 'run', errorAt: `${file}:${LINE}:14` });
  });
});

describe('firstUserFrame and bugStack', () => {
  const root = '/opt/app/node_modules/qitos-ts/';
  it('skips qitos-ts (src and dist), node_modules and node internals; reads file:// URLs', () => {
    const stack = [
      'TypeError: boom',
      '    at /work/qitos/dist/engine/engine.js:1:1',
      '    at Module._compile (node:internal/modules/cjs/loader:1:1)',
      '    at new Promise (<anonymous>)',
      '    at helper (/home/me/exp/node_modules/lodash/index.js:3:4)',
      '    at async Agent.reduce (file:///home/me/exp/my%20agent.ts:12:7)',
      '    at /home/me/exp/other.ts:1:1',
    ].join('\n');
    expect(firstUserFrame(stack, '/work/qitos/')).toBe('/home/me/exp/my agent.ts:12:7');
    expect(firstUserFrame('Error: x\n    at f (/work/qitos/src/engine/engine.ts:3:4)', '/work/qitos')).toBeUndefined();
    expect(firstUserFrame('no frames at all', root)).toBeUndefined();
    // the frames of a cause are where it was wrapped, not where the error was thrown
    expect(
      firstUserFrame(
        'Error: x\n    at f (/work/qitos/src/a.ts:1:1)\ncaused by: Error: y\n    at g (/home/me/a.ts:1:1)',
        '/work/qitos',
      ),
    ).toBeUndefined();
  });

  it('bugStack: the stack of a plain Error with its causes; nothing for classified errors or non-errors', () => {
    const err = new Error('outer', { cause: new TypeError('inner') });
    const s = bugStack(err)!;
    expect(s).toMatch(/^Error: outer\n\s+at /);
    expect(s).toContain('caused by: TypeError: inner');
    expect(bugStack(new QitosError('tool', 'classified'))).toBeUndefined();
    expect(bugStack('a string')).toBeUndefined();
    const deep = new Error('deep');
    deep.stack = 'Error: deep\n' + '    at f (/x.ts:1:1)\n'.repeat(2000);
    expect(bugStack(deep)!.length).toBeLessThan(8200);
    expect(bugStack(deep)).toMatch(/stack cut at 8000 characters\)$/);
  });
});

describe.runIf(requires('chromium'))('the viewer shows where the bug was thrown (headless Chromium)', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
    });
  });
  afterAll(() => browser?.close());

  it('the header folds the failure with its file:line and stack, as text', async () => {
    await mkdir(join(dir, 'a'));
    const file = join(dir, 'a', 'buggy.ts');
    // in-process (vitest compiles the module): the frame names the file; the line is checked in the process tests above
    await writeFile(file, BUGGY.replace('const x: any = undefined;', 'const x: any = undefined; // <b>not markup</b>'));
    const r = await qitos(['run', file, '-t', 'hi', '--json'], dir);
    const traceDir = JSON.parse(r.out).traceDir as string;
    expect((await qitos(['view', traceDir, '-o', 'v.html'], dir)).code).toBe(0);
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(pathToFileURL(join(dir, 'v.html')).href);
    await page.waitForSelector('body[data-ready="true"]');
    const thrown = page.locator('header details.thrown');
    expect(await thrown.locator('summary').innerText()).toMatch(
      new RegExp(
        `^step 1 internal error at ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:\\d+:\\d+: Cannot read properties of undefined`,
      ),
    );
    await thrown.locator('summary').click();
    expect(await thrown.locator('pre.stack').innerText()).toContain('TypeError: Cannot read properties of undefined');
    expect(errors).toEqual([]);
    await page.close();
  });
});

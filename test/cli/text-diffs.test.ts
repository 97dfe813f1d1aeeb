import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { editManifest, qitos, tempDir } from '../helpers/cli-harness.js';
import { CHROMIUM, requires } from '../helpers/requires.js';

const REPO = resolve(__dirname, '../..');

/** A model-path agent whose system prompt and tool description come from the config (`agent:` section). */
const AGENT = `import { z } from 'zod';
import { AgentModule, baseState, defineTool, type AgentModuleOptions, type State, type Task } from ${JSON.stringify(join(REPO, 'src/index.ts'))};
import { jsonParser } from ${JSON.stringify(join(REPO, 'src/kit/parsers/index.ts'))};
export default class PromptAgent extends AgentModule<State> {
  private readonly system: string;
  constructor(options: AgentModuleOptions & { system?: string; toolDescription?: string }) {
    const echo = defineTool({ id: 'echo', description: options.toolDescription ?? 'Echoes text.', parameters: z.object({ text: z.string() }), execute: ({ text }) => text });
    super({ ...options, parser: jsonParser(), tools: [echo], config: { system: options.system, toolDescription: options.toolDescription } });
    this.system = options.system ?? 'no prompt';
  }
  initState(task: Task): State { return baseState(task, 4); }
  override buildSystemPrompt(): string { return this.system; }
}
`;
const PROMPT = ['You are a careful assistant.', 'Use the echo tool once.', 'Then answer in one word.', 'Never guess.'];

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir('qitos-textdiff-'));
  await writeFile(join(dir, 'agent.ts'), AGENT);
  await writeFile(
    join(dir, 'replies.json'),
    JSON.stringify(['{"action": {"name": "echo", "args": {"text": "hi"}}}', '{"final_answer": "hi"}']),
  );
});
afterEach(() => cleanup());

/** Records a run with the agent configured by `agent` (system prompt lines, tool description); returns the trace folder. */
async function record(name: string, agent: { system: string[]; toolDescription?: string }): Promise<string> {
  const yaml =
    [
      'agent:',
      '  system: |',
      ...agent.system.map((l) => `    ${l}`),
      ...(agent.toolDescription ? [`  toolDescription: ${JSON.stringify(agent.toolDescription)}`] : []),
    ].join('\n') + '\n';
  await writeFile(join(dir, `${name}.yaml`), yaml);
  const r = await qitos(
    ['run', 'agent.ts', '-c', `${name}.yaml`, '-t', 'say hi', '-m', `scripted:${join(dir, 'replies.json')}`, '--json'],
    dir,
  );
  expect(r.code, r.err + r.out).toBe(0);
  return JSON.parse(r.out).traceDir as string;
}

describe('text diffs of prompts, tool specs and configs', () => {
  it('qitos diff: one changed line of the system prompt shows as -old / +new, with the config diff', async () => {
    const a = await record('a', { system: PROMPT });
    const b = await record('b', {
      system: PROMPT.map((l) => (l === 'Then answer in one word.' ? 'Then answer in two words.' : l)),
    });
    const r = await qitos(['diff', a, b], dir);
    expect(r.out).toMatch(/^system prompt differs \(A [0-9a-f]{16}, B [0-9a-f]{16}\):$/m);
    expect(r.out).toContain(
      '--- A system prompt\n+++ B system prompt\n@@ -1,4 +1,4 @@\n You are a careful ' +
        'assistant.\n Use the echo tool once.\n-Then answer in one word.\n+Then answer in two ' +
        'words.\n Never guess.\n',
    );
    expect(r.out).toMatch(/^config differs \(A [0-9a-f]{16}, B [0-9a-f]{16}\):$/m);
    expect(r.out).toContain(
      '-    "system": "You are a careful assistant.\\nUse the echo tool once.\\nThen answer in one word.\\nNever guess.\\n"',
    );
    const j = JSON.parse((await qitos(['diff', a, b, '--json'], dir)).out);
    expect(j.texts.map((t: { kind: string }) => t.kind)).toEqual(['system prompt', 'config']);
    expect(j.texts[0].diff).toContain('\n-Then answer in one word.\n+Then answer in two words.\n');
    // each distinct prompt and tool spec list is in the trace once: a prompt and a tool_specs event at start
    const events = (await readFile(join(a, 'events.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events.filter((e) => e.type === 'prompt')).toEqual([
      expect.objectContaining({
        step: 0,
        phase: 'init',
        data: { hash: j.texts[0].hashA, text: PROMPT.join('\n') + '\n' },
      }),
    ]);
    // the tool specs once, at start (the JSON parser sends the model no native tools: nothing more to record)
    expect(
      events
        .filter((e) => e.type === 'tool_specs')
        .map((e) => [e.step, e.data.specs.map((s: { name: string }) => s.name)]),
    ).toEqual([[0, ['echo']]]);
  });

  it('qitos diff: a changed tool description shows as a diff of the tool specs', async () => {
    const a = await record('a', { system: PROMPT, toolDescription: 'Echoes text.' });
    const b = await record('b', { system: PROMPT, toolDescription: 'Echoes the text back, unchanged.' });
    const r = await qitos(['diff', a, b], dir);
    expect(r.out).toMatch(/^tool specs differ \(A [0-9a-f]{16}, B [0-9a-f]{16}\):$/m);
    expect(r.out).toContain('--- A tool specs\n+++ B tool specs\n');
    expect(r.out).toContain(
      '\n-    "description": "Echoes text.",\n+    "description": "Echoes the text back, unchanged.",\n',
    );
    expect(r.out).not.toMatch(/^system prompt differs/m);
  });

  it('a trace written before prompts and tool specs were recorded: the hashes, with a note', async () => {
    const a = await record('a', { system: PROMPT, toolDescription: 'Echoes text.' });
    const b = await record('b', { system: ['Other prompt.'], toolDescription: 'Other.' });
    for (const t of [a, b]) {
      const events = (await readFile(join(t, 'events.jsonl'), 'utf8'))
        .trim()
        .split('\n')
        .filter((l) => !/"type":"(prompt|tool_specs)"/.test(l));
      await writeFile(join(t, 'events.jsonl'), events.join('\n') + '\n');
      const steps = (await readFile(join(t, 'steps.jsonl'), 'utf8'))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      for (const s of steps) if (s.model) delete s.model.system;
      await writeFile(join(t, 'steps.jsonl'), steps.map((s) => JSON.stringify(s)).join('\n') + '\n');
    }
    const r = await qitos(['diff', a, b], dir);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(
      /^system prompt differs \(A [0-9a-f]{16}, B [0-9a-f]{16}\):\n {2}the trace of A and B does not hold the system prompt text \(written before traces recorded it\): only the hashes differ$/m,
    );
    expect(r.out).toMatch(
      /^tool specs differ \(A [0-9a-f]{16}, B [0-9a-f]{16}\):\n {2}the trace of A and B does not hold the tool specs text/m,
    );
  });

  it('qitos replay: a drift of the system prompt shows the recorded and the live prompt as a diff', async () => {
    const a = await record('a', { system: PROMPT });
    await editManifest(a, (m) => {
      m.config.agent.system = m.config.agent.system.replace('Never guess.', 'Never, ever guess.');
    });
    const r = await qitos(['replay', a, '--quiet'], dir);
    expect(r.code).toBe(1);
    expect(r.out).toContain(
      'drift: replay drift at step 1: the model request differs in system prompt\n  --- recorded\n  +++ replay\n  @@ -1,4 +1,4 @@\n',
    );
    expect(r.out).toContain('\n  -Never guess.\n  +Never, ever guess.\n');
    const j = JSON.parse((await qitos(['replay', a, '--json', '--allow-drift'], dir)).out);
    expect(j.drifts[0].texts).toEqual([
      { part: 'system', diff: expect.stringContaining('\n-Never guess.\n+Never, ever guess.\n') },
    ]);
  });
});

describe.runIf(requires('chromium'))('qitos view A B shows the prompt diff (headless Chromium)', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
    });
  });
  afterAll(() => browser?.close());

  it('the header folds each differing text; its lines are marked added and removed, as text', async () => {
    const a = await record('a', { system: [...PROMPT, '<img src=x onerror="document.title=1">'] });
    const b = await record('b', { system: PROMPT.map((l) => (l === 'Never guess.' ? 'Never guess; <b>ask</b>.' : l)) });
    expect((await qitos(['view', a, b, '-o', 'pair.html'], dir)).code).toBe(0);
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(pathToFileURL(join(dir, 'pair.html')).href);
    await page.waitForSelector('body[data-ready="true"]');
    const box = page.locator('header details.textdiff').first();
    expect(await box.locator('summary').innerText()).toMatch(
      /^system prompt differs \(A [0-9a-f]{16}, B [0-9a-f]{16}\)$/,
    );
    await box.locator('summary').click();
    expect(await box.locator('span.del').allInnerTexts()).toEqual([
      '-Never guess.\n',
      '-<img src=x onerror="document.title=1">\n',
    ]);
    expect(await box.locator('span.add').allInnerTexts()).toEqual(['+Never guess; <b>ask</b>.\n']);
    expect(await page.locator('img, b').count()).toBe(0);
    expect(await page.title()).not.toBe('1');
    expect(errors).toEqual([]);
    await page.close();
  });
});

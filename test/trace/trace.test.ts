import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Engine, TRACE_VERSION, applyStateDiff, decide } from '../../src/index.js';
import { ScriptedModel } from '../../src/models/index.js';
import { TraceError, readManifest, readTrace, traceTexts } from '../../src/trace/index.js';
import { jsonParser } from '../../src/kit/parsers/index.js';
import { ModelPathAgent, ScriptAgent, addTool, noopTool, tempDir } from '../helpers/kernel-fixtures.js';

describe('trace', () => {
  it('writes manifest, events and steps; manifest records what rebuilds the run', async () => {
    const dir = await tempDir();
    const model = new ScriptedModel([
      { reasoning: 'hmm', text: '{"action":{"name":"add","args":{"a":1,"b":2}}}', usage: { input: 20, output: 5 } },
      '{"final_answer":"3"}',
    ]);
    const agent = new ModelPathAgent({
      model,
      parser: jsonParser(),
      tools: [addTool],
      config: { maxSteps: 5 },
      variant: 'baseline',
    });
    const r = await new Engine({
      agent,
      trace: { dir, agentSource: { module: 'agents/x.ts', export: 'X' }, config: { a: 1 } },
      seed: 7,
    }).run({ id: 'task-1', objective: '1+2' });
    expect(r.state.messages[0]).toMatchObject({
      role: 'user',
      info: {
        agent: 'ModelPathAgent',
        model: 'scripted:script',
        variant: 'baseline',
        tools: { add: true },
        system: 'You are a test agent.',
      },
    });
    const t = await readTrace(r.traceDir!);
    expect(t.warnings).toEqual([]);
    const m = t.manifest;
    expect(m).toMatchObject({
      schema: 'qitos.trace',
      version: TRACE_VERSION,
      runId: r.runId,
      status: 'completed',
      agent: { name: 'ModelPathAgent', module: 'agents/x.ts', export: 'X', variant: 'baseline' },
      task: { id: 'task-1', objective: '1+2' },
      model: { id: 'scripted:script' },
      parser: 'json',
      tools: ['add'],
      seed: 7,
      parent: null,
      summary: { stopReason: 'final', finalResult: '3', steps: 2 },
    });
    expect(m.hashes.config).toMatch(/^[0-9a-f]{16}$/);
    expect(m.hashes.systemPrompt).toMatch(/^[0-9a-f]{16}$/);
    expect(m.summary?.usage.tokens.input).toBe(20);
    expect(t.steps.map((s) => s.step)).toEqual([1, 2]);
    expect(t.steps[0].model?.response.parts[0]).toMatchObject({ type: 'reasoning', text: 'hmm' });
    expect(t.steps[0].model?.hashes.request).toMatch(/^[0-9a-f]{16}$/);
    // the system prompt text is recorded on the first model call, and again only when it changes
    expect(t.steps[0].model?.system).toBe('You are a test agent.');
    expect(t.steps[1].model && 'system' in t.steps[1].model).toBe(false);
    expect(t.steps[0].results[0]).toMatchObject({ name: 'add', output: '3', status: 'success' });
    expect(t.events.map((e) => e.type)).toEqual([
      'run_start',
      'prompt',
      'tool_specs',
      'reasoning-start',
      'reasoning-end',
      'tool_state',
      'run_end',
    ]);
    expect(t.events.map((e) => e.seq)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    // the texts behind the manifest's hashes, once each, right after run_start
    expect(t.events[1]).toMatchObject({
      step: 0,
      phase: 'init',
      data: { hash: m.hashes.systemPrompt, text: 'You are a test agent.' },
    });
    expect(t.events[2]).toMatchObject({
      step: 0,
      phase: 'init',
      data: { hash: m.hashes.toolSchemas, specs: [expect.objectContaining({ name: 'add' })] },
    });
  });

  it(
    'a system prompt built from the state: the manifest hashes the first one, and every ' +
      'prompt sent has its text in the trace',
    async () => {
      class StepPrompt extends ModelPathAgent {
        override buildSystemPrompt(state?: { step: number }): string {
          return `You are at step ${state!.step}.`;
        }
      }
      const dir = await tempDir();
      const model = new ScriptedModel(['{"action":{"name":"add","args":{"a":1,"b":2}}}', '{"final_answer":"3"}']);
      const r = await new Engine({
        agent: new StepPrompt({ model, parser: jsonParser(), tools: [addTool] }),
        trace: { dir },
      }).run('1+2');
      const t = await readTrace(r.traceDir!);
      const texts = traceTexts(t);
      expect(texts.prompts.get(t.manifest.hashes.systemPrompt!)).toBe('You are at step 0.');
      expect(t.steps.map((s) => texts.prompts.get(s.model!.hashes.system))).toEqual([
        'You are at step 1.',
        'You are at step 2.',
      ]);
      expect(texts.toolSpecs.get(t.manifest.hashes.toolSchemas!)?.map((s) => s.name)).toEqual(['add']);
    },
  );

  it('the initial state plus the step diffs rebuild the final state', async () => {
    const dir = await tempDir();
    const model = new ScriptedModel([
      '{"action":{"name":"add","args":{"a":1,"b":2}}}',
      'bad reply',
      '{"final_answer":"3"}',
    ]);
    const r = await new Engine({
      agent: new ModelPathAgent({ model, parser: jsonParser(), tools: [addTool] }),
      trace: { dir },
    }).run('1+2');
    const t = await readTrace(r.traceDir!);
    let s = t.manifest.initialState as Record<string, unknown>;
    for (const step of t.steps) s = applyStateDiff(s, step.stateDiff);
    expect(s).toEqual(JSON.parse(JSON.stringify(r.state)));
  });

  it('full stream mode records every delta and tool state move', async () => {
    const dir = await tempDir();
    const model = new ScriptedModel(['{"action":{"name":"noop","args":{}}}', '{"final_answer":"x"}'], { chunkSize: 8 });
    const r = await new Engine({
      agent: new ModelPathAgent({ model, parser: jsonParser(), tools: [noopTool] }),
      trace: { dir, streamDeltas: true },
    }).run('t');
    const t = await readTrace(r.traceDir!);
    const types = t.events.filter((e) => e.step === 1).map((e) => e.type);
    expect(types).toEqual([
      'step-start',
      'text-delta',
      'text-delta',
      'text-delta',
      'text-delta',
      'text-delta',
      'step-finish',
      'tool_state',
      'tool_state',
      'tool_state',
    ]);
  });

  it('a trace whose last line was cut by a crash is read, with a warning', async () => {
    const dir = await tempDir();
    const r = await new Engine({
      agent: new ScriptAgent([decide.call('noop'), decide.call('noop'), decide.final('x')], { tools: [noopTool] }),
      trace: { dir },
    }).run('t');
    const steps = join(r.traceDir!, 'steps.jsonl');
    const text = await readFile(steps, 'utf8');
    await writeFile(steps, text.slice(0, text.length - 40)); // cut in the middle of the last line
    const t = await readTrace(r.traceDir!);
    expect(t.steps.map((s) => s.step)).toEqual([1, 2]);
    expect(t.warnings).toEqual(['steps.jsonl: dropped line 3, cut off mid-write']);
  });

  it('a corrupt line in the middle is an error naming file and line', async () => {
    const dir = await tempDir();
    const r = await new Engine({ agent: new ScriptAgent([decide.wait(), decide.final('x')]), trace: { dir } }).run('t');
    const steps = join(r.traceDir!, 'steps.jsonl');
    const lines = (await readFile(steps, 'utf8')).split('\n');
    lines[0] = '{not json';
    await writeFile(steps, lines.join('\n'));
    await expect(readTrace(r.traceDir!)).rejects.toThrow('corrupt trace: steps.jsonl line 1 is not JSON');
  });

  it('refuses folders that are not traces and traces from a newer schema', async () => {
    const dir = await tempDir();
    await expect(readTrace(join(dir, 'missing'))).rejects.toThrow(/is not a folder/);
    await expect(readTrace(dir)).rejects.toThrow(/no manifest.json/);
    await writeFile(join(dir, 'manifest.json'), JSON.stringify({ schema: 'qitos.trace', version: TRACE_VERSION + 1 }));
    await expect(readManifest(dir)).rejects.toThrow(TraceError);
    await expect(readManifest(dir)).rejects.toThrow(/newer than this qitos supports/);
    await writeFile(join(dir, 'manifest.json'), '{"schema":"other"}');
    await expect(readManifest(dir)).rejects.toThrow(/expected "qitos.trace"/);
  });

  it('appends are flushed at step boundaries: a running trace is readable mid-run', async () => {
    const dir = await tempDir();
    let seen = -1;
    let traceDir = '';
    class Peek extends ScriptAgent {
      override observe(state: { step: number }) {
        if (state.step === 3) {
          // read our own trace while running: two complete steps, status running
          return readTrace(traceDir).then((t) => {
            seen = t.steps.length;
            expect(t.manifest.status).toBe('running');
          });
        }
        return undefined;
      }
    }
    const engine = new Engine({
      agent: new Peek([decide.wait(), decide.wait(), decide.final('x')]),
      trace: { dir },
      hooks: [(e) => void (e.type === 'run_start' && (traceDir = e.traceDir!))],
    });
    const r = await engine.run('t');
    expect(r.stopReason).toBe('final');
    expect(seen).toBe(2);
  });

  it('a manifest left by a killed process is still valid JSON (written by rename)', async () => {
    const dir = await tempDir();
    const r = await new Engine({ agent: new ScriptAgent([decide.final('x')]), trace: { dir } }).run('t');
    await appendFile(join(r.traceDir!, 'events.jsonl'), '');
    const files = await import('node:fs/promises').then((fs) => fs.readdir(r.traceDir!));
    expect(files.sort()).toEqual(['events.jsonl', 'manifest.json', 'steps.jsonl']);
  });
});

describe('SIGINT', () => {
  it('a real SIGINT ends the run interrupted with a finalized trace', async () => {
    const { spawn } = await import('node:child_process');
    const { resolve } = await import('node:path');
    const dir = await tempDir();
    const root = resolve(__dirname, '../..');
    const child = spawn(
      process.execPath,
      [
        '--import',
        resolve(root, 'node_modules/tsx/dist/loader.mjs'),
        resolve(root, 'test/fixtures/sigint-run.ts'),
        dir,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    await new Promise<void>((res, rej) => {
      const t = setTimeout(() => rej(new Error(`child never became ready: ${err}`)), 15_000);
      child.stdout.on('data', (d) => {
        out += d;
        if (out.includes('ready') && !child.killed) {
          clearTimeout(t);
          child.kill('SIGINT');
          res();
        }
      });
    });
    const code = await new Promise<number | null>((res) => child.on('close', res));
    if (code !== 0) throw new Error(`child exited ${code}: ${JSON.stringify({ out, err })}`);
    const [, reason, traceDir] = /ready\n(\S+) (\S+)/.exec(out)!;
    expect(reason).toBe('interrupted');
    const t = await readTrace(traceDir);
    expect(t.manifest.status).toBe('interrupted');
    expect(t.manifest.summary?.stopReason).toBe('interrupted');
    expect(t.steps[0].results[0]).toMatchObject({ status: 'error', error: expect.stringContaining('aborted') });
  });

  it('an unwritable trace folder ends the run with a stop reason, never a rejection', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'file'), 'x');
    const r = await new Engine({ agent: new ScriptAgent([decide.final('x')]), trace: { dir: join(dir, 'file') } }).run(
      't',
    );
    expect(r.stopReason).toBe('unrecoverable_error');
    expect(r.stopMessage).toMatch(/ENOTDIR|EEXIST/);
    expect(r.traceDir).toBeNull();
    expect(r.failures.at(-1)).toMatchObject({
      kind: 'trace',
      message: expect.stringContaining('could not write the trace'),
    });
  });
});

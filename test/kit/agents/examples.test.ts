import { afterEach, describe, expect, it } from 'vitest';
import { Engine } from '../../../src/engine/engine.js';
import { createModel } from '../../../src/models/index.js';
import { startFakeOpenAI, type FakeServer, type RecordedRequest } from '../../../src/kit/testing/fake-llm-servers.js';
import CalculatorAgent, {
  SAMPLE_TASK as CALC_TASK,
  scriptedCalculatorModel,
} from '../../../examples/calculator-agent.js';
import FileEditorAgent, {
  SAMPLE_TASK as EDIT_TASK,
  sampleWorkspace,
  scriptedFileEditorModel,
} from '../../../examples/file-editor-agent.js';

describe('examples (offline, on ScriptedModel)', () => {
  it('the calculator agent computes the change through the calculate tool', async () => {
    const model = scriptedCalculatorModel();
    const r = await new Engine({ agent: new CalculatorAgent({ model }), trace: false }).run(CALC_TASK);
    expect(r.stopReason).toBe('final');
    expect(Number(r.finalResult)).toBe(50 - 12 * 3.5);
    expect(r.state.metrics.toolCalls).toBe(2);
    expect(model.requests[0].messages[0].role === 'system' && model.requests[0].messages[0].content).toContain(
      '- calculate:',
    );
  });

  it('the file editor agent fixes the sample file with a multi-line edit holding an else: line', async () => {
    const env = sampleWorkspace();
    const r = await new Engine({
      agent: new FileEditorAgent({ model: scriptedFileEditorModel() }),
      env,
      trace: false,
    }).run(EDIT_TASK);
    expect(r.stopReason).toBe('final');
    expect(env.snapshot()['pricing.py']).toBe(
      'def price(amount, member):\n    if member:\n        return amount * 0.9\n    else:\n        return amount\n',
    );
    expect(r.state.metrics).toMatchObject({ toolCalls: 3, toolErrors: 0 });
    expect(r.finalResult).toMatch(/full price/);
  });
});

describe('examples (online, on a configured model)', () => {
  const servers: FakeServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  it('the calculator agent runs over an OpenAI-compatible server, reading tool results from the conversation it is sent', async () => {
    // The server answers like a model: each reply reads the latest observation from the request it got.
    const lastObservation = (req: RecordedRequest): string => {
      const text = req.body.messages
        .map((m: { content: unknown }) => (typeof m.content === 'string' ? m.content : ''))
        .join('\n');
      const all = [...text.matchAll(/Observation from calculate: .* = (\S+)/g)];
      return all.at(-1)?.[1] ?? 'none';
    };
    const srv = await startFakeOpenAI((req, i) =>
      i === 0
        ? { text: 'Thought: 12 pens at 3.5.\nAction: calculate(expression="12 * 3.5")', chunkSize: 7 }
        : i === 1
          ? {
              text: `Thought: change from 50.\nAction: calculate(expression="50 - ${lastObservation(req)}")`,
              chunkSize: 5,
            }
          : { text: `Final Answer: ${lastObservation(req)}` },
    );
    servers.push(srv);
    const model = createModel('vllm:qwen2.5', { env: { VLLM_BASE_URL: srv.url } });
    const r = await new Engine({ agent: new CalculatorAgent({ model }), trace: false }).run(CALC_TASK);
    expect(r.stopReason).toBe('final');
    expect(Number(r.finalResult)).toBe(8);
    expect(srv.requests).toHaveLength(3);
    expect(srv.requests[0].body.messages[0]).toMatchObject({
      role: 'system',
      content: expect.stringContaining('- calculate:'),
    });
    expect(r.usage.modelCalls).toBe(3);
  });
});

describe('memory example', () => {
  it('the currency agent looks each rate up once, then answers every later task of the suite from its notes file', async () => {
    const { mkdtemp, readFile, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { runSuite, SAMPLE_SUITE } = await import('../../../examples/memory-agent.js');
    const dir = await mkdtemp(join(tmpdir(), 'qitos-memory-'));
    try {
      const notes = join(dir, 'memory.md');
      const first = await runSuite(notes);
      expect(first.map((r) => r.lookups)).toEqual([1, 1, 0, 1, 1, 0, 0, 0]);
      expect(first.map((r) => r.answer)).toEqual([
        '108.00',
        '25.40',
        '54.00',
        '6.70',
        '84.75',
        '12.70',
        '26.80',
        '5.65',
      ]);
      const second = await runSuite(notes);
      expect(second.map((r) => r.lookups)).toEqual(SAMPLE_SUITE.map(() => 0));
      expect(second.map((r) => r.answer)).toEqual(first.map((r) => r.answer));
      expect(await readFile(notes, 'utf8')).toContain('## lesson (step 1)\n1 JPY = 0.0067 USD\n');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

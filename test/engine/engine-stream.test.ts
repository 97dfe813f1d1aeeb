import { describe, expect, it } from 'vitest';
import { Engine, type RunEvent, type State } from '../../src/index.js';
import { ScriptedModel } from '../../src/models/index.js';
import { jsonParser } from '../../src/kit/parsers/index.js';
import { readManifest, readTrace } from '../../src/trace/index.js';
import { ModelPathAgent, noopTool, tempDir } from '../helpers/kernel-fixtures.js';

const final = (answer: string) => JSON.stringify({ final_answer: answer });
const call = (name: string) => JSON.stringify({ action: { name, args: {} } });

describe('Engine.stream', () => {
  it("yields the run's events as they happen (deltas, tool states, phases) and ends with the result", async () => {
    const dir = await tempDir();
    const model = new ScriptedModel([call('noop'), final('the answer')], { chunkSize: 4 });
    const engine = new Engine({
      agent: new ModelPathAgent({ model, parser: jsonParser(), tools: [noopTool] }),
      trace: { dir },
    });
    const events: RunEvent<State>[] = [];
    for await (const e of engine.stream('go')) events.push(e);
    const last = events.at(-1)!;
    expect(last.type).toBe('result');
    const result = last.type === 'result' ? last.result : undefined;
    expect(result).toMatchObject({ stopReason: 'final', finalResult: 'the answer', steps: 2 });
    expect(events[0]).toMatchObject({ type: 'run_start', runId: result!.runId });
    expect(events.at(-2)).toMatchObject({ type: 'run_end', stopReason: 'final' });
    // text streams live, in order, and adds up to the reply
    const text = events
      .flatMap((e) =>
        e.type === 'model_event' && e.event.type === 'text-delta' && e.step === 2 ? [e.event.delta] : [],
      )
      .join('');
    expect(text).toBe(final('the answer'));
    expect(
      events.filter((e) => e.type === 'model_event' && e.event.type === 'text-delta' && e.step === 2).length,
    ).toBeGreaterThan(3);
    expect(events.flatMap((e) => (e.type === 'tool_state' ? [e.state.status] : []))).toEqual([
      'pending',
      'running',
      'completed',
    ]);
    expect(
      events
        .filter((e) => e.type === 'phase_start')
        .map((e) => (e.type === 'phase_start' ? `${e.step}:${e.phase}` : '')),
    ).toEqual([
      '1:observe',
      '1:decide',
      '1:act',
      '1:reduce',
      '1:check_stop',
      '2:observe',
      '2:decide',
      '2:reduce',
      '2:check_stop',
    ]);
    expect((await readManifest(result!.traceDir!)).status).toBe('completed');
  });

  it('a slow consumer holds the run back: never more than the buffer (and a few events) ahead of the reader', async () => {
    const long = 'x'.repeat(600);
    const model = new ScriptedModel([{ text: `${final(long)}` }], { chunkSize: 1 });
    let emitted = 0;
    let read = 0;
    let ahead = 0;
    const engine = new Engine({
      agent: new ModelPathAgent({ model, parser: jsonParser() }),
      hooks: [() => void emitted++],
      trace: false,
    });
    for await (const _e of engine.stream('go', { buffer: 8 })) {
      read++;
      ahead = Math.max(ahead, emitted - read);
      if (read % 50 === 0) await new Promise((r) => setTimeout(r, 1));
    }
    expect(read).toBeGreaterThan(600);
    // Without backpressure the whole reply (600+ deltas) would be emitted before the reader took the 50th.
    expect(ahead).toBeLessThanOrEqual(8 + 4);
  });

  it('leaving the loop early ends the run interrupted, with its trace finalized before the loop statement completes', async () => {
    const dir = await tempDir();
    const model = new ScriptedModel([call('noop')], { loop: true });
    const engine = new Engine({
      agent: new ModelPathAgent({ model, parser: jsonParser(), tools: [noopTool], config: { maxSteps: 1_000 } }),
      trace: { dir },
    });
    let runId = '';
    let seen = 0;
    for await (const e of engine.stream('loop forever')) {
      if (e.type === 'run_start') runId = e.runId;
      if (e.type === 'tool_state' && e.state.status === 'completed' && ++seen === 3) break;
    }
    const t = await readTrace(`${dir}/${runId}`);
    expect(t.manifest.status).toBe('interrupted');
    expect(t.manifest.summary).toMatchObject({
      stopReason: 'interrupted',
      message: 'run interrupted: the stream consumer stopped reading',
    });
    expect(t.steps.length).toBeGreaterThanOrEqual(3);
    expect(t.steps.length).toBeLessThan(10);
  });

  it("a throw in the loop body interrupts the run as well, and the caller's signal is honoured", async () => {
    const model = new ScriptedModel([call('noop')], { loop: true });
    const engine = new Engine({
      agent: new ModelPathAgent({ model, parser: jsonParser(), tools: [noopTool], config: { maxSteps: 1_000 } }),
      trace: false,
    });
    const results: string[] = [];
    const hook = (e: { type: string; stopReason?: string }) =>
      void (e.type === 'run_end' && results.push(e.stopReason!));
    const withHook = new Engine({ ...engine.options, hooks: [hook] });
    await expect(
      (async () => {
        for await (const e of withHook.stream('x')) if (e.type === 'tool_state') throw new Error('consumer failed');
      })(),
    ).rejects.toThrow('consumer failed');
    expect(results).toEqual(['interrupted']);
    const ctl = new AbortController();
    const events: string[] = [];
    for await (const e of withHook.stream('x', { signal: ctl.signal })) {
      events.push(e.type);
      if (e.type === 'tool_state') ctl.abort();
    }
    expect(events.at(-1)).toBe('result');
    expect(results).toEqual(['interrupted', 'interrupted']);
  });
});

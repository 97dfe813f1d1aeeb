import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { GenerateOptions, ModelRequest, ModelResponse } from '../../src/core/index.js';
import { AgentModule, Engine, baseState, defineTool, type State, type Task } from '../../src/index.js';
import { jsonParser } from '../../src/kit/parsers/index.js';
import { ScriptedModel } from '../../src/models/index.js';

/** A scripted model that keeps the run signal each call gets and how many 'abort' listeners it had then. */
class SignalWatchingModel extends ScriptedModel {
  readonly seen: Array<{ signal: AbortSignal; listeners: number }> = [];
  override async generate(request: ModelRequest, options: GenerateOptions = {}): Promise<ModelResponse> {
    if (options.signal)
      this.seen.push({ signal: options.signal, listeners: getEventListeners(options.signal, 'abort').length });
    return super.generate(request, options);
  }
}

class ToolAgent extends AgentModule<State> {
  initState(task: Task) {
    return baseState(task, 50);
  }
}

describe('the run signal', () => {
  it("keeps one 'abort' listener for the run's life; a tool call's own is removed when the call ends", async () => {
    let during = -1;
    const model = new SignalWatchingModel(['{"action":{"name":"probe","args":{}}}'], { loop: true });
    const probe = defineTool({
      id: 'probe',
      description: 'reports how many abort listeners the run signal has while it runs',
      parameters: z.object({}),
      execute: () => {
        // The model was called earlier in this step with the run's signal.
        during = getEventListeners(model.seen[0].signal, 'abort').length;
        return 'ok';
      },
    });
    const engine = new Engine({ agent: new ToolAgent({ tools: [probe], model, parser: jsonParser() }), trace: false });
    const r = await engine.run({ id: 't', objective: 'probe', budget: { maxSteps: 5 } });
    expect(r.stopReason).toBe('budget_steps');
    expect(model.seen).toHaveLength(5);
    // Every model call saw the run's lifelong listener, and nothing a step added was left behind.
    expect(model.seen.map((s) => s.listeners)).toEqual([1, 1, 1, 1, 1]);
    // While a tool runs, the executor listens for the run's abort beside it.
    expect(during).toBe(2);
    expect(getEventListeners(model.seen[0].signal, 'abort')).toHaveLength(1);
  });

  it('ten tool calls at once raise no MaxListenersExceededWarning (the lifelong listener does not count)', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    try {
      let started = 0;
      let allStarted = () => {};
      const all = new Promise<void>((resolve) => (allStarted = resolve));
      const meet = defineTool({
        id: 'meet',
        description: 'returns once all ten calls are running',
        parameters: z.object({}),
        execute: async () => {
          if (++started === 10) allStarted();
          await all;
          return 'met';
        },
      });
      const call = '{"name":"meet","args":{}}';
      const model = new ScriptedModel([`{"actions":[${Array(10).fill(call).join(',')}]}`], { loop: true });
      const r = await new Engine({
        agent: new ToolAgent({ tools: [meet], model, parser: jsonParser() }),
        tools: { parallel: true, concurrency: 10 },
        trace: false,
      }).run({ id: 't', objective: 'meet', budget: { maxSteps: 1 } });
      expect(r.stopReason).toBe('budget_steps');
      expect(started).toBe(10);
      await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on a later tick
      expect(warnings.filter((w) => w.startsWith('MaxListenersExceededWarning'))).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('still stops a run whose tool waits, when the caller aborts', async () => {
    const caller = new AbortController();
    const wait = defineTool({
      id: 'wait',
      description: 'waits until its call is aborted',
      parameters: z.object({}),
      execute: (_args, ctx) =>
        new Promise<string>((resolve) =>
          ctx.signal.addEventListener('abort', () => resolve('aborted'), { once: true }),
        ),
    });
    const model = new ScriptedModel(['{"action":{"name":"wait","args":{}}}'], { loop: true });
    const agent = new ToolAgent({ tools: [wait], model, parser: jsonParser() });
    setTimeout(() => caller.abort(), 50);
    const r = await new Engine({ agent, trace: false }).run(
      { id: 't', objective: 'wait', budget: { maxSteps: 5 } },
      { signal: caller.signal },
    );
    expect(r.stopReason).toBe('interrupted');
  });
});

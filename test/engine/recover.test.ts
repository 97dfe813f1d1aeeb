import { describe, expect, it } from 'vitest';
import {
  AgentModule,
  EnvError,
  Engine,
  ModelError,
  baseState,
  decide,
  type Decision,
  type Env,
  type State,
  type Task,
} from '../../src/index.js';
import { ScriptedModel } from '../../src/models/index.js';
import { jsonParser } from '../../src/kit/parsers/index.js';
import { readTrace } from '../../src/trace/index.js';
import { ModelPathAgent, ScriptAgent, tempDir } from '../helpers/kernel-fixtures.js';

describe('RECOVER', () => {
  it('feeds a parse error back to the model, which then recovers', async () => {
    const model = new ScriptedModel(['I think the answer is 4', '{"final_answer":"4"}']);
    const r = await new Engine({ agent: new ModelPathAgent({ model, parser: jsonParser() }), trace: false }).run('2+2');
    expect([r.stopReason, r.finalResult, r.steps]).toEqual(['final', '4', 2]);
    const last = model.requests[1].messages.at(-1);
    expect(last?.role).toBe('user');
    expect(JSON.stringify(last)).toMatch(/Error \(parse\) in step 1: No JSON decision object/);
    expect(r.failures).toEqual([
      { step: 1, kind: 'parse', message: expect.stringContaining('No JSON decision'), fatal: false },
    ]);
    expect(r.state.metadata.lastError).toMatchObject({ step: 1, kind: 'parse' });
  });

  it('feeds a transport error back and goes on', async () => {
    const model = new ScriptedModel([
      { error: new ModelError('server', 'HTTP 503 after 3 retries', 503) },
      '{"final_answer":"ok"}',
    ]);
    const r = await new Engine({ agent: new ModelPathAgent({ model, parser: jsonParser() }), trace: false }).run('t');
    expect([r.stopReason, r.finalResult]).toEqual(['final', 'ok']);
    expect(r.failures[0]).toMatchObject({ kind: 'model_transport', fatal: false });
  });

  it('recovers from env errors in OBSERVE', async () => {
    let n = 0;
    const env: Env = {
      name: 'flaky',
      observe: () => {
        if (n++ === 0) throw new EnvError('sensor offline');
        return 'fine';
      },
      ops: (() => undefined) as Env['ops'],
    };
    const r = await new Engine({ agent: new ScriptAgent([decide.final('x')]), env, trace: false }).run('t');
    expect([r.stopReason, r.steps]).toEqual(['final', 2]);
    expect(r.failures[0]).toMatchObject({ step: 1, kind: 'env' });
  });

  it('ends unrecoverable_error after maxRecoveries consecutive failures', async () => {
    const model = new ScriptedModel(['nope'], { loop: true });
    const dir = await tempDir();
    const r = await new Engine({
      agent: new ModelPathAgent({ model, parser: jsonParser() }),
      maxRecoveries: 2,
      trace: { dir },
    }).run('t');
    expect(r.stopReason).toBe('unrecoverable_error');
    expect(r.steps).toBe(3);
    expect(r.stopMessage).toMatch(/gave up after 2 consecutive recoveries/);
    const t = await readTrace(r.traceDir!);
    expect(t.manifest.status).toBe('failed');
    expect(t.events.filter((e) => e.type === 'recover').map((e) => (e.data as { fatal: boolean }).fatal)).toEqual([
      false,
      false,
      true,
    ]);
  });

  it('counts consecutive failures: a good step resets the count', async () => {
    const model = new ScriptedModel(['bad', '{"wait":true}', 'bad', '{"wait":true}', 'bad', '{"final_answer":"done"}']);
    const r = await new Engine({
      agent: new ModelPathAgent({ model, parser: jsonParser() }),
      maxRecoveries: 1,
      trace: false,
    }).run('t');
    expect([r.stopReason, r.steps]).toEqual(['final', 6]);
  });

  it('a bad request (4xx) is not retried by feeding back: the run ends', async () => {
    const model = new ScriptedModel([{ error: new ModelError('bad_request', 'invalid model name', 400) }]);
    const r = await new Engine({ agent: new ModelPathAgent({ model, parser: jsonParser() }), trace: false }).run('t');
    expect(r.stopReason).toBe('unrecoverable_error');
    expect(r.stopMessage).toMatch(/invalid model name/);
  });

  it('a bug in reduce ends the run at once with the error in the manifest, never as a rejection', async () => {
    class Buggy extends ScriptAgent {
      override reduce(): State {
        throw new TypeError("Cannot read properties of undefined (reading 'x')");
      }
    }
    const dir = await tempDir();
    const r = await new Engine({ agent: new Buggy([decide.wait()]), trace: { dir } }).run('t');
    expect([r.stopReason, r.steps]).toEqual(['unrecoverable_error', 1]);
    const t = await readTrace(r.traceDir!);
    expect(t.manifest.summary?.failures[0]).toMatchObject({
      kind: 'internal',
      fatal: true,
      message: expect.stringContaining("reading 'x'"),
    });
    expect(t.steps[0].error).toMatchObject({ kind: 'internal', recovered: false });
  });

  it('initState throwing still ends with a trace and a stop reason', async () => {
    class Broken extends AgentModule<State> {
      initState(_t: Task): State {
        throw new Error('bad config');
      }
    }
    const dir = await tempDir();
    const r = await new Engine({ agent: new Broken(), trace: { dir } }).run('t');
    expect(r.stopReason).toBe('unrecoverable_error');
    expect(r.stopMessage).toMatch(/bad config/);
    const t = await readTrace(r.traceDir!);
    expect(t.manifest.summary?.stopReason).toBe('unrecoverable_error');
  });

  it('a model path without a model is a clear internal error', async () => {
    class NoModel extends AgentModule<State> {
      initState(t: Task) {
        return baseState(t);
      }
    }
    const r = await new Engine({ agent: new NoModel(), trace: false }).run('t');
    expect(r.stopReason).toBe('unrecoverable_error');
    expect(r.stopMessage).toMatch(/has no model/);
  });

  it('an invalid decision from agent code is reported, not crashing', async () => {
    const agent = new ScriptAgent([{ mode: 'act', actions: [] } as unknown as Decision]);
    const r = await new Engine({ agent, trace: false }).run('t');
    expect(r.stopReason).toBe('unrecoverable_error');
    expect(r.stopMessage).toMatch(/at least one action/);
  });

  it('a scripted model that runs out fails loudly', async () => {
    const model = new ScriptedModel(['{"wait":true}']);
    const r = await new Engine({ agent: new ModelPathAgent({ model, parser: jsonParser() }), trace: false }).run('t');
    expect(r.stopReason).toBe('unrecoverable_error');
    expect(r.stopMessage).toMatch(/script exhausted/);
  });
});

describe('invalid states and policy retries', () => {
  it('a state with an invalid maxSteps ends the run with a message naming the field', async () => {
    for (const maxSteps of [Number.NaN, -1, 0]) {
      class Bad extends AgentModule<State> {
        initState(t: Task): State {
          return { ...baseState(t), maxSteps };
        }
      }
      const r = await new Engine({ agent: new Bad(), trace: false }).run('t');
      expect(r.stopReason).toBe('unrecoverable_error');
      expect(r.stopMessage).toMatch(/Bad\.initState returned a state that is invalid: maxSteps: /);
      expect(r.steps).toBe(0);
    }
  });

  it('a model call retried after a policy handled its error records the retried request', async () => {
    const dir = await tempDir();
    const model = new ScriptedModel([
      '{"wait":true}',
      { error: new ModelError('context_overflow', 'prompt is too long') },
      '{"final_answer":"ok"}',
    ]);
    const shrink = {
      name: 'shrink',
      onModelError: (_e: ModelError, ctx: { state: State }) => ({
        state: { ...ctx.state, messages: ctx.state.messages.slice(-1) },
      }),
    };
    const r = await new Engine({
      agent: new ModelPathAgent({ model, parser: jsonParser() }),
      policies: [shrink],
      trace: { dir },
    }).run('t');
    expect(r.stopReason).toBe('final');
    const t = await readTrace(r.traceDir!);
    const [failed, retried] = model.requests.slice(1);
    expect(retried.messages.length).toBeLessThan(failed.messages.length);
    expect(t.steps[1].model?.messageCount).toBe(retried.messages.length);
  });
});

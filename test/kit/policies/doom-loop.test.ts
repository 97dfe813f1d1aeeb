import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Engine, decide, type ActionResult, type Decision, type Policy } from '../../../src/index.js';
import { ScriptedModel } from '../../../src/models/index.js';
import { doomLoop, findRepetition } from '../../../src/kit/policies/index.js';
import { jsonParser } from '../../../src/kit/parsers/index.js';
import { readTrace } from '../../../src/trace/index.js';
import { ModelPathAgent, ScriptAgent, noopTool, tempDir } from '../../helpers/kernel-fixtures.js';
import { editTool, echoTool, policyCtx, readTool, runOf, stateWith } from '../../helpers/policies-fixtures.js';

const call = (name: string, args: Record<string, unknown> = {}) => decide.call(name, args);
const jsonCall = (name: string, args: Record<string, unknown> = {}) => JSON.stringify({ action: { name, args } });

/** Feeds decisions (with optional outputs) to a policy's checkStop, one step each; returns the first verdict and its step. */
function feed(factory: Policy, steps: Array<{ d: Decision; outputs?: string[] }>, runId = 'r') {
  const state = stateWith([]);
  const events: Array<{ type: string; data: Record<string, unknown> }> = [];
  const policy = runOf(factory, runId);
  for (let i = 0; i < steps.length; i++) {
    const { d, outputs } = steps[i];
    const results: ActionResult[] =
      d.mode === 'act'
        ? d.actions.map((a, j) => ({
            actionId: a.id,
            name: a.name,
            status: 'success',
            output: outputs?.[j] ?? 'ok',
            latencyMs: 0,
            state: {
              status: 'completed',
              input: a.args,
              output: outputs?.[j] ?? 'ok',
              time: { created: 0, start: 0, end: 0 },
            },
          }))
        : [];
    const ctx = policyCtx(state, { runId, step: i + 1, decision: d, results });
    const v = policy.checkStop!(ctx);
    events.push(...ctx.events);
    if (v) return { verdict: v as { reason: string; message: string }, step: i + 1, events };
  }
  return { verdict: undefined, step: -1, events };
}

describe('findRepetition', () => {
  it('finds the shortest block the sequence ends with, repeated threshold times', () => {
    expect(findRepetition(['a', 'a', 'a'], 3, 4)).toBe(1);
    expect(findRepetition(['x', 'a', 'b', 'a', 'b', 'a', 'b'], 3, 4)).toBe(2);
    expect(findRepetition(['a', 'a', 'b', 'a', 'a', 'b', 'a', 'a', 'b'], 3, 4)).toBe(3);
    expect(findRepetition(['a', 'b', 'a', 'b'], 3, 4)).toBeUndefined();
    expect(findRepetition(['a', 'b', 'a', 'b', 'a', 'b', 'c'], 3, 4)).toBeUndefined();
    // A cycle longer than maxCycleLength is not looked for.
    expect(findRepetition(['a', 'b', 'c', 'a', 'b', 'c', 'a', 'b', 'c'], 3, 2)).toBeUndefined();
    expect(findRepetition(['a', 'a'], 2, 1)).toBe(1);
  });
});

describe('doomLoop policy', () => {
  it('counts the same call with arguments in another key order as the same, and names it in the stop message', () => {
    const r = feed(doomLoop(), [
      { d: call('read', { path: 'a', opts: { x: 1, y: 2 } }) },
      { d: call('read', { opts: { y: 2, x: 1 }, path: 'a' }) },
      { d: call('read', { path: 'a', opts: { x: 1, y: 2 } }) },
    ]);
    expect(r.step).toBe(3);
    expect(r.verdict).toEqual({
      reason: 'doom_loop',
      message: 'doom loop: same call read(opts={"x":1,"y":2}, path="a") repeated 3 times in steps 1-3',
    });
    const stop = r.events.find((e) => e.type === 'doom_loop:stop')!;
    expect(stop.data).toMatchObject({
      pattern: 'repeat',
      cycleLength: 1,
      repeats: 3,
      fromStep: 1,
      toStep: 3,
      steps: [1, 2, 3],
      action: 'stop',
    });
  });

  it('does not count calls that differ in arguments', () => {
    const r = feed(
      doomLoop(),
      [1, 2, 3, 4, 5, 6].map((i) => ({ d: call('read', { path: `f${i}` }) })),
    );
    expect(r.verdict).toBeUndefined();
  });

  it('catches an A,B cycle across steps and a longer cycle, respecting threshold and maxCycleLength', () => {
    const ab = [1, 2, 3].flatMap(() => [{ d: call('read', { path: 'a' }) }, { d: call('edit', { path: 'a' }) }]);
    const r = feed(doomLoop(), ab);
    expect(r.step).toBe(6);
    expect(r.verdict!.message).toBe('doom loop: cycle [read(path="a"), edit(path="a")] repeated 3 times in steps 1-6');
    expect(feed(doomLoop({ threshold: 4 }), ab).verdict).toBeUndefined();
    const abc = [1, 2, 3].flatMap(() => ['a', 'b', 'c'].map((p) => ({ d: call('read', { path: p }) })));
    expect(feed(doomLoop({ maxCycleLength: 2 }), abc).verdict).toBeUndefined();
    expect(feed(doomLoop({ maxCycleLength: 3 }), abc).step).toBe(9);
  });

  it('catches a loop inside one step of parallel calls', () => {
    const d = decide.act([
      { name: 'read', args: { path: 'a' } },
      { name: 'read', args: { path: 'a' } },
      { name: 'read', args: { path: 'a' } },
    ]);
    expect(feed(doomLoop(), [{ d }]).verdict!.message).toBe(
      'doom loop: same call read(path="a") repeated 3 times in step 1',
    );
  });

  it('compare "call+result": a poll whose output changes is progress, the same output is not', () => {
    const poll = (out: string) => ({ d: call('status'), outputs: [out] });
    expect(
      feed(doomLoop({ compare: 'call+result' }), [poll('1%'), poll('50%'), poll('99%'), poll('done')]).verdict,
    ).toBeUndefined();
    const r = feed(doomLoop({ compare: 'call+result' }), [poll('50%'), poll('50%'), poll('50%')]);
    expect(r.verdict!.message).toBe(
      'doom loop: no progress: same call status() returned the same result 3 times in steps 1-3',
    );
    expect(r.events[0].data.noProgress).toBe(true);
  });

  it('nameOnly tools: drifting arguments with the same result are a loop, a new result is not', () => {
    const search = (q: string, out: string) => ({ d: call('search', { q, nonce: Math.random() }), outputs: [out] });
    const policy = () => doomLoop({ nameOnly: ['search'] });
    expect(feed(policy(), [search('a', 'none'), search('a ', 'none'), search('A', 'none')]).verdict!.message).toBe(
      'doom loop: no progress: same call search(…) returned the same result 3 times in steps 1-3',
    );
    expect(feed(policy(), [search('a', 'none'), search('b', 'one hit'), search('c', 'none')]).verdict).toBeUndefined();
    // Without nameOnly, drifting arguments hide the loop.
    expect(feed(doomLoop(), [search('a', 'none'), search('a', 'none'), search('a', 'none')]).verdict).toBeUndefined();
  });

  it('warn: warns on the first detection and stops only once the loop goes round again', () => {
    const steps = [1, 2, 3, 4, 5].flatMap(() => [
      { d: call('read', { path: 'a' }) },
      { d: call('edit', { path: 'a' }) },
    ]);
    const r = feed(doomLoop({ onDetect: 'warn' }), steps);
    expect(r.events.map((e) => e.type)).toEqual(['doom_loop:warn', 'doom_loop:stop']);
    expect(r.events[0].data).toMatchObject({ action: 'warn', fromStep: 1, toStep: 6 });
    expect(String(r.events[0].data.note)).toContain('you are repeating yourself');
    expect(r.step).toBe(8);
    expect(r.verdict!.message).toBe(
      'doom loop: cycle [read(path="a"), edit(path="a")] repeated 3 times in steps 3-8, after a warning at step 6',
    );
  });

  it('keeps the memory of concurrent runs apart, even runs with the same id', () => {
    const policy = doomLoop();
    const state = stateWith([]);
    const runs = { r1: runOf(policy, 'same'), r2: runOf(policy, 'same') };
    const step = (run: keyof typeof runs, step: number) =>
      runs[run].checkStop!(
        policyCtx(state, { runId: 'same', step, decision: call('read', { path: 'a' }), results: [] }),
      );
    // Interleaved: each run sees its own two calls, no loop yet.
    expect([step('r1', 1), step('r2', 1), step('r1', 2), step('r2', 2)]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(step('r1', 3)).toMatchObject({ reason: 'doom_loop' });
    // A new run starts with an empty memory.
    runs.r2 = runOf(policy, 'same');
    expect(step('r2', 1)).toBeUndefined();
  });

  it('rejects bad options with a message naming the option', () => {
    expect(() => doomLoop({ threshold: 1 })).toThrow(/threshold must be an integer >= 2/);
    expect(() => doomLoop({ maxCycleLength: 0 })).toThrow(/maxCycleLength/);
    expect(() => doomLoop({ onDetect: 'ask' as never })).toThrow(/onDetect/);
    expect(() => doomLoop({ compare: 'x' as never })).toThrow(/compare/);
  });
});

describe('doomLoop in Engine runs', () => {
  it('decide path: a scripted A,B loop ends with doom_loop; the trace and the summary hold the events', async () => {
    const dir = await tempDir();
    // bash, then read, edit, read, edit, read, edit, ...
    const script = [
      call('bash', { cmd: 'ls' }),
      ...[1, 2, 3, 4].flatMap(() => [call('read', { path: 'a' }), call('edit', { path: 'a' })]),
    ];
    const agent = new ScriptAgent(script, { tools: [readTool, editTool, noopTool] });
    const r = await new Engine({ agent, policies: [doomLoop()], trace: { dir } }).run('loop');
    expect(r.stopReason).toBe('doom_loop');
    expect(r.steps).toBe(7);
    expect(r.stopMessage).toBe('doom loop: cycle [read(path="a"), edit(path="a")] repeated 3 times in steps 2-7');
    const trace = await readTrace(r.traceDir!);
    expect(trace.manifest.summary!.stopReason).toBe('doom_loop');
    expect(trace.manifest.summary!.message).toBe(r.stopMessage);
    expect(trace.manifest.summary!.policyEvents).toEqual({ 'doom_loop:stop': 1 });
    expect(trace.manifest.policies).toEqual(['doom_loop']);
    const ev = trace.events.filter((e) => e.type === 'policy');
    expect(ev).toHaveLength(1);
    expect(ev[0].data).toMatchObject({
      policy: 'doom_loop',
      event: 'doom_loop:stop',
      data: { pattern: 'cycle', cycleLength: 2, fromStep: 2, toStep: 7, steps: [2, 3, 4, 5, 6, 7] },
    });
  });

  it('model path: a model repeating a tool call ends with doom_loop and the message names the call', async () => {
    const dir = await tempDir();
    const model = new ScriptedModel([jsonCall('noop'), jsonCall('noop'), jsonCall('noop'), '{"final_answer":"never"}']);
    const agent = new ModelPathAgent({ model, parser: jsonParser(), tools: [noopTool] });
    const r = await new Engine({ agent, policies: [doomLoop()], trace: { dir } }).run('loop');
    expect(r.stopReason).toBe('doom_loop');
    expect(r.stopMessage).toBe('doom loop: same call noop() repeated 3 times in steps 1-3');
    expect(model.served).toBe(3);
    const trace = await readTrace(r.traceDir!);
    expect(trace.manifest.summary!.policyEvents).toEqual({ 'doom_loop:stop': 1 });
    expect(
      trace.events.some((e) => e.type === 'policy' && (e.data as { event: string }).event === 'doom_loop:stop'),
    ).toBe(true);
  });

  it('model path, warn: the next prompt carries the note; the loop going on ends the run', async () => {
    const dir = await tempDir();
    const model = new ScriptedModel([1, 2, 3, 4, 5].map(() => jsonCall('echo', { text: 'same' })));
    const agent = new ModelPathAgent({ model, parser: jsonParser(), tools: [echoTool] });
    const r = await new Engine({ agent, policies: [doomLoop({ onDetect: 'warn' })], trace: { dir } }).run('loop');
    expect(r.stopReason).toBe('doom_loop');
    expect(r.steps).toBe(4);
    expect(r.stopMessage).toBe(
      'doom loop: same call echo(text="same") repeated 3 times in steps 2-4, after a warning at step 3',
    );
    const last = model.requests[3].messages.at(-1)!;
    expect(last.role).toBe('user');
    expect(JSON.stringify(last.content)).toContain('you are repeating yourself');
    // The note is in that prompt only, not in the history.
    expect(JSON.stringify(r.state.messages)).not.toContain('you are repeating yourself');
    const trace = await readTrace(r.traceDir!);
    expect(trace.manifest.summary!.policyEvents).toEqual({
      'doom_loop:warn': 1,
      'doom_loop:note': 1,
      'doom_loop:stop': 1,
    });
  });

  it('model path, warn: a model that changes course after the note finishes normally', async () => {
    const model = new ScriptedModel([
      jsonCall('echo', { text: 'same' }),
      jsonCall('echo', { text: 'same' }),
      jsonCall('echo', { text: 'same' }),
      jsonCall('echo', { text: 'other' }),
      '{"final_answer":"done"}',
    ]);
    const agent = new ModelPathAgent({ model, parser: jsonParser(), tools: [echoTool] });
    const r = await new Engine({ agent, policies: [doomLoop({ onDetect: 'warn' })], trace: false }).run('loop');
    expect(r.stopReason).toBe('final');
    expect(r.finalResult).toBe('done');
  });

  it('one policy instance serves concurrent runs of one Engine', async () => {
    const policy = doomLoop();
    const looping = new ScriptAgent([call('noop')], { tools: [noopTool] });
    const engine = new Engine({ agent: looping, policies: [policy], trace: false });
    const results = await Promise.all([engine.run('a'), engine.run('b'), engine.run('c')]);
    for (const r of results) {
      expect(r.stopReason).toBe('doom_loop');
      expect(r.steps).toBe(3);
    }
  });

  it('one policy object given to two concurrent engines shares no state, even with the same run id', async () => {
    const policy = doomLoop();
    // A repeats one call; B alternates between calls that, mixed into A's window, would break A's repetition.
    const a = new Engine({
      agent: new ScriptAgent([call('read', { path: 'a' })], { tools: [readTool] }),
      policies: [policy],
      runId: 'same',
      trace: false,
    });
    let i = 0;
    const b = new Engine({
      agent: new ScriptAgent([() => call('read', { path: `b${i++}` })], { tools: [readTool], config: { maxSteps: 6 } }),
      policies: [policy],
      runId: 'same',
      trace: false,
    });
    const [ra, rb] = await Promise.all([a.run('loop'), b.run('explore')]);
    expect(ra).toMatchObject({ stopReason: 'doom_loop', steps: 3 });
    expect(rb).toMatchObject({ stopReason: 'budget_steps', steps: 6 });
  });
});

describe('doomLoop properties', () => {
  const oracle = (keys: string[], threshold: number, maxLen: number): number | undefined => {
    // First prefix end at which some block of length <= maxLen is repeated threshold times (naive).
    for (let end = 1; end <= keys.length; end++) {
      for (let len = 1; len <= maxLen; len++) {
        if (len * threshold > end) break;
        const block = keys.slice(end - len, end).join('|');
        if (
          Array.from({ length: threshold }, (_, k) => keys.slice(end - (k + 1) * len, end - k * len).join('|')).every(
            (b) => b === block,
          )
        )
          return end;
      }
    }
    return undefined;
  };
  // A key "name:value" is the call name({ v: value }) (names hold no ':').
  const run = (keys: string[], threshold: number, maxLen: number) =>
    feed(
      doomLoop({ threshold, maxCycleLength: maxLen }),
      keys.map((k) => ({ d: call(k.slice(0, k.indexOf(':')), { v: k.slice(k.indexOf(':') + 1) }) })),
    );

  it('a sequence with no repetition never triggers', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(fc.constantFrom('read', 'edit', 'bash'), fc.string({ maxLength: 4 })), {
          maxLength: 60,
          selector: ([n, a]) => `${n}:${a}`,
        }),
        fc.integer({ min: 2, max: 5 }),
        fc.integer({ min: 1, max: 5 }),
        (calls, t, l) => {
          expect(
            run(
              calls.map(([n, a]) => `${n}:${a}`),
              t,
              l,
            ).verdict,
          ).toBeUndefined();
        },
      ),
    );
  });

  it('any sequence containing a cycle (length <= maxCycleLength) repeated threshold times triggers, no later than its end', () => {
    const key = fc.tuple(fc.constantFrom('read', 'edit'), fc.constantFrom('a', 'b', 'c')).map(([n, a]) => `${n}:${a}`);
    fc.assert(
      fc.property(
        fc.array(key, { maxLength: 10 }),
        fc.array(key, { minLength: 1, maxLength: 4 }),
        fc.array(key, { maxLength: 5 }),
        fc.integer({ min: 2, max: 4 }),
        (prefix, block, suffix, t) => {
          const keys = [...prefix, ...Array.from({ length: t }, () => block).flat(), ...suffix];
          const r = run(keys, t, 4);
          expect(r.verdict?.reason).toBe('doom_loop');
          expect(r.step).toBeLessThanOrEqual(prefix.length + block.length * t);
        },
      ),
    );
  });

  it('stops exactly where a naive check first finds a repeated block', () => {
    const key = fc.constantFrom('read:a', 'read:b', 'edit:a', 'edit:b', 'bash:x');
    fc.assert(
      fc.property(
        fc.array(key, { maxLength: 40 }),
        fc.integer({ min: 2, max: 4 }),
        fc.integer({ min: 1, max: 4 }),
        (keys, t, l) => {
          const expected = oracle(keys, t, l);
          const r = run(keys, t, l);
          expect(r.verdict === undefined ? undefined : r.step).toBe(expected);
        },
      ),
    );
  });
});

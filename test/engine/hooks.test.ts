import { describe, expect, it } from 'vitest';
import { Engine, decide, type HookEvent } from '../../src/index.js';
import { readTrace } from '../../src/trace/index.js';
import { ScriptAgent, noopTool, tempDir } from '../helpers/kernel-fixtures.js';

describe('hooks', () => {
  it('receive run, phase and tool-state events', async () => {
    const types: string[] = [];
    const tool: string[] = [];
    const hook = (e: HookEvent) => {
      types.push(e.type);
      if (e.type === 'tool_state') tool.push(e.state.status);
    };
    await new Engine({
      agent: new ScriptAgent([decide.call('noop'), decide.final('x')], { tools: [noopTool] }),
      hooks: [hook],
      trace: false,
    }).run('t');
    expect(types[0]).toBe('run_start');
    expect(types.at(-1)).toBe('run_end');
    expect(tool).toEqual(['pending', 'running', 'completed']);
  });

  it('a hook that throws is recorded as hook_error and the run goes on', async () => {
    const dir = await tempDir();
    const seen: HookEvent[] = [];
    const bad = (e: HookEvent) => {
      if (e.type === 'phase_start' && e.phase === 'act') throw new Error('hook bug');
    };
    const rejecting = async (e: HookEvent) => {
      if (e.type === 'run_start') throw new Error('async hook bug');
    };
    const r = await new Engine({
      agent: new ScriptAgent([decide.call('noop'), decide.final('x')], { tools: [noopTool] }),
      hooks: [bad, rejecting, (e) => void seen.push(e)],
      trace: { dir },
    }).run('t');
    expect(r.stopReason).toBe('final');
    const errors = seen.filter((e) => e.type === 'hook_error');
    expect(errors.map((e) => (e as { message: string }).message).sort()).toEqual(['async hook bug', 'hook bug']);
    const t = await readTrace(r.traceDir!);
    expect(t.events.filter((e) => e.type === 'hook_error')).toHaveLength(2);
    expect(t.manifest.summary?.failures.filter((f) => f.kind === 'hook')).toHaveLength(2);
  });

  it('failOnHookError ends the run with unrecoverable_error', async () => {
    const bad = (e: HookEvent) => {
      if (e.type === 'phase_end' && e.phase === 'decide') throw new Error('strict hook');
    };
    const r = await new Engine({
      agent: new ScriptAgent([decide.wait()]),
      hooks: [bad],
      failOnHookError: true,
      trace: false,
    }).run('t');
    expect(r.stopReason).toBe('unrecoverable_error');
    expect(r.stopMessage).toMatch(/strict hook/);
    expect(r.steps).toBe(1);
  });
});

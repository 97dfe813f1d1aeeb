import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ActionExecutor } from '../../src/engine/action-executor.js';
import { ToolRegistry, defineTool, type Action, type ToolState } from '../../src/index.js';
import { actContext } from '../../src/kit/testing/tool-context.js';
import { addTool } from '../helpers/kernel-fixtures.js';

function ctx(signal = new AbortController().signal) {
  const states: Array<[string, ToolState['status']]> = [];
  return {
    states,
    ctx: actContext({ signal, onState: (a: Action, s: ToolState) => void states.push([a.id, s.status]) }),
  };
}
const call = (name: string, args: Record<string, unknown>, extra: Partial<Action> = {}): Action => ({
  id: `id_${name}`,
  name,
  args,
  ...extra,
});

describe('ActionExecutor', () => {
  it('moves a call pending -> running -> completed with timestamps', async () => {
    const { ctx: c, states } = ctx();
    const [r] = await new ActionExecutor(new ToolRegistry([addTool])).run([call('add', { a: 1, b: 2 })], c);
    expect(r).toMatchObject({ status: 'success', output: '3', state: { status: 'completed', output: '3' } });
    expect(states.map((s) => s[1])).toEqual(['pending', 'running', 'completed']);
    const t = (r.state as Extract<ToolState, { status: 'completed' }>).time;
    expect(t.created).toBeLessThanOrEqual(t.start);
    expect(t.start).toBeLessThanOrEqual(t.end);
  });

  it('invalid arguments come back as an error result naming the field', async () => {
    const { ctx: c, states } = ctx();
    const [r] = await new ActionExecutor(new ToolRegistry([addTool])).run([call('add', { a: 'one' })], c);
    expect(r.status).toBe('error');
    expect(r.error).toMatch(/Invalid arguments for tool "add"/);
    expect(r.error).toMatch(/- a: .*number/);
    expect(r.error).toMatch(/- b: /);
    expect(states.map((s) => s[1])).toEqual(['pending', 'error']);
  });

  it('an unknown tool lists the available ones', async () => {
    const [r] = await new ActionExecutor(new ToolRegistry([addTool])).run([call('sub', {})], ctx().ctx);
    expect(r.error).toBe('Unknown tool "sub". Available tools: add.');
  });

  it('a tool that throws becomes an error result', async () => {
    const boom = defineTool({
      id: 'boom',
      description: '',
      parameters: z.object({}),
      execute: () => {
        throw new Error('disk full');
      },
    });
    const [r] = await new ActionExecutor(new ToolRegistry([boom])).run([call('boom', {})], ctx().ctx);
    expect([r.status, r.error]).toEqual(['error', 'disk full']);
  });

  it('a tool that hangs past its timeout is cut off; its late rejection is handled', async () => {
    let aborted = false;
    const hang = defineTool({
      id: 'hang',
      description: '',
      parameters: z.object({}),
      execute: (_a, c) =>
        new Promise<string>((_res, rej) =>
          c.signal.addEventListener('abort', () => ((aborted = true), setTimeout(() => rej(new Error('late')), 5))),
        ),
    });
    const t0 = Date.now();
    const [r] = await new ActionExecutor(new ToolRegistry([hang]), { timeoutMs: 50 }).run(
      [call('hang', {})],
      ctx().ctx,
    );
    expect(r.error).toBe('Tool "hang" timed out after 50 ms');
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(aborted).toBe(true);
    await new Promise((res) => setTimeout(res, 20)); // the late rejection must not surface as unhandled
  });

  it('a per-action timeout overrides the default', async () => {
    const never = defineTool({
      id: 'never',
      description: '',
      parameters: z.object({}),
      execute: () => new Promise<string>(() => {}),
    });
    const [r] = await new ActionExecutor(new ToolRegistry([never]), { timeoutMs: 60_000 }).run(
      [call('never', {}, { timeoutMs: 20 })],
      ctx().ctx,
    );
    expect(r.error).toMatch(/timed out after 20 ms/);
  });

  it('one timeout rule: a tool with its own limit (bash timeoutMs) gets that limit plus a grace, not the executor default', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { HostEnv } = await import('../../src/envs/index.js');
    const { bashTool } = await import('../../src/kit/tools/index.js');
    const { callTimeout, TOOL_TIMEOUT_GRACE_MS } = await import('../../src/engine/action-executor.js');
    const root = mkdtempSync(join(tmpdir(), 'qitos-timeout-'));
    const host = new HostEnv({ root });
    try {
      // The executor default (300 ms) is shorter than the command; the call's own 5 s limit is what applies.
      const [r] = await new ActionExecutor(new ToolRegistry([bashTool()]), { timeoutMs: 300 }).run(
        [call('bash', { command: 'sleep 1; echo done', timeoutMs: 5000 })],
        { ...ctx().ctx, env: host },
      );
      expect(r.status).toBe('success');
      expect(r.output).toBe('done\n[exit code 0]');
      // And bash reports its own timeout (with the output so far) before the executor's cut. The limit leaves a
      // loaded machine time to start the shell and print before the kill (at 400 ms it once printed nothing).
      const [t] = await new ActionExecutor(new ToolRegistry([bashTool()]), { timeoutMs: 300 }).run(
        [call('bash', { command: 'echo partial; sleep 30', timeoutMs: 2000 })],
        { ...ctx().ctx, env: host },
      );
      expect(t.error).toMatch(
        /^Command timed out after 2000 ms and was killed with all its child processes\. Output before the kill \(first 2 KB\):\npartial\n/,
      );
    } finally {
      host.close();
      rmSync(root, { recursive: true, force: true });
    }
    const bash = bashTool({ timeoutMs: 1000 });
    expect(callTimeout(call('bash', {}), bash, { command: 'x' }, 300)).toBe(1000 + TOOL_TIMEOUT_GRACE_MS);
    expect(callTimeout(call('bash', {}), bash, { command: 'x', timeoutMs: 600_000 }, 300)).toBe(
      600_000 + TOOL_TIMEOUT_GRACE_MS,
    );
    expect(callTimeout(call('bash', {}, { timeoutMs: 50 }), bash, { command: 'x' }, 300)).toBe(50);
    expect(callTimeout(call('add', {}), addTool, { a: 1, b: 2 }, undefined)).toBe(120_000);
    expect(callTimeout(call('add', {}), addTool, { a: 1, b: 2 }, 300)).toBe(300);
  });

  it('tool metadata updates reach the running state', async () => {
    const meta = defineTool({
      id: 'meta',
      description: '',
      parameters: z.object({}),
      execute: (_a, c) => (c.metadata({ title: 'working', metadata: { pct: 50 } }), 'done'),
    });
    const { ctx: c } = ctx();
    const seen: ToolState[] = [];
    const [r] = await new ActionExecutor(new ToolRegistry([meta])).run([call('meta', {})], {
      ...c,
      onState: (_a, s) => void seen.push(s),
    });
    expect(seen.map((s) => s.status)).toEqual(['pending', 'running', 'running', 'completed']);
    expect(r.state).toMatchObject({ status: 'completed', title: 'working', metadata: { pct: 50 } });
  });

  it('keeps the full output for the trace when a tool truncates what the model sees', async () => {
    const big = defineTool({
      id: 'big',
      description: '',
      parameters: z.object({}),
      execute: () => ({ output: 'x…(truncated)', full: 'x'.repeat(100) }),
    });
    const [r] = await new ActionExecutor(new ToolRegistry([big])).run([call('big', {})], ctx().ctx);
    expect(r.output).toBe('x'.repeat(100));
    expect(r.state).toMatchObject({ output: 'x…(truncated)' });
  });

  it('a tool returning a non-string is an error result', async () => {
    const bad = defineTool({
      id: 'bad',
      description: '',
      parameters: z.object({}),
      execute: () => 42 as unknown as string,
    });
    const [r] = await new ActionExecutor(new ToolRegistry([bad])).run([call('bad', {})], ctx().ctx);
    expect(r.error).toMatch(/expected a string or \{ output: string \}/);
  });
});

describe('ToolRegistry', () => {
  it('refuses duplicate ids and lists JSON Schema specs', () => {
    const reg = new ToolRegistry([addTool]);
    expect(() => reg.register(addTool)).toThrow(/already registered/);
    expect(reg.specs()[0]).toEqual({
      name: 'add',
      description: 'Add two numbers',
      inputSchema: {
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
      },
    });
  });

  it('defineTool rejects ids providers would refuse', () => {
    expect(() => defineTool({ id: 'bad name', description: '', parameters: z.object({}), execute: () => '' })).toThrow(
      /invalid tool id/,
    );
  });
});

describe('ActionExecutor metadata on failure', () => {
  it('keeps metadata a tool set before it threw', async () => {
    const sub = defineTool({
      id: 'sub',
      description: '',
      parameters: z.object({}),
      execute: (_a, c) => {
        c.metadata({ metadata: { childTraceDir: '/traces/x' } });
        throw new Error('child failed');
      },
    });
    const [r] = await new ActionExecutor(new ToolRegistry([sub])).run([call('sub', {})], ctx().ctx);
    expect(r.state).toMatchObject({ status: 'error', error: 'child failed', metadata: { childTraceDir: '/traces/x' } });
  });
});

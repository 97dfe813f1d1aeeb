import { resolve } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActionExecutor } from '../../../src/engine/action-executor.js';
import { Engine, ToolRegistry, newActionId, toolSpec, type AnyTool } from '../../../src/index.js';
import { MemoryEnv } from '../../../src/envs/index.js';
import { ScriptedModel } from '../../../src/models/index.js';
import { jsonParser } from '../../../src/kit/parsers/index.js';
import { connectMcp, mcpParameters, mcpToolId, type McpConnection, type McpServerConfig } from '../../../src/kit/mcp/index.js';
import { ModelPathAgent } from '../../helpers/kernel-fixtures.js';
import { actContext } from '../../helpers/act-context.js';

const ROOT = resolve(__dirname, '../../..');
const SERVER = resolve(ROOT, 'test/fixtures/mcp/server.ts');
const fixture = (name = 'fx', extra: Partial<McpServerConfig> = {}) =>
  connectMcp({ name, command: process.execPath, args: ['--import', 'tsx', SERVER], cwd: ROOT, ...extra });

// what a secret in the host process looks like; it must never reach the server
process.env.QITOS_MCP_TEST_SECRET = 'sk-do-not-leak';

let conn: McpConnection;
let tools: Map<string, AnyTool>;
beforeAll(async () => {
  conn = await fixture('fx', { env: { FIXTURE_FLAG: '1' }, outputLimits: { maxLines: 4 } });
  tools = new Map((await conn.tools()).map((t) => [t.id, t]));
}, 15_000);
afterAll(async () => {
  delete process.env.QITOS_MCP_TEST_SECRET;
  await conn?.close();
});

/** A model-path agent whose system prompt lists the tools in the parser's format. */
class McpAgent extends ModelPathAgent {
  override buildSystemPrompt(): string {
    return this.parser!.instructions(this.tools.specs());
  }
}

/** Runs one action through the real executor (argument validation, ToolState, error results). */
async function act(name: string, args: Record<string, unknown>) {
  const registry = new ToolRegistry([...tools.values()]);
  const executor = new ActionExecutor(registry, { timeoutMs: 5_000 });
  const [result] = await executor.run([{ id: newActionId(), name, args }], actContext({ step: 0, env: new MemoryEnv() }));
  return result;
}

describe('connectMcp over stdio', () => {
  it('lists the server tools with prefixed, sanitized ids and their schemas', () => {
    expect([...tools.keys()].sort()).toEqual(['fx_add', 'fx_crash', 'fx_dotted_name_tool', 'fx_echo', 'fx_env_keys', 'fx_fail', 'fx_picture', 'fx_slow']);
    const add = toolSpec(tools.get('fx_add')!);
    expect(add.description).toBe('Add two numbers');
    expect(add.inputSchema).toMatchObject({ type: 'object', properties: { a: { type: 'number' }, b: { type: 'number', description: 'second addend' } }, required: ['a', 'b'] });
    expect(toolSpec(tools.get('fx_env_keys')!).inputSchema).toMatchObject({ type: 'object' });
    expect(conn.unconvertedSchemas.size).toBe(0);
  });

  it('calls a tool and joins its text content', async () => {
    expect(await act('fx_add', { a: 2, b: 40 })).toMatchObject({ status: 'success', output: '42' });
    expect(await act('fx_echo', { text: 'hi', times: 3 })).toMatchObject({ status: 'success', output: 'hi\nhi\nhi' });
    expect(await act('fx_dotted_name_tool', {})).toMatchObject({ status: 'success', output: 'dotted ok' });
  });

  it('caps what the model sees of a long result; the whole text stays for the trace', async () => {
    const tool = tools.get('fx_echo')!;
    const out = (await tool.execute({ text: 'line', times: 5 }, { signal: new AbortController().signal } as never)) as { output: string; full?: string; metadata?: Record<string, unknown> };
    expect(out.output).toMatch(/^line\nline\nline\nline\n\n\[output truncated: showing 4 of 5 lines/);
    expect(out.full).toBe('line\nline\nline\nline\nline');
    expect(out.metadata).toEqual({ mcpServer: 'fx', mcpTool: 'echo', truncated: true });
  });

  it('maps images and blob resources to attachments, text resources to text', async () => {
    const r = await act('fx_picture', {});
    expect(r.status).toBe('success');
    expect(r.output).toBe('a pixel\nresource text');
    const state = r.state as { attachments?: unknown[] };
    expect(state.attachments).toEqual([
      { mime: 'image/png', url: expect.stringMatching(/^data:image\/png;base64,iVBOR/) },
      { mime: 'application/octet-stream', url: 'data:application/octet-stream;base64,AAEC', filename: 'data.bin' },
    ]);
  });

  it('rejects invalid arguments with our zod validation before calling the server', async () => {
    const r = await act('fx_echo', { text: '', times: 9 });
    expect(r.status).toBe('error');
    expect(r.error).toMatch(/Invalid arguments for tool "fx_echo"/);
    expect(r.error).toMatch(/- text:/);
    expect(r.error).toMatch(/- times:/);
    expect(tools.get('fx_add')!.parameters.safeParse({ a: 'x', b: 1 }).success).toBe(false);
  });

  it('turns an isError result into an error result carrying the server text', async () => {
    const r = await act('fx_fail', { message: 'disk is full' });
    expect(r).toMatchObject({ status: 'error' });
    expect(r.error).toContain('disk is full');
  });

  it('passes only PATH, HOME, LANG and the given env to the server', async () => {
    const r = await act('fx_env_keys', {});
    const keys = JSON.parse(r.output as string) as string[];
    expect(keys).toContain('FIXTURE_FLAG');
    expect(keys).toContain('PATH');
    expect(keys).not.toContain('QITOS_MCP_TEST_SECRET');
    // exactly the allow-list (those set here) plus what we passed: not USER, SHELL or TERM either
    expect(keys).toEqual(['FIXTURE_FLAG', 'HOME', 'LANG', 'PATH'].filter((k) => k === 'FIXTURE_FLAG' || process.env[k] !== undefined));
  });

  it('runs in an Engine: the model calls an MCP tool, sees the result and finishes', async () => {
    const model = new ScriptedModel([
      '{"thought": "add them", "action": {"name": "fx_add", "args": {"a": 20, "b": 22}}}',
      (req) => ({ text: JSON.stringify({ final_answer: JSON.stringify(req.messages).includes('42') ? 'sum is 42' : 'no result seen' }) }),
    ]);
    const engine = new Engine({ agent: new McpAgent({ tools: [...tools.values()], model, parser: jsonParser() }), trace: false });
    const run = await engine.run('add 20 and 22');
    expect(run.stopReason).toBe('final');
    expect(run.finalResult).toBe('sum is 42');
    // the model saw the MCP tool with the server's schema
    const system = model.requests[0].messages[0];
    expect(JSON.stringify(system)).toContain('- fx_add: Add two numbers');
    expect(JSON.stringify(system)).toContain('second addend');
  });
});

describe('MCP server failures', () => {
  it('reports a server that dies mid-call, naming the server', async () => {
    const c = await fixture('crashy');
    const crash = (await c.tools()).find((t) => t.id === 'crashy_crash')!;
    const call = Promise.resolve(crash.execute({}, { signal: new AbortController().signal } as never));
    await expect(call).rejects.toThrow(/MCP server "crashy" .* exited during the call of tool "crash"[\s\S]*crashing on purpose/);
    expect(c.pid).toBeNull();
    await expect(c.tools()).rejects.toThrow(/MCP server "crashy" .* is not running/);
    await c.close();
  });

  it('errors clearly for a missing command and for a server that exits at once', async () => {
    await expect(connectMcp({ name: 'ghost', command: '/nonexistent/qitos-mcp-server' })).rejects.toThrow(
      'MCP server "ghost" (/nonexistent/qitos-mcp-server) failed to start: command not found: /nonexistent/qitos-mcp-server',
    );
    await expect(connectMcp({ name: 'quitter', command: process.execPath, args: ['-e', 'console.error("bad config"); process.exit(3)'] })).rejects.toThrow(
      /MCP server "quitter" \(.*node.* -e .*\) failed to start: .*Connection closed[\s\S]*bad config/,
    );
    await expect(connectMcp({ name: 'mute', command: process.execPath, args: ['-e', 'setTimeout(() => {}, 5000)'], startTimeoutMs: 100 })).rejects.toThrow(
      /MCP server "mute" .* failed to start: no answer to the MCP handshake within 100 ms/,
    );
    await expect(connectMcp({ name: '', command: 'x' })).rejects.toThrow(/invalid MCP server config: name/);
  });

  it('close() ends the subprocess', async () => {
    const c = await fixture('closer');
    const pid = c.pid!;
    expect(() => process.kill(pid, 0)).not.toThrow();
    await c.close();
    expect(() => process.kill(pid, 0)).toThrow(/ESRCH/);
    expect(c.pid).toBeNull();
    await c.close();
  });

  it('times a slow call out with the server named', async () => {
    const c = await fixture('sleepy', { timeoutMs: 150 });
    const slow = (await c.tools()).find((t) => t.id === 'sleepy_slow')!;
    await expect(Promise.resolve(slow.execute({ ms: 2_000 }, { signal: new AbortController().signal } as never))).rejects.toThrow(
      /MCP server "sleepy" .*: tool "slow" timed out after 150 ms/,
    );
    await c.close();
  });
});

describe('naming and schema conversion', () => {
  it('tool ids always match [a-zA-Z0-9_-]{1,64}', () => {
    fc.assert(fc.property(fc.string({ minLength: 1 }), fc.string(), (server, tool) => void expect(mcpToolId(server, tool)).toMatch(/^[a-zA-Z0-9_-]{1,64}$/)));
  });

  it('forces object schemas and falls back to any object when a schema cannot be converted', () => {
    const forced = mcpParameters({ properties: { q: { type: 'string' } }, required: ['q'] });
    expect(forced.converted).toBe(true);
    expect(forced.schema.safeParse({ q: 'x' }).success).toBe(true);
    expect(forced.schema.safeParse({}).success).toBe(false);
    const broken = mcpParameters({ type: 'object', properties: { x: { $ref: '#/definitions/missing' } } });
    expect(broken.converted).toBe(false);
    expect(broken.reason).toBeTruthy();
    expect(broken.schema.safeParse({ anything: [1] }).success).toBe(true);
  });
});

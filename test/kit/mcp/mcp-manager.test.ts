import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolRegistry, defineTool } from '../../../src/index.js';
import { toolSpec } from '../../../src/core/index.js';
import { z } from 'zod';
import { McpManager, type McpEvent } from '../../../src/kit/mcp/index.js';
import { ROOT, act, alive, fixtureServer, nextEvent, until } from '../../helpers/mcp-fixtures.js';

// what a secret in the host process looks like; it must never reach a server unless the config names it
const HOST_ENV = { ...process.env, QITOS_MCP_TEST_SECRET: 'sk-do-not-leak', QITOS_MCP_GIVEN: 'given-value' };

describe('McpManager: connecting a config', () => {
  let manager: McpManager;
  let registry: ToolRegistry;
  let startedMs: number;
  beforeAll(async () => {
    const t0 = Date.now();
    manager = await McpManager.connect(
      {
        fx: fixtureServer({
          env: { FIXTURE_FLAG: '1', GIVEN: '${QITOS_MCP_GIVEN}' },
          outputLimits: { maxLines: 4 },
          tools: { exclude: ['crash', 'big'] },
        }),
        off: fixtureServer({ enabled: false }),
        ghost: { type: 'stdio', command: '/nonexistent/qitos-mcp-server' },
        quitter: {
          type: 'stdio',
          command: process.execPath,
          args: ['-e', 'console.error("bad config"); process.exit(3)'],
        },
        mute: {
          type: 'stdio',
          command: process.execPath,
          args: ['-e', 'setTimeout(() => {}, 10000)'],
          connectTimeout: 300,
        },
        unset: fixtureServer({ env: { TOKEN: '${QITOS_MCP_UNSET_VAR}' } }),
      },
      { env: HOST_ENV, cwd: ROOT },
    );
    startedMs = Date.now() - t0;
    registry = new ToolRegistry([
      defineTool({
        id: 'fx_add',
        description: "the agent's own tool with a clashing id",
        parameters: z.object({}),
        execute: () => 'own',
      }),
    ]);
    manager.attach(registry);
  }, 120_000);
  afterAll(() => manager?.close());

  it('gives every server a status: connected, disabled, or failed with the reason', () => {
    const byName = Object.fromEntries(manager.statuses().map((s) => [s.name, s]));
    expect(byName.fx).toMatchObject({ state: 'connected', transport: 'stdio', resources: true, prompts: true });
    expect(byName.off).toMatchObject({ state: 'disabled', tools: [] });
    expect(byName.ghost).toMatchObject({ state: 'failed', reason: 'command not found: /nonexistent/qitos-mcp-server' });
    expect(byName.quitter.state).toBe('failed');
    expect(byName.quitter.reason).toMatch(/Connection closed[\s\S]*server stderr:\nbad config/);
    expect(byName.mute).toMatchObject({ state: 'failed', reason: 'no answer to the MCP handshake within 300 ms' });
    expect(byName.unset).toMatchObject({
      state: 'failed',
      reason: 'mcp.unset.env.TOKEN uses ${QITOS_MCP_UNSET_VAR}, which is not set in the environment',
    });
    expect(startedMs).toBeLessThan(30_000);
  });

  it('registers the tools the filter lets through, with prefixed ids and the server schemas; clashing ids are skipped', () => {
    const fx = manager.statuses().find((s) => s.name === 'fx')!;
    expect(fx.tools).toContain('fx_echo');
    expect(fx.tools).toContain('fx_dotted_name');
    expect(fx.tools).not.toContain('fx_crash');
    expect(fx.skipped).toEqual(
      expect.arrayContaining([
        { tool: 'crash', reason: 'left out by the tools filter' },
        { tool: 'fx_add', reason: 'the agent already has a tool with this id' },
      ]),
    );
    expect(registry.get('fx_add')!.description).toContain('own tool');
    expect(registry.has('list_mcp_resources') && registry.has('read_mcp_resource')).toBe(true);
    const echo = toolSpec(registry.get('fx_echo')!);
    expect(echo.description).toBe('Echo text back, optionally repeated');
    expect(echo.inputSchema).toMatchObject({
      type: 'object',
      properties: { text: { type: 'string', minLength: 1 } },
      required: ['text'],
    });
  });

  it('calls tools: text joined and capped for the model (the trace keeps all), isError and bad arguments as error results', async () => {
    expect(await act(registry, 'fx_echo', { text: 'hi', times: 2 })).toMatchObject({
      status: 'success',
      output: 'hi\nhi',
    });
    const long = await act(registry, 'fx_echo', { text: 'line', times: 5 });
    expect(long.output).toBe('line\nline\nline\nline\nline');
    expect((long.state as { output: string }).output).toMatch(
      /^line\nline\nline\nline\n\n\[output truncated: showing 4 of 5 lines/,
    );
    const failed = await act(registry, 'fx_fail', { message: 'disk is full' });
    expect(failed).toMatchObject({ status: 'error', error: 'disk is full' });
    const bad = await act(registry, 'fx_echo', { text: '', times: 9 });
    expect(bad.status).toBe('error');
    expect(bad.error).toMatch(/Invalid arguments for tool "fx_echo":\n- text:[\s\S]*- times:/);
  });

  it('maps images, audio and binary resources to attachments and resource links to mcp:// lines', async () => {
    const r = await act(registry, 'fx_picture', {});
    expect(r.output).toBe('a pixel\nresource text\n[resource] mcp://fx/fixture://notes.txt (notes, text/plain)');
    expect((r.state as { attachments: unknown[] }).attachments).toEqual([
      { mime: 'image/png', url: expect.stringMatching(/^data:image\/png;base64,iVBOR/) },
      { mime: 'audio/wav', url: 'data:audio/wav;base64,UklGRg==' },
      { mime: 'application/octet-stream', url: 'data:application/octet-stream;base64,AAEC', filename: 'data.bin' },
    ]);
  });

  it('gives a server only PATH, HOME, LANG and the env the config names (with ${VAR} from this process)', async () => {
    const keys = JSON.parse((await act(registry, 'fx_env_keys', {})).output as string) as string[];
    expect(keys).toEqual(
      ['FIXTURE_FLAG', 'GIVEN', 'HOME', 'LANG', 'PATH'].filter(
        (k) => ['FIXTURE_FLAG', 'GIVEN'].includes(k) || process.env[k] !== undefined,
      ),
    );
    expect((await act(registry, 'fx_env_value', { name: 'GIVEN' })).output).toBe('given-value');
  });

  it('reads resources and templates through the resource tools', async () => {
    const list = await act(registry, 'list_mcp_resources', {});
    expect(list.output).toContain('server fx: 3 resources, 1 template');
    expect(list.output).toContain('- mcp://fx/fixture://notes.txt (notes, text/plain): Some notes');
    expect(list.output).toContain('- template mcp://fx/fixture://items/{id} (item, application/json): One item by id');
    expect((await act(registry, 'read_mcp_resource', { uri: 'mcp://fx/fixture://items/7' })).output).toBe(
      '{"id":"7","name":"item 7"}',
    );
    const pixel = await act(registry, 'read_mcp_resource', { uri: 'mcp://fx/fixture://pixel.png' });
    expect((pixel.state as { attachments: unknown[] }).attachments).toEqual([
      { mime: 'image/png', url: expect.stringMatching(/^data:image\/png;base64,/), filename: 'pixel.png' },
    ]);
    expect((await act(registry, 'read_mcp_resource', { uri: 'mcp://nope/x' })).error).toBe(
      'no MCP server named "nope" (configured: fx, off, ghost, quitter, mute, unset)',
    );
    expect((await act(registry, 'read_mcp_resource', { uri: 'mcp://ghost/x' })).error).toMatch(
      /MCP server "ghost" .* is not available: command not found/,
    );
    expect((await act(registry, 'read_mcp_resource', { uri: 'file:///etc/passwd' })).error).toMatch(
      /not an MCP resource reference/,
    );
  });
});

describe('McpManager: timeouts, progress, crashes, list changes, oversize messages, close', () => {
  it('connects servers concurrently: three servers that each wait for all three to start all connect', async () => {
    const barrier = mkdtempSync(join(tmpdir(), 'qitos-mcp-barrier-'));
    const server = {
      type: 'stdio' as const,
      command: process.execPath,
      args: [resolve(ROOT, 'test/fixtures/mcp/barrier-server.mjs')],
      cwd: ROOT,
      env: { BARRIER_DIR: barrier, BARRIER_COUNT: '3' },
      connectTimeout: 60_000,
    };
    const m = await McpManager.connect({ a: server, b: server, c: server }, { cwd: ROOT });
    try {
      expect(m.statuses().map((s) => s.state)).toEqual(['connected', 'connected', 'connected']);
    } finally {
      await m.close();
      rmSync(barrier, { recursive: true, force: true });
    }
  }, 120_000);

  it('times a slow call out, and a call that reports progress restarts its timeout', async () => {
    const m = await McpManager.connect({ fx: fixtureServer({ timeout: 1_500 }) }, { cwd: ROOT });
    try {
      const registry = new ToolRegistry();
      m.attach(registry);
      const slow = await act(registry, 'fx_slow', { ms: 4_000 });
      expect(slow.error).toMatch(/^MCP server "fx" \(.*server\.ts\): tool "slow" timed out after 1500 ms$/);
      // 8 x 300 ms is longer than the timeout; each progress notification restarts it
      const progress = await act(registry, 'fx_progress', { steps: 8, every: 300 });
      expect(progress).toMatchObject({ status: 'success', output: 'done after 8 steps' });
      expect(progress.titles).toEqual(expect.arrayContaining(['progress: step 1 of 8', 'progress: step 7 of 8']));
    } finally {
      await m.close();
    }
  }, 120_000);

  it('reports a server that dies mid-call and reconnects it with backoff; the next call works', async () => {
    const m = await McpManager.connect({ fx: fixtureServer() }, { cwd: ROOT, reconnect: { delayMs: 50 } });
    try {
      const registry = new ToolRegistry();
      m.attach(registry);
      const pid = Number((await act(registry, 'fx_pid', {})).output);
      const reconnected = nextEvent(m, (e) => e.type === 'status' && e.state === 'connected');
      const crash = await act(registry, 'fx_crash', {});
      expect(crash.error).toMatch(
        /^MCP server "fx" .* exited during tool "crash"\nserver stderr:\n[\s\S]*fixture: crashing on purpose$/,
      );
      expect(m.statuses()[0]).toMatchObject({ state: 'reconnecting', reason: expect.stringMatching(/^exited/) });
      expect((await act(registry, 'fx_pid', {})).error).toMatch(/MCP server "fx" .* is reconnecting after it exited/);
      await reconnected;
      const again = Number((await act(registry, 'fx_pid', {})).output);
      expect(again).not.toBe(pid);
      expect(alive(pid)).toBe(false);
      expect(m.statuses()[0]).toMatchObject({ state: 'connected', reconnects: 1 });
    } finally {
      await m.close();
    }
  }, 120_000);

  it('gives up on a server that keeps dying, and says so', async () => {
    const events: McpEvent[] = [];
    // Listening from the start: on a loaded machine the server can die (300 ms) before connect returns, and its
    // reconnects then happen inside connect.
    const m = await McpManager.connect(
      { fx: fixtureServer({ env: { FIXTURE_EXIT_AFTER_MS: '300' } }) },
      { cwd: ROOT, reconnect: { attempts: 2, delayMs: 50 }, onEvent: (e) => events.push(e) },
    );
    try {
      await until(() => m.statuses()[0].state === 'failed', 80_000, 'the server to be given up');
      expect(m.statuses()[0].reason).toMatch(/^exited.*\(gave up after 2 reconnects within a minute\)$/s);
      expect(events.filter((e) => e.type === 'status' && e.state === 'reconnecting')).toHaveLength(2);
    } finally {
      await m.close();
    }
  }, 120_000);

  it('follows tools/list_changed: a tool the server adds appears in the registry', async () => {
    const m = await McpManager.connect({ fx: fixtureServer() }, { cwd: ROOT });
    try {
      const registry = new ToolRegistry();
      m.attach(registry);
      const changed = nextEvent(m, (e) => e.type === 'tools_changed');
      expect((await act(registry, 'fx_grow', { name: 'fresh' })).output).toBe('added fresh');
      expect(await changed).toEqual({ type: 'tools_changed', server: 'fx', added: ['fx_fresh'], removed: [] });
      expect((await act(registry, 'fx_fresh', {})).output).toBe('fresh ok');
    } finally {
      await m.close();
    }
  }, 120_000);

  it('a 20 MB message is reported as too large (not as an exit), and the server is reopened', async () => {
    const m = await McpManager.connect(
      { fx: fixtureServer({ timeout: 60_000 }) },
      { cwd: ROOT, reconnect: { delayMs: 50 } },
    );
    try {
      const registry = new ToolRegistry();
      m.attach(registry);
      const reconnected = nextEvent(m, (e) => e.type === 'status' && e.state === 'connected');
      const big = await act(registry, 'fx_big', { mb: 20 });
      expect(big.error).toMatch(
        /^MCP server "fx" .* sent a message larger than 10485760 bytes \(the maxMessageBytes limit\), so qitos closed the connection during tool "big"/,
      );
      await reconnected;
      expect((await act(registry, 'fx_add', { a: 1, b: 1 })).output).toBe('2');
    } finally {
      await m.close();
    }
  }, 120_000);

  it('maxMessageBytes sets the limit', async () => {
    const m = await McpManager.connect(
      { fx: fixtureServer({ maxMessageBytes: 1024 * 1024 }) },
      { cwd: ROOT, reconnect: false },
    );
    try {
      const registry = new ToolRegistry();
      m.attach(registry);
      expect((await act(registry, 'fx_big', { mb: 0.5 })).status).toBe('success');
      expect((await act(registry, 'fx_big', { mb: 2 })).error).toMatch(/sent a message larger than 1048576 bytes/);
      await until(() => m.statuses()[0].state === 'failed', 10_000, 'the connection to close');
      expect(m.statuses()[0].reason).toMatch(/^sent a message larger than 1048576 bytes/);
    } finally {
      await m.close();
    }
  }, 120_000);

  it('close() ends every server process, also one that is reconnecting', async () => {
    const m = await McpManager.connect(
      { a: fixtureServer(), b: fixtureServer() },
      { cwd: ROOT, reconnect: { delayMs: 60_000 } },
    );
    const registry = new ToolRegistry();
    m.attach(registry);
    const pids = m.statuses().map((s) => s.pid!);
    expect(pids.every(alive)).toBe(true);
    await act(registry, 'b_crash', {});
    expect(m.statuses()[1].state).toBe('reconnecting');
    await m.close();
    expect(pids.some(alive)).toBe(false);
    expect(m.statuses().map((s) => s.state)).toEqual(['closed', 'closed']);
    expect((await act(registry, 'a_add', { a: 1, b: 2 })).error).toMatch(/MCP server "a" .* was closed/);
    await m.close();
  }, 120_000);
});
